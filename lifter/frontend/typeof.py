"""`typeof` and `typeof_unqual` (C23, and GNU's `__typeof__`), which pycparser does not parse.

Before parsing, each `KEYWORD ( ... )` of the preprocessed text becomes one placeholder type
name, `__lift_typeof_N`, that the parser is told is a typedef (see `prelude`); the newlines and
line markers inside the parentheses stay, so every line number stays right. The user's text is
never changed: backends re-emit it byte for byte. What a placeholder stands for is not worked
out: the analysis takes a name declared with one as of a type it does not know, and a loop nest
that touches one stays as written (analysis/unknown_types.py).

Which spellings are keywords follows the compilers: `__typeof__` and `__typeof` always (gcc and
clang), `__typeof_unqual__` and `__typeof_unqual` always (clang 19, gcc 14), `typeof` in the GNU
dialects and from C23 on, `typeof_unqual` from C23 on (gcc 12 knows neither `typeof_unqual` nor
`typeof` in `-std=c2x`: C23 is the standard lift follows). Elsewhere the word is an identifier,
and a use as a type is the syntax error it is for the compiler.
"""
from __future__ import annotations

import re

from lifter.frontend.tokens import MARKER_OR_STRING, parenthesized_end, replaced_keeping_lines

PLACEHOLDER_PREFIX = "__lift_typeof_"
_ALWAYS = frozenset({"__typeof__", "__typeof", "__typeof_unqual__", "__typeof_unqual"})
_C23 = ("c2x", "c23", "gnu2x", "gnu23")
_SCAN = re.compile(MARKER_OR_STRING + r"|(?P<word>[A-Za-z_]\w*)", re.M)
_QUICK = re.compile(r"\b(?:__)?typeof")
_PLACEHOLDER = re.compile(re.escape(PLACEHOLDER_PREFIX) + r"\d+")
_KEYWORD = re.compile(r"\w+")


def typeof_keywords(std: str) -> frozenset[str]:
    """The spellings of typeof that are keywords under `-std=STD`."""
    words = set(_ALWAYS)
    if std.startswith("gnu") or std in _C23:
        words.add("typeof")
    if std in _C23:
        words.add("typeof_unqual")
    return frozenset(words)


def is_placeholder(name: str) -> bool:
    return name.startswith(PLACEHOLDER_PREFIX)


def hide_typeof(text: str, keywords: frozenset[str]) -> tuple[str, dict[str, str]]:
    """`text` with every `KEYWORD(...)` of `keywords` replaced by a placeholder type name, and
    what each placeholder replaced, in order. A keyword without its parenthesized operand is left
    to the parser."""
    if not _QUICK.search(text):
        return text, {}
    out: list[str] = []
    names: dict[str, str] = {}
    done = pos = 0
    while True:
        m = _SCAN.search(text, pos)
        if m is None:
            break
        pos = m.end()
        if m.lastgroup != "word" or m.group() not in keywords:
            continue
        end = parenthesized_end(text, m.end())
        if end is None:
            continue
        name = f"{PLACEHOLDER_PREFIX}{len(names)}"
        names[name] = text[m.start():end]
        out.append(text[done:m.start()])
        out.append(replaced_keeping_lines(text[m.start():end], name))
        done = pos = end
    out.append(text[done:])
    return "".join(out), names


def spelled(message: str, originals: dict[str, str]) -> str:
    """A parser's message with each placeholder spelled as the keyword it stands for."""
    return _PLACEHOLDER.sub(lambda m: _KEYWORD.match(originals.get(m.group(), m.group())).group(), message)


def restored(line: str, column: int, originals: dict[str, str]) -> tuple[str, int]:
    """A line of the parsed text with its placeholders (and the blanks padding them) replaced by
    the text they stand for, and the 1-based `column` of that line moved with its token; a
    placeholder of several lines stays (its first line alone is not what the user wrote)."""
    out: list[str] = []
    last = 0
    for m in _PLACEHOLDER.finditer(line):
        original = originals.get(m.group(), "")
        if not original or "\n" in original:
            continue
        end = m.end()
        while end < len(line) and end - m.start() < len(original) and line[end] == " ":
            end += 1
        out += [line[last:m.start()], original]
        last = end
        if column - 1 >= end:
            column += len(original) - (end - m.start())
    return "".join(out) + line[last:], column


def prelude(names) -> str:
    """Declarations that make the parser read each placeholder as a type name (dropped from the
    AST after parsing, so that no analysis takes them for the type they stand for)."""
    return "".join(f"typedef int {name};\n" for name in names)
