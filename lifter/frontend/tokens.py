"""Finding keywords in the user's exact text, skipping comments, strings and directives.

pycparser reports lines exactly, but its columns come from the preprocessed
text (macros expanded, whitespace collapsed); backends need the exact offset of
a loop's `for` keyword in the original file, so it is looked up here.
"""
from __future__ import annotations

import re

# Scanners of preprocessed text skip line markers and string/character literals with this.
MARKER_OR_STRING = r"""(?P<marker>^\#[^\n]*)|(?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
# Blanks and line markers between two tokens of preprocessed text.
GAP = re.compile(r"(?:\s|^\#[^\n]*)*", re.M)

_TOKEN = re.compile(
    r"""(?P<comment>/\*.*?\*/|//(?:[^\n\\]|\\.)*)"""
    r"""|(?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
    r"""|(?P<directive>^[ \t]*\#(?:[^\n\\]|\\.|\\\n)*)"""
    r"""|(?P<word>[A-Za-z_]\w*)""",
    re.S | re.M,
)


def keyword_offsets(text: str, keyword: str) -> dict[int, list[int]]:
    """Line number -> offsets of `keyword` as a token on that line, in order."""
    found: dict[int, list[int]] = {}
    line, last = 1, 0
    for m in _TOKEN.finditer(text):
        if m.lastgroup != "word" or m.group() != keyword:
            continue
        line += text.count("\n", last, m.start())
        last = m.start()
        found.setdefault(line, []).append(m.start())
    return found


def parenthesized_end(text: str, pos: int) -> int | None:
    """In preprocessed text, the offset just past the `)` that closes the `(` next after `pos`
    (blanks and line markers may come between; string and character literals are skipped), or
    None when no `(` comes next or it is never closed."""
    pos = GAP.match(text, pos).end()
    if not text.startswith("(", pos):
        return None
    depth, i, n = 0, pos, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def replaced_keeping_lines(span: str, replacement: str) -> str:
    """`replacement` for the preprocessed text `span`, followed by `span`'s newlines and line
    markers (its other characters blanked), so that every line after it keeps its number."""
    blank = "\n".join(line if k and line.startswith("#") else " " * len(line)
                       for k, line in enumerate(span.split("\n")))
    first, newline, rest = blank.partition("\n")
    return replacement + first[len(replacement):] + newline + rest
