"""What a loop over one row of a sparse structure touches, in terms of its row offsets.

`for (k = rowptr[i]; k < rowptr[i + 1]; k++) s += val[k] * x[col[k]];` is an opaque leaf of
the loop over `i` (its bounds read memory): its accesses `val[k]`, `col[k]`, `x[col[k]]` are
"any element" in the model, so no test of addresses before the `i` loop can be formed from
them, and a row loop writing `y[i]` stays sequential wherever `y` may overlap `val` or `x`.

Over rows lo..hi, though, `k` stays within `rowptr[lo] .. rowptr[hi + 1] - 1` whenever
`rowptr` does not decrease from `rowptr[lo]` to `rowptr[hi + 1]` (each row's range lies inside
that one), so `val[k + d]` touches that range shifted by `d`, and `x[col[k] + d]` the elements
from the least to the greatest `col[k]` in it, shifted by `d`. Both are values in memory,
tested before the loop (transform/row_spans.py). This module recognizes the form, for leaves
directly inside a loop, and records for each what the test needs (`RowRange`): the accesses
of the two offsets (their ranges over the rows give `lo` and `hi + 1`), and per container the
form of its accesses. The offsets and index arrays must be integers nothing in the row loop
writes; the row loop must have no jump, call, pointer operation or write of `k` in its body,
and a container gets a range only when every access of it in the loop has one of the two forms.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from lifter.analysis.affine import c_text, int_constant
from lifter.analysis.effects import MEMORY, WORLD
from lifter.analysis.model import Kind, Region, Statement
from lifter.analysis.scop import header_var, written_names
from lifter.analysis.type_apart import integer_pointee
from lifter.frontend.walk import walk

# Index arrays whose values may not fit a `long` (the test computes addresses with it).
WIDE = ("unsigned long", "unsigned long long")


@dataclass
class RowRange:
    """A row loop `for (k = rows[v + c]; k < rows[v + c + 1]; k++)` directly inside the loop over `v`."""

    lower: str  # id of the access `rows[v + c]`
    upper: str  # id of the access `rows[v + c + 1]`
    rows: str  # container key of the offsets
    rows_type: str  # their C type
    plain: dict = field(default_factory=dict)  # container key -> (least d, greatest d) of its `P[k + d]`
    # container key -> (index container key, its C type, least d, greatest d) of its `Q[C[k] + d]`
    gathers: dict = field(default_factory=dict)


def row_ranges(region: Region, symbols) -> dict[str, RowRange]:
    """The `RowRange` of each opaque leaf of `region` that is such a row loop, by statement id."""
    out = {}
    for sid, stmt in region.statements.items():
        if isinstance(stmt.node, c_ast.For) and stmt.loops and not stmt.conditions \
                and (stmt.opaque_reason or "").startswith("loop header"):
            found = _row_range(region, stmt, symbols)
            if found is not None:
                out[sid] = found
    return out


def _row_range(region: Region, stmt: Statement, symbols) -> RowRange | None:
    node, var = stmt.node, region.loops[stmt.loops[-1]].var
    k = header_var(node)
    bounds = _bounds(node, k)
    if k is None or bounds is None:
        return None
    lower, upper = bounds
    if _offset(lower.subscript, var) is None or _offset(upper.subscript, var) != _offset(lower.subscript, var) + 1:
        return None
    body = node.stmt
    if k in written_names(body) or any(isinstance(n, (c_ast.Break, c_ast.Continue, c_ast.Goto, c_ast.Return,
                                                      c_ast.Label, c_ast.FuncCall)) or
                                       isinstance(n, c_ast.UnaryOp) and n.op in ("*", "&") for n in walk(body)):
        return None
    by_text = {}
    for acc in stmt.accesses:
        by_text.setdefault(acc.text, acc)
    low, high = by_text.get(c_text(lower)), by_text.get(c_text(upper))
    if low is None or high is None or low.container != high.container:
        return None
    rows_type = integer_pointee(symbols, region.containers[low.container].name)
    if rows_type is None:
        return None
    found = RowRange(low.id, high.id, low.container, rows_type)
    refs = [n for n in walk(body) if isinstance(n, c_ast.ArrayRef)]
    texts = {c_text(n) for n in refs}
    forms: dict[str, set] = {}
    for n in refs:
        acc = by_text.get(c_text(n))
        if acc is not None:  # (`A[k]` of `A[k][j]` is no access of its own; `A[k][j]` is None here)
            one = not isinstance(n.name, c_ast.ArrayRef)
            forms.setdefault(acc.container, set()).add(_form(n.subscript, k, by_text, symbols, region) if one else None)
    for acc in stmt.accesses:
        if acc.is_write and acc.container in (WORLD, MEMORY, low.container):
            return None
        container = region.containers.get(acc.container)
        if acc.id not in (low.id, high.id) and container is not None and container.kind != Kind.SCALAR:
            forms.setdefault(acc.container, set())
            if acc.text not in texts:  # (a field of an element, `p[k].x`)
                forms[acc.container].add(None)
    for key, kinds in forms.items():
        if None in kinds or not kinds:
            continue
        if all(kind[0] == "plain" for kind in kinds):
            offsets = [kind[1] for kind in kinds]
            found.plain[key] = (min(offsets), max(offsets))
        elif len({kind[:3] for kind in kinds}) == 1 and next(iter(kinds))[0] == "gather":
            _, index, index_type, _ = next(iter(kinds))
            offsets = [kind[3] for kind in kinds]
            found.gathers[key] = (index, index_type, min(offsets), max(offsets))
    written = {acc.container for acc in stmt.accesses if acc.is_write}
    if any(index in written for index, _, _, _ in found.gathers.values()):
        return None
    # The test reads the index array at every `k` of the rows: only where the loop does too.
    always = unconditional_texts(body)
    for key, (index, _, _, _) in list(found.gathers.items()):
        if not any(acc.container == index and acc.text in always for acc in stmt.accesses):
            del found.gathers[key]
    return found if found.plain or found.gathers else None


def unconditional_texts(node: c_ast.Node) -> set[str]:
    """C texts of the array elements `node` reads, and of the calls it makes, in every run of it:
    none under an `if`, a `?:`, the right of `&&` or `||`, or a loop of its own."""
    if isinstance(node, (c_ast.ArrayRef, c_ast.FuncCall)):  # (calls: affine_gathers.py)
        return {c_text(node)}.union(*(unconditional_texts(child) for _, child in node.children()))
    if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
        return set()
    if isinstance(node, (c_ast.If, c_ast.TernaryOp)):
        return unconditional_texts(node.cond)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
        return unconditional_texts(node.left)
    return set().union(*(unconditional_texts(child) for _, child in node.children()))


def _bounds(node: c_ast.For, k: str | None) -> tuple[c_ast.ArrayRef, c_ast.ArrayRef] | None:
    """`rows[e]` and `rows[e']` of `for (k = rows[e]; k < rows[e']; k++)` (`++k`, `k += 1`), else None."""
    init, cond, step = node.init, node.cond, node.next
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
        lower = init.decls[0].init
    elif isinstance(init, c_ast.Assignment) and init.op == "=":
        lower = init.rvalue
    else:
        return None
    unit = isinstance(step, c_ast.UnaryOp) and step.op in ("p++", "++") \
        or isinstance(step, c_ast.Assignment) and step.op == "+=" and int_constant(step.rvalue) == 1
    target = (step.expr if isinstance(step, c_ast.UnaryOp) else step.lvalue) if unit else None
    if not isinstance(target, c_ast.ID) or target.name != k:
        return None
    if not isinstance(cond, c_ast.BinaryOp) or cond.op != "<" or not isinstance(cond.left, c_ast.ID) \
            or cond.left.name != k:
        return None
    upper = cond.right
    if not isinstance(lower, c_ast.ArrayRef) or not isinstance(upper, c_ast.ArrayRef) \
            or c_text(lower.name) != c_text(upper.name):
        return None
    return lower, upper


def _offset(expr: c_ast.Node, name: str) -> int | None:
    """d for `name`, `name + d`, `d + name`, `name - d` (d an integer literal), else None."""
    if isinstance(expr, c_ast.ID):
        return 0 if expr.name == name else None
    if isinstance(expr, c_ast.BinaryOp) and expr.op in "+-":
        if isinstance(expr.left, c_ast.ID) and expr.left.name == name and int_constant(expr.right) is not None:
            return int_constant(expr.right) * (1 if expr.op == "+" else -1)
        if expr.op == "+" and isinstance(expr.right, c_ast.ID) and expr.right.name == name \
                and int_constant(expr.left) is not None:
            return int_constant(expr.left)
    return None


def _form(sub: c_ast.Node, k: str, by_text: dict, symbols, region: Region) -> tuple | None:
    """('plain', d) for `k + d`; ('gather', index key, its type, d) for `C[k] + d`; else None."""
    d = _offset(sub, k)
    if d is not None:
        return "plain", d
    d, index = 0, sub
    if isinstance(sub, c_ast.BinaryOp) and sub.op in "+-" and int_constant(sub.right) is not None:
        d, index = int_constant(sub.right) * (1 if sub.op == "+" else -1), sub.left
    if not isinstance(index, c_ast.ArrayRef) or _offset(index.subscript, k) != 0:
        return None
    acc = by_text.get(c_text(index))
    if acc is None:
        return None
    index_type = integer_pointee(symbols, region.containers[acc.container].name)
    if index_type is None or index_type in WIDE:
        return None
    return "gather", acc.container, index_type, d
