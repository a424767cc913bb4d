"""Frontend: source text -> preprocessed text -> pycparser AST, with exact source positions."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pycparser import c_ast

from lifter.diagnostics import LiftError
from lifter.frontend.check import CxxNote, check
from lifter.frontend.parse import parse
from lifter.frontend.preprocess import PreprocessOptions, preprocess
from lifter.frontend.source import SourceFile


@dataclass
class TranslationUnit:
    """What the frontend hands on: the user's exact text, its AST, the headers it read and the
    C compiler's warnings on it (the CUDA backend reads the C++ compatibility ones)."""

    source: SourceFile
    ast: c_ast.FileAST
    included_files: list[str]
    notes: list[CxxNote] = field(default_factory=list)


# C extensions the parser does not know: a syntax error on a line that uses one says so.
_UNSUPPORTED = [
    (re.compile(r"\b(?:typeof|__typeof__|__typeof)\b"), "'typeof' (a GNU extension) is not supported"),
    (re.compile(r"\b__auto_type\b"), "'__auto_type' (a GNU extension) is not supported"),
    (re.compile(r"\b_Generic\b"), "'_Generic' selections are not supported"),
    (re.compile(r"&&\s*[A-Za-z_]\w*|\bgoto\s*\*"), "labels as values ('&&label', 'goto *p') are not supported"),
    (re.compile(r"\bcase\b[^:]*\.\.\."), "case ranges ('case 1 ... 5:') are not supported"),
    (re.compile(r"\b__label__\b"), "local labels ('__label__') are not supported"),
    (re.compile(r"\b__builtin_types_compatible_p\b"), "'__builtin_types_compatible_p' is not supported"),
    (re.compile(r"\b__builtin_choose_expr\b"), "'__builtin_choose_expr' is not supported"),
    (re.compile(r"\b(?:__complex__|__real__|__imag__)\b"), "GNU complex keywords are not supported"),
]


def load(source: SourceFile, options: PreprocessOptions) -> TranslationUnit:
    pre = preprocess(source.path, source.text, options)
    try:
        ast = parse(pre.text, source.path)
    except LiftError as exc:
        raise _explained(exc, source) from None
    # after parsing: a syntax error is the parser's, with what lift does not support said
    return TranslationUnit(source, ast, pre.included_files, check(source.path, source.text, options))


def _explained(exc: LiftError, source: SourceFile) -> LiftError:
    """Add why to a syntax error on a line that uses a construct the parser does not support.

    Columns come from the preprocessed text; one past the end of the source line (inside
    a macro's expansion) is dropped rather than reported wrong."""
    d = exc.diagnostic
    if d.path != source.path or not d.line:
        return exc
    line = source.line_text(d.line)
    if d.column > len(line) + 1:
        exc = LiftError(d.path, d.line, 0, d.message)
        d = exc.diagnostic
    for pattern, why in _UNSUPPORTED:
        if pattern.search(line):
            return LiftError(d.path, d.line, d.column, f"{d.message}: {why}")
    return exc


__all__ = ["CxxNote", "PreprocessOptions", "SourceFile", "TranslationUnit", "load"]
