"""Min-plus (and max-plus) updates whose row-c and column-c instances change nothing.

Floyd-Warshall's `if (W[i][k] + W[k][j] < W[i][j]) W[i][j] = W[i][k] + W[k][j];`
writes, at i == k, `W[k][j] = min(W[k][j], W[k][k] + W[k][j])`, and at j == k
`W[i][k] = min(W[i][k], W[i][k] + W[k][k])`. When `W[k][k] >= 0` neither can
change a value, so the loops over i and j are parallel for that k although the
polyhedral model (which cannot see values) finds dependences between row k and
column k and every other iteration. This module recognizes such updates of an
element `W[a][b]`, with the other operand `W[a][c] + W[c][b]` (either order);
`verdicts.py` removes the write instances with a == c or b == c from the
dependence problem, and the loop is parallel under the run-time condition
`W[c][c] >= 0` (`<= 0` for max), tested in C before it.

Why removing them is exact, under the condition, when the update is the only
statement inside the loop that writes W (checked by the caller) and c does not
change in the loop: the other instances write W[a][b] with a != c and b != c,
so row c and column c change only if a removed instance changes them. Take the
first one that would: until then W[c][c] still holds its value from before the
loop, d, and the instance compares x = d + v against v = W[c][b] (or W[a][c]).

- Signed integers: x >= v when d >= 0 (an overflow of d + v is undefined
  behaviour in the original program, which runs this very instance on these very
  values), so `x < v` is false, and `x <= v` holds only with x == v: it stores
  the value already there.
- `float` and `double`: rounding is monotonic, so x >= v for finite v; v = +-inf
  gives +-inf or NaN, v = NaN gives NaN; none compares less than v. Only a strict
  `x < v` is accepted: with d = +0.0 and v = -0.0, x is +0.0 and `x <= v` (or
  `fmin`, or `v < x ? v : x`) would store +0.0 over -0.0.
- Unsigned and character types are refused (wrap-around: d + v may be smaller
  than v).

So the removed instances store nothing, or (`W[i][j] = W[i][j] < x ? W[i][j] : x`,
the form of PolyBench's int kernel) store back the value the element holds, which
other threads may read at the same time; an aligned store of the bytes already
there is not observable on the targets lift supports. Max-plus is the mirror
image, with `d <= 0`.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast

from lifter.analysis.affine import c_text
from lifter.analysis.model import Access, Kind, Region, Statement
from lifter.frontend.walk import walk

_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}
_NEGATE = {"<": ">=", ">=": "<", ">": "<=", "<=": ">"}
_SIGNED_WORDS = {"signed", "int", "long", "short"}
_FLOATS = {"float", "double"}


@dataclass
class PathUpdate:
    """`W[a][b] = min or max(W[a][b], W[a][c] + W[c][b])` in one statement."""

    statement: str
    container: str
    op: str  # 'min' or 'max'
    writes: list[Access]
    elements: isl.Map  # statement instance -> [a, b, c]
    name: str  # W as written
    c: c_ast.Node  # the subscript c as written

    def guard(self) -> str:
        """The C condition under which the row-c and column-c instances change nothing."""
        c = c_text(self.c)
        return f"{self.name}[{c}][{c}] {'>=' if self.op == 'min' else '<='} 0"


def path_update(region: Region, stmt: Statement) -> PathUpdate | None:
    """The statement as a min-plus or max-plus update, if it is one of the accepted forms."""
    found = _form(region, stmt)
    if found is None:
        return None
    target, x, rel = found
    op = "min" if rel in ("<", "<=") else "max"
    name = target.name.name.name if isinstance(target, c_ast.ArrayRef) and isinstance(target.name, c_ast.ArrayRef) \
        and isinstance(target.name.name, c_ast.ID) else None
    key = _container_key(region, stmt, c_text(target))
    if name is None or key is None:
        return None
    container = region.containers[key]
    kind = _element_kind(container.element)
    if kind is None or kind == "float" and rel not in ("<", ">") or container.ndim != 2 \
            or container.strides or container.field or container.indirect or container.kind not in (Kind.ARRAY, Kind.POINTER):
        return None
    if not (isinstance(x, c_ast.BinaryOp) and x.op == "+"):
        return None
    for row, column in ((x.left, x.right), (x.right, x.left)):
        update = _elements(region, stmt, key, name, target, row, column)
        if update is not None:
            writes, elements = update
            return PathUpdate(stmt.id, key, op, writes, elements, name, row.subscript)
    return None


def _form(region: Region, stmt: Statement):
    """(target, x, rel): the statement stores x into target exactly when `x rel target`."""
    node = stmt.node
    if isinstance(node, c_ast.Assignment) and node.op == "=" and isinstance(node.rvalue, c_ast.TernaryOp):
        sel = node.rvalue
        t = c_text(node.lvalue)
        if c_text(sel.iftrue) == t:
            rel = _relation(sel.cond, t, sel.iffalse)
            return (node.lvalue, sel.iffalse, _NEGATE[rel]) if rel and _is_integer(region, stmt) else None
        if c_text(sel.iffalse) == t:
            rel = _relation(sel.cond, t, sel.iftrue)
            return (node.lvalue, sel.iftrue, rel) if rel else None
        return None
    if isinstance(node, c_ast.Assignment) and node.op == "=":
        owner = _enclosing_if(region, stmt)
        if owner is None:
            return None
        rel = _relation(owner.cond, c_text(node.lvalue), node.rvalue)
        return (node.lvalue, node.rvalue, rel) if rel else None
    return None


def _relation(cond, target: str, x: c_ast.Node) -> str | None:
    """`rel` such that `cond` is `x rel target`, if cond compares exactly those two."""
    if not isinstance(cond, c_ast.BinaryOp) or cond.op not in _FLIP:
        return None
    left, right, xt = c_text(cond.left), c_text(cond.right), c_text(x)
    if (left, right) == (xt, target):
        return cond.op
    if (left, right) == (target, xt):
        return _FLIP[cond.op]
    return None


def _is_integer(region: Region, stmt: Statement) -> bool:
    writes = [a for a in stmt.accesses if a.is_write]
    return bool(writes) and _element_kind(region.containers[writes[0].container].element) == "int"


def _element_kind(element: str) -> str | None:
    """'int' for signed integer types, 'float' for float and double, else None."""
    if element in _FLOATS:
        return "float"
    words = set(element.split())
    return "int" if words and words <= _SIGNED_WORDS else None


def _enclosing_if(region: Region, stmt: Statement) -> c_ast.If | None:
    """The `if` without `else` whose only statement is `stmt`, directly in the innermost loop's body."""
    loop = region.loops[stmt.loops[-1]].node
    body = loop.stmt.block_items if isinstance(loop.stmt, c_ast.Compound) else [loop.stmt]
    for item in body or []:
        if isinstance(item, c_ast.If) and item.iffalse is None:
            inner = item.iftrue
            if isinstance(inner, c_ast.Compound) and inner.block_items and len(inner.block_items) == 1:
                inner = inner.block_items[0]
            if inner is stmt.node:
                return item
    return None


def _container_key(region: Region, stmt: Statement, target: str) -> str | None:
    writes = [a for a in stmt.accesses if a.is_write]
    if len({a.container for a in writes}) != 1 or any(a.text != target for a in writes):
        return None
    return writes[0].container


def _elements(region: Region, stmt: Statement, key: str, name: str, target, row, column):
    """(writes, { S[x] -> [a, b, c] }) when the statement reads exactly W[a][b], W[a][c] and W[c][b].

    The subscripts are checked with isl on the access relations: every access is
    exact and single-valued, and the row's first and the column's second subscript
    equal the target's, the row's second the column's first.
    """
    texts = {c_text(target): [], c_text(row): [], c_text(column): []}
    if len(texts) != 3:
        return None
    for node in (row, column):
        if not (isinstance(node, c_ast.ArrayRef) and isinstance(node.name, c_ast.ArrayRef)
                and isinstance(node.name.name, c_ast.ID) and node.name.name.name == name):
            return None
    for a in stmt.accesses:
        if a.container != key or a.text not in texts:
            return None
        texts[a.text].append(a)
    t_acc, r_acc, c_acc = (texts[c_text(n)] for n in (target, row, column))
    if not r_acc or not c_acc or not any(not a.is_write for a in t_acc):
        return None
    rels = []
    for accs in (t_acc, r_acc, c_acc):
        rel = accs[0].relation.set_tuple_name(isl.dim_type.in_, stmt.id)
        if not rel.is_single_valued() or any(
                not a.relation.set_tuple_name(isl.dim_type.in_, stmt.id).is_equal(rel) for a in accs):
            return None
        rels.append(rel)
    joined = rels[0].flat_range_product(rels[1]).flat_range_product(rels[2])
    params = ", ".join(joined.get_space().get_var_names(isl.dim_type.param))
    same = isl.Set(f"[{params}] -> {{ [a, b, a1, c1, c2, b1] : a1 = a and c2 = c1 and b1 = b }}")
    if not joined.range().is_subset(same) or not joined.domain().is_equal(stmt.domain):
        return None
    elements = joined.project_out(isl.dim_type.out, 4, 2).project_out(isl.dim_type.out, 2, 1)
    writes = [a for a in t_acc if a.is_write]
    return writes, elements


def declared_names(node: c_ast.Node) -> set[str]:
    """Names declared anywhere under `node` (a guard tested before it cannot mean those)."""
    return {n.name for n in walk(node) if isinstance(n, c_ast.Decl) and n.name}
