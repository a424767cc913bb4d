"""Arrays of row pointers (`double **A`, `A[i][j]`) read as two-dimensional arrays.

Rows reached through loaded pointers may overlap one another and other data, so by
default a write through them is a may-write of unknown memory (effects.py), which
keeps every loop around it sequential. Where the region never changes the row
pointers themselves, the model may instead read `A[i][j]` as element (i, j) of a
2-D container `A` (indirect, kind 'pointer'), *provided that* every use of that
reading is guarded by a run-time test that the rows involved are disjoint: in
increasing address order without overlap over the columns used, and, as a whole,
disjoint from the other data (transform/alias_test.py `alias_condition` builds
the test from the memlets; a loop it cannot test stays sequential).

A name qualifies (`row_arrays`) when it is a two-level array of rows of an
arithmetic type, never assigned, declared or address-taken in the region, every
use of it is a full `A[e1][e2]` (also through a row alias, `double *r = A[i]; r[j]`,
pointer_aliases.py) or a row `A[e]` passed to a file-local function whose
summary has a span for it (call_spans.py: then the call touches `A[e][span]`; any other
bare row could escape), and
no write of the region can change a row pointer: no unknown call, no write through
unknown memory or other row arrays' pointers, and every other write stores an
arithmetic value (which, by C's aliasing rules, cannot modify a pointer object).
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.effects import MEMORY, WORLD, collect_effects, struct_ref
from lifter.analysis.model import Kind
from lifter.analysis.symbols import FLOAT_WORDS, INTEGER_WORDS
from lifter.analysis.pointer_aliases import pointer_aliases, through_aliases
from lifter.analysis.walk import replace_nodes
from lifter.frontend.walk import walk


def arithmetic(element: str) -> bool:
    words = set(element.split())
    return bool(words) and words <= INTEGER_WORDS | FLOAT_WORDS | {"const", "volatile"}


def row_arrays(root: c_ast.Node, symbols, written: set[str]) -> frozenset[str]:
    """Names of row arrays in the region rooted at `root` that may be read as 2-D arrays.

    `written`: names assigned, declared or address-taken in the region."""
    candidates = set()
    aliases = pointer_aliases(symbols)
    for name in _full_uses(through_aliases(_without_declarations(root, aliases), aliases), symbols.table.call_effects):
        sym = symbols.lookup(name)
        if sym is not None and sym.indirect and sym.ndim == 2 and arithmetic(sym.element) \
                and name not in written and name not in symbols.ambiguous:
            candidates.add(name)
    if not candidates:
        return frozenset()
    effects = collect_effects(root, symbols, lambda name: name, rows=frozenset(candidates))
    for w in effects.refs:
        if not w.is_write or (w.name in candidates and not w.field_path):
            continue  # a write of the data in a row: what this reading makes exact
        if not _stores_arithmetic(w, symbols):
            return frozenset()
    return frozenset(candidates)


def _without_declarations(root: c_ast.Node, aliases) -> c_ast.Node:
    """`root` without the declarations of row aliases (`double *r = rows[i];`, pointer_aliases.py):
    such a row is read through the alias as `rows[i][j]`, and the declaration writes only r."""
    if not any(isinstance(n, c_ast.Decl) and n.name in aliases and aliases[n.name].row for n in walk(root)):
        return root
    return replace_nodes(root, lambda n: c_ast.EmptyStatement() if isinstance(n, c_ast.Decl) and n.name in aliases
                         and aliases[n.name].row else None)


def _full_uses(root: c_ast.Node, summaries) -> set[str]:
    """Names used only as `X[e1][e2]` (and not under `&`) in the region, or as a row `X[e]`
    passed to a summarized function with a span for it (which touches only that row's span)."""
    full, other = set(), set()
    spanned = _rows_passed(root, summaries)

    def visit(node, parent, grand, addressed):
        if isinstance(node, c_ast.ID):
            outer = isinstance(parent, c_ast.ArrayRef) and parent.name is node \
                and (isinstance(grand, c_ast.ArrayRef) and grand.name is parent or id(parent) in spanned)
            (full if outer and not addressed else other).add(node.name)
            return
        under = addressed or (isinstance(node, c_ast.UnaryOp) and node.op == "&")
        for _, child in node.children():
            visit(child, node, parent, under if not isinstance(node, c_ast.ArrayRef) or child is node.name
                  else False)

    visit(root, None, None, False)
    return full - other


def _rows_passed(root: c_ast.Node, summaries) -> set[int]:
    """ids of the `X[e]` nodes that are arguments of calls with a span at their position."""
    out = set()
    for node in walk(root):
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.args:
            summary = summaries.get(node.name.name)
            spanned = {k for k, _, _ in summary.spans} if summary is not None else set()
            for k, arg in enumerate(node.args.exprs):
                if k in spanned and isinstance(arg, c_ast.ArrayRef) and isinstance(arg.name, c_ast.ID):
                    out.add(id(arg))
    return out


def _stores_arithmetic(w, symbols) -> bool:
    """The write stores an arithmetic value into a variable, an element or a field."""
    if w.key in (WORLD, MEMORY) or w.key.startswith("<") or w.field_path == "[*]":
        return False
    if not w.subscripts and not w.field_path:
        return True  # a variable: an object of its own
    if w.field_path:
        sym = symbols.table.field_symbol(struct_ref(w.name, w.field_path), symbols.lookup)
        if sym is None:
            return False
        if not w.subscripts:
            return sym.kind == Kind.SCALAR and arithmetic(sym.element) \
                and not symbols.table.in_union(struct_ref(w.name, w.field_path), symbols.lookup)
    else:
        sym = symbols.lookup(w.name)
        if sym is None:
            return False
    return sym.kind in (Kind.ARRAY, Kind.POINTER) and not sym.indirect and len(w.subscripts) == sym.ndim \
        and arithmetic(sym.element) and "char" not in sym.element.split()  # char may alias anything
