"""Frontend: source text -> preprocessed text -> pycparser AST, with exact source positions."""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from lifter.frontend.parse import parse
from lifter.frontend.preprocess import PreprocessOptions, preprocess
from lifter.frontend.source import SourceFile


@dataclass
class TranslationUnit:
    """What the frontend hands on: the user's exact text, its AST and the headers it read."""

    source: SourceFile
    ast: c_ast.FileAST
    included_files: list[str]


def load(source: SourceFile, options: PreprocessOptions) -> TranslationUnit:
    pre = preprocess(source.path, source.text, options)
    return TranslationUnit(source, parse(pre.text, source.path), pre.included_files)


__all__ = ["PreprocessOptions", "SourceFile", "TranslationUnit", "load"]
