"""Parsing preprocessed C with pycparser, with errors reported at their place."""
from __future__ import annotations

import re

from pycparser import c_ast, c_lexer, c_parser

from lifter.diagnostics import LiftError
from lifter.frontend.preprocess import unescape_marker

# gcc's headers name this builtin type; pycparser needs to know it is a type.
PRELUDE = '# 1 "<lift-prelude>"\ntypedef int __builtin_va_list;\n'

_ERR_RE = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<msg>.*)$", re.S)


class _Lexer(c_lexer.CLexer):
    """pycparser's lexer, with line markers' file names unescaped (`a\\"b.c` is the file a"b.c),
    so the coordinates name files exactly as the user and the rest of lift spell them."""

    @property
    def filename(self) -> str:
        return unescape_marker(super().filename)


def parse(text: str, path: str) -> c_ast.FileAST:
    """Parse preprocessed text; a syntax error becomes a LiftError at its position."""
    parser = c_parser.CParser(lexer=_Lexer)
    try:
        return parser.parse(PRELUDE + strip_asm(text), path)
    except c_parser.ParseError as exc:
        raise _located(str(exc), parser, path) from None
    except RecursionError:
        raise LiftError(path, 0, 0, "expression or statement nested too deeply to parse") from None


def _located(message: str, parser: c_parser.CParser, path: str) -> LiftError:
    m = _ERR_RE.match(message)
    if m:
        msg = _reword(m["msg"])
        return LiftError(m["file"], int(m["line"]), int(m["col"] or 0), msg)
    # pycparser gave no position: use the token the parser stopped at.
    msg = message.split(": ", 1)[-1]
    token = parser._peek() if hasattr(parser, "_peek") else None
    if token is not None:
        return LiftError(parser.clex.filename or path, token.lineno, token.column,
                         f"{_reword(msg)} before '{token.value}'")
    return LiftError(parser.clex.filename or path, 0, 0, f"{_reword(msg)} at end of input")


def _reword(msg: str) -> str:
    if msg.startswith("before: "):
        return f"syntax error before '{msg[len('before: '):]}'"
    return msg[:1].lower() + msg[1:] if msg else "syntax error"


# GNU inline assembly, which pycparser does not parse. A statement `asm volatile(...)`
# becomes a call to an unknown function (so the analysis treats it as having any
# effect); an asm label in a declaration (`int f(void) __asm__("g");`) is blanked.
# Newlines are kept, so every line number stays right.
_ASM_SCAN = re.compile(
    r"""(?P<marker>^\#[^\n]*)"""
    r"""|(?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
    r"""|(?P<word>[A-Za-z_]\w*)"""
    r"""|(?P<punct>[^\s\w])""",
    re.M,
)
_ASM_WORDS = {"asm", "__asm", "__asm__"}
_ASM_QUALIFIERS = {"volatile", "__volatile", "__volatile__", "goto", "inline", "__inline", "__inline__"}
_STATEMENT_START = set(";{}:")
_ASM_QUICK = re.compile(r"(?<![\w/.])(?:asm|__asm|__asm__)\b(?![/.])")
_GAP = re.compile(r"(?:\s|^\#[^\n]*)*", re.M)


def strip_asm(text: str) -> str:
    if not _ASM_QUICK.search(text):
        return text
    out: list[str] = []
    done = 0
    last = ";"
    pos = 0
    while True:
        m = _ASM_SCAN.search(text, pos)
        if m is None:
            break
        pos = m.end()
        if m.lastgroup == "marker":
            continue
        if m.lastgroup == "punct":
            last = m.group()
            continue
        if m.lastgroup != "word" or m.group() not in _ASM_WORDS:
            last = "x"
            continue
        end = _asm_end(text, m.end())
        if end is None:
            last = "x"
            continue
        span = text[m.start():end]
        # Line markers inside the span stay, so line numbers after it stay right.
        lines = span.split("\n")
        blank = "\n".join(ln if k and ln.startswith("#") else " " * len(ln) for k, ln in enumerate(lines))
        replacement = "__lift_asm()" if last in _STATEMENT_START else ""
        out.append(text[done:m.start()])
        out.append(replacement + blank[len(replacement):] if "\n" not in blank[:len(replacement)] else replacement + blank)
        done = pos = end
        last = ")"
    out.append(text[done:])
    return "".join(out)


def _asm_end(text: str, pos: int) -> int | None:
    """End of `qualifiers (...)` after an asm keyword, or None if it is not one."""
    word = re.compile(r"[A-Za-z_]\w*")
    while True:
        pos = _GAP.match(text, pos).end()
        m = word.match(text, pos)
        if not m or m.group() not in _ASM_QUALIFIERS:
            break
        pos = m.end()
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
