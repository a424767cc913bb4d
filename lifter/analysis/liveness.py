"""Which scalars a region's code still needs after it has run.

Privatizing a scalar or a loop variable leaves its value after the loop
unspecified, which is only safe when nothing reads that value. This is a
textual, conservative approximation: after the region (and, when the region
sits in an enclosing loop, around that loop's body again), the first reference
to the name must be an assignment that does not read it.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right

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


def _events(node) -> list[tuple[tuple[int, int], str, str]]:
    """(position, name, 'kill' or 'use') for every name reference under `node`."""
    events = []

    def visit(n):
        if n is None:
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


class Liveness:
    """The name references of one function, indexed once, so that asking about each of its
    regions costs a few binary searches per name instead of a walk over the whole function
    (which made functions with many loops quadratic)."""

    def __init__(self, func: c_ast.FuncDef, symbols: FunctionSymbols):
        self.symbols = symbols
        self.spans: dict[int, tuple[tuple[int, int], tuple[int, int]]] = {}
        self.by_name: dict[str, tuple[list[tuple[int, int]], list[str]]] = {}
        for pos, name, kind in _events(func.body):
            positions, kinds = self.by_name.setdefault(name, ([], []))
            positions.append(pos)
            kinds.append(kind)

    def _span(self, node):
        if id(node) not in self.spans:
            self.spans[id(node)] = _span(node)
        return self.spans[id(node)]

    def live_after(self, region: c_ast.For, enclosing: list) -> set[str]:
        """Scalar names whose value at the end of the region may be read later.

        The references that count come, in this order: after the region (up to the end of
        the enclosing loop, if any), from the start of the enclosing loop's body up to the
        region, and after the enclosing loop. References inside the region never count.
        """
        _, end = self._span(region)
        if enclosing:
            outer_start, outer_end = self._span(enclosing[0])
            start = (region.coord.line, 0)
            ranges = [(bisect_right, end, bisect_right, outer_end), (bisect_left, outer_start, bisect_left, start),
                      (bisect_right, outer_end, None, None)]
        else:
            ranges = [(bisect_right, end, None, None)]
        live = set()
        for name, (positions, kinds) in self.by_name.items():
            for lo_search, lo, hi_search, hi in ranges:
                first = lo_search(positions, lo)
                if first < (len(positions) if hi_search is None else hi_search(positions, hi)):
                    if kinds[first] == "use":
                        live.add(name)
                    break
        for name, sym in list(self.symbols.table.globals.items()):
            if sym.kind == "scalar" and name not in self.symbols.locals:
                live.add(name)
        return live
