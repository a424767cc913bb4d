"""Parsing preprocessed C with pycparser, with errors reported at their place."""
from __future__ import annotations

import re

from pycparser import c_ast, c_parser

from lifter.diagnostics import LiftError

# gcc's headers name this builtin type; pycparser needs to know it is a type.
PRELUDE = '# 1 "<lift-prelude>"\ntypedef int __builtin_va_list;\n'

_ERR_RE = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<msg>.*)$", re.S)


def parse(text: str, path: str) -> c_ast.FileAST:
    """Parse preprocessed text; a syntax error becomes a LiftError at its position."""
    parser = c_parser.CParser()
    try:
        return parser.parse(PRELUDE + text, path)
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
