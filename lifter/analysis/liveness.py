"""Which scalars a region's code still needs after it has run.

Privatizing a scalar or a loop variable leaves its value after the loop
unspecified, which is only safe when nothing reads that value. This is a
textual, conservative approximation: after the region (and, when the region
sits in an enclosing loop, around that loop's body again), the first reference
to the name must be an assignment that does not read it.
"""
from __future__ import annotations

from pycparser import c_ast

from lifter.analysis.walk import walk

from lifter.analysis.symbols import FunctionSymbols


def _span(node) -> tuple[tuple[int, int], tuple[int, int]]:
    lo = hi = (node.coord.line, node.coord.column or 0)
    stack = [node]
    while stack:
        n = stack.pop()
        if n.coord is not None and n.coord.file == node.coord.file:
            pos = (n.coord.line, n.coord.column or 0)
            lo, hi = min(lo, pos), max(hi, pos)
        stack.extend(c for _, c in n.children())
    return lo, (hi[0], 10**9)


def _events(node, skip) -> list[tuple[tuple[int, int], str, str]]:
    """(position, name, 'kill' or 'use') for every name reference outside `skip`."""
    events = []

    def visit(n):
        if n is None or n is skip:
            return
        if isinstance(n, c_ast.Assignment) and n.op == "=" and isinstance(n.lvalue, c_ast.ID):
            name = n.lvalue.name
            visit(n.rvalue)
            if not any(isinstance(m, c_ast.ID) and m.name == name for m in walk(n.rvalue)):
                events.append(((n.lvalue.coord.line, n.lvalue.coord.column or 0), name, "kill"))
            else:
                events.append(((n.lvalue.coord.line, n.lvalue.coord.column or 0), name, "use"))
            return
        if isinstance(n, c_ast.Decl) and n.name and n.coord is not None:
            visit(n.init)
            events.append(((n.coord.line, n.coord.column or 0), n.name, "kill"))
            return
        if isinstance(n, c_ast.ID) and n.coord is not None:
            events.append(((n.coord.line, n.coord.column or 0), n.name, "use"))
        for _, c in n.children():
            visit(c)

    visit(node)
    return sorted(events)


def live_after_region(func: c_ast.FuncDef, region: c_ast.For, enclosing: list, symbols: FunctionSymbols) -> set[str]:
    """Scalar names whose value at the end of the region may be read later."""
    _, end = _span(region)
    events = _events(func.body, region)
    order = [e for e in events if e[0] > end]
    if enclosing:
        outer_start, outer_end = _span(enclosing[0])
        inside_after = [e for e in events if end < e[0] <= outer_end]
        inside_before = [e for e in events if outer_start <= e[0] < (region.coord.line, 0)]
        order = inside_after + inside_before + [e for e in events if e[0] > outer_end]
    live, decided = set(), set()
    for _, name, kind in order:
        if name in decided:
            continue
        decided.add(name)
        if kind == "use":
            live.add(name)
    for name, sym in list(symbols.table.globals.items()):
        if sym.kind == "scalar" and name not in symbols.locals:
            live.add(name)
    return live
