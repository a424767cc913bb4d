"""Local pointers that are copies of what the caller handed in (`double *f = s->f;`, cellmd's force
loop): declared once, from a parameter or a field reached through one, and never assigned, nor
their address taken, afterwards. `--assume-no-alias` promises that the caller's pointers never
overlap; such a copy is one of them, under another name (`Region.from_params`)."""
from __future__ import annotations

import re

from pycparser import c_ast

from lifter.analysis.affine import c_text
from lifter.analysis.model import Kind
from lifter.analysis.walk import walk


def parameter_copies(symbols) -> set[str]:
    """The local pointers of the function of `symbols` that are copies of parameters' pointers."""
    declared: dict[str, list[c_ast.Decl]] = {}
    assigned = set(symbols.addressed)
    for n in walk(symbols.body):
        if isinstance(n, c_ast.Decl) and n.name:
            declared.setdefault(n.name, []).append(n)
        elif isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID):
            assigned.add(n.lvalue.name)
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") and isinstance(n.expr, c_ast.ID):
            assigned.add(n.expr.name)
    out = set()
    for name, decls in declared.items():
        sym = symbols.lookup(name)
        if len(decls) != 1 or name in assigned or sym is None or sym.kind != Kind.POINTER or sym.storage != "local" \
                or name in symbols.ambiguous or not isinstance(decls[0].init, (c_ast.ID, c_ast.StructRef)):
            continue
        root = symbols.lookup(re.split(r"\W", c_text(decls[0].init), maxsplit=1)[0])
        if root is not None and root.storage == "param":
            out.add(name)
    return out
