"""Finding keywords in the user's exact text, skipping comments, strings and directives.

pycparser reports lines exactly, but its columns come from the preprocessed
text (macros expanded, whitespace collapsed); backends need the exact offset of
a loop's `for` keyword in the original file, so it is looked up here.
"""
from __future__ import annotations

import re

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
