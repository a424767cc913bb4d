"""Pointer locals that name one element's address: `const int *nodes = &d->nodelist[4 * i];`.

Element loops of mesh codes point a local at the element's slice of a connectivity array and read
through it (`nodes[k]`), or hand it to a helper. Read as written, the `&` may write the element
(effects.py's rule for an address that escapes) and every `nodes[k]` is an access of a pointer
set inside the loop, which no test before the loop can bound. Where the pointer is only ever a
name for `&B[e]`, the analysis reads it as that: `nodes[k]` is `B[e + k]`, `*nodes` is `B[e]`,
`nodes` as a call's argument is `&B[e]`, and the declaration itself reads `e` and writes only the
pointer (a private scalar of the loop), as index scalars are read as their values
(index_scalars.py).

A row of an array of row pointers, `double *r = rows[i];`, is read the same way: `r[j]` is
`rows[i][j]`, which rows.py may read as an element of a 2-D container (under its run-time test
that the rows are disjoint), and `r` as a call's argument is the row `rows[i]`.

A declaration `T *p = &B[e];` (or `B + e`, or `B`, or `R[e]`) is such an alias when:
- p is declared once in the function, is no parameter or global's name, and is never assigned,
  incremented or has its address taken; every use of it is the base of a subscript, the operand
  of `*` or `->` (a struct element's field, `q->x`, is `B[e].x`), or an argument of a call
  (`p + 1`, `p == q` are not);
- B is a one-dimensional array or pointer (a variable, or a pointer or array field `s->f`,
  `s.a.f`, not reached through another loaded pointer or a union) and e has no side effect,
  call or memory read (`walk.plain_value`), and reads a variable the function assigns (a
  loop's variable): a pointer to a fixed place (`double *out = p + shift;`) stays a container of
  its own, which a run-time test before the loop can compare with the others;
- nothing in p's block (the declaration's own compound statement) after it writes a variable
  B or e reads, takes its address, or may repoint B: for a field, no write of a field of that
  name and no call but to pure, program-ending or summarized functions that write no field of
  that name (call_summaries.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast

from lifter.analysis.affine import int_constant
from lifter.analysis.model import Kind
from lifter.analysis.pure_functions import NORETURN_FUNCTIONS, PURE_FUNCTIONS
from lifter.analysis.walk import plain_value, replace_nodes, variable_ids, written_names
from lifter.frontend.walk import walk


@dataclass(frozen=True)
class Alias:
    """p is `&base[offset]` wherever it is used; or, for a row (`row`), `base[offset]`, a row
    pointer of an array of rows (`double *r = rows[i];`), so that `r[j]` is `rows[i][j]`."""

    base: c_ast.Node  # an ID or a StructRef chain
    offset: c_ast.Node
    row: bool = False

    def element(self, index: c_ast.Node | None) -> c_ast.ArrayRef:
        """`base[offset + index]` (`base[offset]` for `*p`, index None); `base[offset][index]`
        for a row."""
        if self.row:
            zero = c_ast.Constant("int", "0")
            return c_ast.ArrayRef(c_ast.ArrayRef(self.base, self.offset), zero if index is None else index)
        if index is None:
            subscript = self.offset
        elif int_constant(self.offset) == 0:
            subscript = index
        else:
            subscript = c_ast.BinaryOp("+", self.offset, index)
        return c_ast.ArrayRef(self.base, subscript)

    def address(self, coord) -> c_ast.Node:
        """p itself (a call's argument): `&base[offset]`, or the row `base[offset]`."""
        if self.row:
            return _at(c_ast.ArrayRef(self.base, self.offset), coord)
        return c_ast.UnaryOp("&", _at(self.element(None), coord), coord)


def pointer_aliases(symbols) -> dict[str, Alias]:
    """The aliases of the function `symbols` (FunctionSymbols) describes, by pointer name (cached)."""
    cached = getattr(symbols, "_pointer_aliases", None)
    if cached is not None:
        return cached
    found = {}
    body = getattr(symbols, "body", None)
    if body is not None:
        found = _find(symbols, body)
    symbols._pointer_aliases = found
    return found


def _find(symbols, body: c_ast.Node) -> dict[str, Alias]:
    counts: dict[str, int] = {}
    for n in walk(body):
        if isinstance(n, c_ast.Decl) and n.name:
            counts[n.name] = counts.get(n.name, 0) + 1
    uses = _uses(body)
    assigned = written_names(body) - set(counts)  # (names assigned, not only declared)
    for n in walk(body):
        if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID) or \
                isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") and isinstance(n.expr, c_ast.ID):
            assigned.add(n.lvalue.name if isinstance(n, c_ast.Assignment) else n.expr.name)
    found = {}
    for block in walk(body):
        if not isinstance(block, c_ast.Compound):
            continue
        items = block.block_items or []
        for k, item in enumerate(items):
            if not isinstance(item, c_ast.Decl) or item.init is None or counts.get(item.name) != 1 \
                    or item.name in symbols.table.globals or item.name in symbols.ambiguous \
                    or not uses.get(item.name, True):
                continue
            sym = symbols.lookup(item.name)
            if sym is None or sym.kind != Kind.POINTER or sym.indirect or sym.ndim != 1 or sym.storage != "local":
                continue
            alias = _address(item.init, symbols)
            if alias is None or not plain_value(alias.offset) \
                    or not {n.name for n in variable_ids(alias.offset)} & assigned:
                continue
            if _stable(alias, c_ast.Compound(items[k + 1:]), symbols):
                found[item.name] = alias
    return found


def _uses(body: c_ast.Node) -> dict[str, bool]:
    """{name: every use of it is a subscript's base, `*`'s operand, `->`'s or a call's argument}
    (so it is never assigned, incremented, or has its address taken)."""
    allowed: set[int] = set()
    for n in walk(body):
        if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID):
            allowed.add(id(n.name))
        elif isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(n.expr, c_ast.ID):
            allowed.add(id(n.expr))
        elif isinstance(n, c_ast.StructRef) and n.type == "->" and isinstance(n.name, c_ast.ID):
            allowed.add(id(n.name))
        elif isinstance(n, c_ast.FuncCall) and n.args is not None:
            allowed.update(id(a) for a in n.args.exprs if isinstance(a, c_ast.ID))
    out: dict[str, bool] = {}
    for n in variable_ids(body):
        out[n.name] = out.get(n.name, True) and id(n) in allowed
    return out



def _address(init: c_ast.Node, symbols) -> Alias | None:
    """`&B[e]`, `B + e`, `B` as an Alias, where B is a one-dimensional array or pointer; `R[e]`
    where R is an array of row pointers (`double **rows`: rows.py reads `R[e][j]`)."""
    while isinstance(init, c_ast.Cast):
        init = init.expr
    if isinstance(init, c_ast.ArrayRef) and isinstance(init.name, c_ast.ID):
        sym = symbols.lookup(init.name.name)
        if sym is None or not sym.indirect or sym.ndim != 2 or init.name.name in symbols.ambiguous:
            return None
        return Alias(init.name, init.subscript, row=True)
    if isinstance(init, c_ast.UnaryOp) and init.op == "&" and isinstance(init.expr, c_ast.ArrayRef):
        base, offset = init.expr.name, init.expr.subscript
    elif isinstance(init, c_ast.BinaryOp) and init.op == "+":
        base, offset = init.left, init.right
    else:
        base, offset = init, c_ast.Constant("int", "0")
    if isinstance(base, c_ast.ID):
        sym = symbols.lookup(base.name)
        if base.name in symbols.ambiguous:
            return None
    elif isinstance(base, c_ast.StructRef) and _field_chain(base):
        if symbols.table.in_union(base, symbols.lookup):
            return None
        sym = symbols.table.field_symbol(base, symbols.lookup)
    else:
        return None
    if sym is None or sym.kind not in (Kind.ARRAY, Kind.POINTER) or sym.indirect or sym.ndim != 1:
        return None
    return Alias(base, offset)


def _field_chain(node: c_ast.StructRef) -> bool:
    """`s.a.f` or `p->a.f`: fields of a variable, no pointer loaded on the way but the root's."""
    arrows = 0
    while isinstance(node, c_ast.StructRef):
        arrows += node.type == "->"
        node = node.name
    return isinstance(node, c_ast.ID) and arrows <= 1


def _stable(alias: Alias, rest: c_ast.Compound, symbols) -> bool:
    """Nothing in `rest` changes B or e (see the module's docstring)."""
    names = {n.name for n in variable_ids(alias.base)} | {n.name for n in variable_ids(alias.offset)}
    if names & (written_names(rest) | symbols.addressed):
        return False
    if not isinstance(alias.base, c_ast.StructRef):
        globals_ = any(symbols.lookup(name) is None or symbols.lookup(name).storage == "global" for name in names)
        return not (globals_ and _calls(rest, symbols))
    field = alias.base.field.name
    for n in walk(rest):
        target = n.lvalue if isinstance(n, c_ast.Assignment) else \
            n.expr if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&") else None
        if isinstance(target, c_ast.StructRef) and target.field.name == field:
            return False
    return not _calls(rest, symbols, field)


def _calls(rest: c_ast.Node, symbols, field: str | None = None) -> bool:
    """Whether `rest` calls a function that may write a global or (`field`) a field of that name:
    one neither pure, nor program-ending, nor summarized without such a write."""
    for n in walk(rest):
        if not isinstance(n, c_ast.FuncCall):
            continue
        name = n.name.name if isinstance(n.name, c_ast.ID) else None
        if name in PURE_FUNCTIONS or name in symbols.table.pure_functions \
                or name in NORETURN_FUNCTIONS and name not in symbols.table.defined:
            continue
        summary = symbols.table.call_effects.get(name)
        if summary is None or summary.global_writes or field is None:
            return True
        if any(access.written and not access.elements and re.search(rf"(->|\.){field}\b", access.path)
               for access in summary.fields):
            return True
    return False


def through_aliases(node: c_ast.Node, aliases: dict[str, Alias]) -> c_ast.Node:
    """`node` with every use of an alias read as its address: `p[e]` as `B[o + e]`, `*p` as `B[o]`,
    `p->f` as `B[o].f` (`Particle *q = &parts[i]; q->x += ...`), `p` (a call's argument) as
    `&B[o]`; `node` itself where it uses none."""
    if not aliases or not any(isinstance(n, c_ast.ID) and n.name in aliases for n in variable_ids(node)):
        return node

    def replace(n):
        if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID) and n.name.name in aliases:
            subscript = replace_nodes(n.subscript, replace)
            return _at(aliases[n.name.name].element(subscript), n.coord)
        if isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(n.expr, c_ast.ID) and n.expr.name in aliases:
            return _at(aliases[n.expr.name].element(None), n.coord)
        if isinstance(n, c_ast.StructRef) and n.type == "->" and isinstance(n.name, c_ast.ID) \
                and n.name.name in aliases and not aliases[n.name.name].row:
            element = _at(aliases[n.name.name].element(None), n.coord)
            return _at(c_ast.StructRef(element, ".", n.field), n.coord)
        if isinstance(n, c_ast.ID) and n.name in aliases:
            return aliases[n.name].address(n.coord)
        return None

    return replace_nodes(node, replace)


def _at(node: c_ast.Node, coord) -> c_ast.Node:
    node.coord = coord
    return node
