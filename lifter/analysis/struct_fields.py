"""Which struct fields a loop nest may treat as arrays of their own.

`field_by_field`: arrays of structs touched only as `a[i].field` (their fields cannot overlap);
`flat_fields`: fields used only as flat buffers `p->x[e]` (delinearized like a parameter array).
Both read the nest's syntax tree once, before the polyhedral model is built (scop.py).
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.model import Kind
from lifter.frontend.walk import walk


def field_by_field(root: c_ast.Node, symbols) -> frozenset[str]:
    """Arrays of structs that the nest touches only as `a[i].field`: their fields cannot overlap."""
    field_uses, other_uses = set(), set()

    def visit(node, parent_is_field):
        if isinstance(node, c_ast.StructRef) and node.type == ".":
            inner = node.name
            if isinstance(inner, c_ast.ArrayRef) and isinstance(inner.name, c_ast.ID):
                field_uses.add(inner.name.name)
                visit(inner.subscript, False)
                return
            visit(inner, True)
            return
        if isinstance(node, c_ast.ID):
            other_uses.add(node.name)
            return
        if isinstance(node, c_ast.UnaryOp) and node.op == "&":
            for n in walk(node.expr):
                if isinstance(n, c_ast.ID):
                    other_uses.add(n.name)
            return
        for _, child in node.children():
            visit(child, False)

    visit(root, False)
    names = set()
    for name in field_uses - other_uses:
        sym = symbols.lookup(name)
        if sym is not None and sym.kind in (Kind.POINTER, Kind.ARRAY) and sym.ndim == 1 and not sym.indirect:
            names.add(name)
    return frozenset(names)


def flat_fields(root: c_ast.Node, written: set[str], read_as: dict) -> dict[str, list[c_ast.Node]]:
    """Struct fields used only as flat buffers, `p->x[e]`: {'p->x': [e, ...]}.

    A field path (from a variable the nest never assigns) qualifies when every
    use of it in the nest indexes it exactly once; any other use (`p->rows[i][j]`,
    `*p->x`, `p->x + 1`, passing it to a call, assigning it) rules it out. `read_as` gives
    the index of an access as the analysis reads it (index scalars substituted), by node id.
    """
    indices: dict[str, list] = {}
    other: set[str] = set()

    def visit(node, parent, grand):
        if isinstance(node, c_ast.StructRef) and not (isinstance(parent, c_ast.StructRef) and parent.name is node):
            key = _field_key(node, written)
            if key is not None:
                if isinstance(parent, c_ast.ArrayRef) and parent.name is node \
                        and not (isinstance(grand, c_ast.ArrayRef) and grand.name is parent):
                    indices.setdefault(key, []).append(read_as.get(id(parent), parent.subscript))
                else:
                    other.add(key)
        for _, child in node.children():
            visit(child, node, parent)

    visit(root, None, None)
    return {key: found for key, found in indices.items() if key not in other}


def _field_key(node: c_ast.StructRef, written: set[str]) -> str | None:
    """'p->x' or 's.a.b' for a field path from a variable, as effects.py keys it."""
    fields = ""
    while isinstance(node, c_ast.StructRef):
        fields = f"{node.type}{node.field.name}{fields}"
        node = node.name
    if isinstance(node, c_ast.ID) and node.name not in written:
        return node.name + fields
    return None
