"""Pointers a function uses only to reach fields: `d` of `d->numElem`, `d->x[i]`.

The caller keys `d->f` and `d->f[e]` as containers of their own, apart from the block `d` points
to (`d[i]`, `*d`: effects.py). A call whose summary reaches parameter k only through fields
(call_summaries.py `CallEffects.through_fields`) then needs no access of the whole block of its
argument `d`, as long as nothing else in the function reaches that block under the other key:
every use of `d` is the root of an arrow path `d->...`, or an argument, in such a position, of
a call of the same kind. Otherwise (`d[i].n`, `*d = s`, `d` handed to another helper, `q = d`)
the call keeps its access of the whole block, which the caller's own accesses meet.
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.walk import variable_ids
from lifter.frontend.walk import walk


def field_pointers(symbols) -> frozenset[str]:
    """The names the function of `symbols` (FunctionSymbols) uses only to reach fields (cached)."""
    cached = getattr(symbols, "_field_pointers", None)
    if cached is not None:
        return cached
    body = getattr(symbols, "body", None)
    found = frozenset()
    if body is not None:
        allowed: set[int] = set()
        for n in walk(body):
            if isinstance(n, c_ast.StructRef) and n.type == "->" and isinstance(n.name, c_ast.ID):
                allowed.add(id(n.name))
            elif isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.args is not None:
                summary = symbols.table.call_effects.get(n.name.name)
                through = summary.through_fields if summary is not None else frozenset()
                allowed.update(id(a) for k, a in enumerate(n.args.exprs) if isinstance(a, c_ast.ID) and k in through)
        uses: dict[str, bool] = {}
        for n in variable_ids(body):
            uses[n.name] = uses.get(n.name, True) and id(n) in allowed
        found = frozenset(name for name, only in uses.items() if only and name not in symbols.ambiguous)
    symbols._field_pointers = found
    return found

