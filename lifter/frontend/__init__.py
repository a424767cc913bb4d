"""Frontend: source text -> preprocessed text -> pycparser AST, with exact source positions.

The explanations of a failed parse (explain.py) are imported where a parse fails: a run over valid
C never needs them, and every lift process would compile them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from lifter.diagnostics import LiftError
from lifter.frontend.check import CxxNote, check, probe_compiler
from lifter.frontend.parse import parse
from lifter.frontend.preprocess import PreprocessOptions, preprocess
from lifter.frontend.source import SourceFile
from lifter.started import Started


@dataclass(eq=False)
class TranslationUnit:
    """What the frontend hands on: the user's exact text, its AST, the headers it read and the
    C compiler's warnings on it (the CUDA backend reads the C++ compatibility ones)."""

    source: SourceFile
    ast: c_ast.FileAST
    included_files: list[str]
    notes: list[CxxNote] = field(default_factory=list)


def load(source: SourceFile, options: PreprocessOptions) -> TranslationUnit:
    Started(probe_compiler, options, name="lift-probe")  # beside the preprocessor (check.py)
    pre = preprocess(source.path, source.text, options)
    # The compiler's check waits on a process of its own: it runs while this thread parses (on two
    # cores the lifting time is shorter by the check's, its CPU time the same). Not before the
    # preprocessor has accepted the file: a macro that expands to 2**40 terms, which the
    # preprocessor stops at its size limit, would keep the compiler busy until its time limit.
    checking = Started(check, source.path, source.text, options, name="lift-check")
    try:
        ast = parse(pre.text, source.path, options.std)
    except LiftError as exc:
        from lifter.frontend.explain import explain, with_function, with_include_chain
        error = _in_macro_as_compiler_places_it(explain(exc, source, pre.included_files, options.std), source,
                                                options)
        raise with_include_chain(with_function(error, pre.text), pre.text) from None
    finally:
        checking.join()
    # after parsing: a syntax error is the parser's, with what lift does not support said
    try:
        notes = checking.result()
    except LiftError as exc:
        from lifter.frontend.explain import with_include_chain
        raise with_include_chain(exc, pre.text) from None
    return TranslationUnit(source, ast, pre.included_files, notes)


def _in_macro_as_compiler_places_it(error: LiftError, source: SourceFile, options: PreprocessOptions) -> LiftError:
    """A syntax error inside a macro's expansion, at the token of the definition the C compiler
    points at, with its words and notes, when the compiler finds an error expanded at the same
    use. explain() can only guess the token when the definition has it once (`((x) + * )` has
    three `)`); the compiler knows which. Where the compiler accepts the file (a GNU extension
    lift refuses), or explain() named a construct lift does not parse, explain()'s error stays."""
    from lifter.frontend.explain import Unsupported
    notes = error.diagnostic.notes
    if not notes or isinstance(error, Unsupported):
        return error
    try:
        check(source.path, source.text, options)
    except LiftError as theirs:
        if any((n.path, n.line) == (notes[0].path, notes[0].line) for n in theirs.diagnostic.notes):
            return theirs
    return error


__all__ = ["CxxNote", "PreprocessOptions", "SourceFile", "TranslationUnit", "load"]
