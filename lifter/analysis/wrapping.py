"""Conditions computed in unsigned arithmetic, which wraps around where the model's integers do not.

The polyhedral model reads an affine `if` as a constraint over the mathematical integers.
C compares in unsigned arithmetic when an operand is unsigned (after the usual conversions),
and there `i - 1` at i = 0 is UINT_MAX, not -1: `if ((unsigned)(i - 1) >= n)` (the classic
one-comparison range test) is true in the first iteration, while the model finds it never
holds and drops what its branch writes from the dependences (found by fuzz10: a write in that
branch raced with reads of the same element in later iterations). An unsigned index scalar
(`unsigned c = i - 1;`, index_scalars.py) substituted into a condition is the same case.

Unsigned operands alone are harmless (`ui < n` with both unsigned agrees with the model while
nothing wraps, and no index in range makes an addition wrap); what wraps is a subtraction, a
negation or a negative constant, which the model computes below zero. Such a condition is not
affine here (both branches may run), conservatively: without types of every subexpression,
any unsigned name, cast, literal, `sizeof`, or unsigned struct field in it counts."""
from __future__ import annotations

from pycparser import c_ast

from lifter.frontend.walk import walk

_SMALL = {"char", "short", "_Bool", "bool"}  # promoted to int before any arithmetic


def unsigned_type_words(names: list[str]) -> bool:
    """Whether the type spelled `names` (typedefs resolved) is an unsigned type of rank >= int."""
    words = set(names)
    if words & _SMALL:
        return False
    return "unsigned" in words or any(w == "size_t" or w.startswith("uint") and w.endswith("_t") for w in words)


def _declared_unsigned(type_node: c_ast.Node, typedefs) -> bool:
    node = typedefs.resolve(type_node)
    return isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType) \
        and unsigned_type_words(node.type.names)


def unsigned_names(symbols) -> set[str]:
    """Names with an unsigned declaration anywhere in the function, its parameters or the file's
    globals (a name declared twice, signed and unsigned, counts as unsigned); computed once per
    function (kept on `symbols`, as index_scalars.entry_values does)."""
    cached = getattr(symbols, "_unsigned_names", None)
    if cached is None:
        cached = symbols._unsigned_names = _unsigned_names(symbols)
    return cached


def _unsigned_names(symbols) -> set[str]:
    typedefs = symbols.table.typedefs
    out = {name for name, sym in symbols.table.globals.items()
           if isinstance(sym.decl, c_ast.Decl) and _declared_unsigned(sym.decl.type, typedefs)}
    out |= {name for name, sym in symbols.locals.items()
            if isinstance(sym.decl, c_ast.Decl) and _declared_unsigned(sym.decl.type, typedefs)}
    out |= {n.name for n in walk(symbols.body)
            if isinstance(n, c_ast.Decl) and n.name and _declared_unsigned(n.type, typedefs)}
    return out


def _has_unsigned(node: c_ast.Node, symbols, unsigned: set[str]) -> bool:
    typedefs = symbols.table.typedefs
    for n in walk(node):
        if isinstance(n, c_ast.ID) and n.name in unsigned:
            return True
        if isinstance(n, c_ast.Cast) and _declared_unsigned(n.to_type.type, typedefs):
            return True
        if isinstance(n, c_ast.Constant) and "int" in n.type and "u" in n.value.lower():  # 10u, 0xffUL
            return True
        if isinstance(n, c_ast.UnaryOp) and n.op in ("sizeof", "_Alignof"):
            return True
        if isinstance(n, c_ast.StructRef):
            field = symbols.table.field_type(n, symbols.lookup)
            if field is None or _declared_unsigned(field, typedefs):
                return True  # a field of unknown type may be unsigned
    return False


def _goes_below_zero(node: c_ast.Node) -> bool:
    return any(isinstance(n, c_ast.BinaryOp) and n.op == "-" or isinstance(n, c_ast.UnaryOp) and n.op in ("-", "~")
               for n in walk(node))


def may_wrap(original: c_ast.Node, rewritten: c_ast.Node, symbols, unsigned: set[str]) -> bool:
    """Whether the condition `original` (as written; `rewritten`, as the analysis reads it, with
    index scalars and helpers substituted) may compute in unsigned arithmetic a value the model
    takes below zero. `unsigned`: `unsigned_names(symbols)`."""
    return _goes_below_zero(rewritten) and (_has_unsigned(original, symbols, unsigned)
                                            or _has_unsigned(rewritten, symbols, unsigned))


def loop_wrapping(var: str, decl: c_ast.Decl | None, start: c_ast.Node, cond: c_ast.Node, step: int,
                  symbols) -> str:
    """Where the loop `for (var = start; cond; var += step)` may take, in C, a value its model takes
    below zero as a huge unsigned one: "wraps" (not affine), "start" (the model must prove the
    start non-negative over the loops around: a numerator, scop._check_divisions) or "".

    `for (unsigned k = i - 1; k <= i + 1; k++)` runs no iteration at i = 0 (k starts at
    UINT_MAX), where the model runs k = -1, 0, 1 and calls what they write written in every
    iteration (found by fuzz10: a scalar the inner loop sets was privatized, and iteration 0
    read the thread's uninitialized copy instead of the value from before the loop). A signed
    `var` compared with an unsigned bound (`int k = i - 2; k < m` with `unsigned m`) is converted
    to unsigned in the comparison: its loop runs no iteration where it starts below zero, so the
    start must be non-negative wherever the loop runs; counting down towards zero it wraps.
    `decl`: the header's declaration of `var`, if any."""
    unsigned = unsigned_names(symbols)
    if decl is not None and _declared_unsigned(decl.type, symbols.table.typedefs) \
            or decl is None and var in unsigned:
        return "wraps" if _goes_below_zero(start) else ""
    if not _has_unsigned(cond, symbols, unsigned):
        return ""
    return "wraps" if step < 0 else "start"


def wrapping_value(type_node: c_ast.Node, original: c_ast.Node, rewritten: c_ast.Node, symbols) -> bool:
    """Whether an index scalar of type `type_node` set to `original` (`rewritten` as the analysis
    reads it) may hold a wrapped value where the model has a negative one: `unsigned c = i - 1;`
    is UINT_MAX at i = 0 in every subscript, bound and condition it is substituted into."""
    if not _goes_below_zero(rewritten):
        return False
    return _declared_unsigned(type_node, symbols.table.typedefs) \
        or may_wrap(original, rewritten, symbols, unsigned_names(symbols))
