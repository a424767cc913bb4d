"""Loop variables whose value after their loop is still read.

A `for` whose variable is declared outside it leaves that variable at its exit
value (`i == n + 1` after `for (i = 1; i <= n; i++)`, the start value when the
loop runs no iteration). The polyhedral model does not see that value: a loop
header's writes are not statements, so no dependence orders them before a read
of the variable after the loop (`iv += i;` after the nest, in the same time
loop). Every pass that changes which iteration runs last, or whether a loop's
header runs at all (a private copy in a parallel loop, distribution,
interchange, fusion, tiling, wavefronts, unroll-and-jam), must therefore leave
alone a loop whose variable is read after it: after the region
(`live_after`), or by code of the region outside every loop over that name.
"""
from __future__ import annotations


from lifter.frontend.spans import word_tokens
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE
from lifter.graph.nodes import MapScope, Tasklet, scope_children, scope_descendants


def read_after(g: DataflowGraph, scope: str, var: str) -> bool:
    """Whether the value `var` has when the map `scope` ends may be read: after the region, or
    by code of the region outside `scope` that is not itself inside a loop over `var`."""
    if var in g.nest.live_after:
        return True
    skip = {scope} | set(scope_descendants(g, scope))
    todo = [(child, False) for child in scope_children(g, STATE)]
    while todo:
        node_id, bound = todo.pop()
        if node_id in skip:
            continue
        node = g.nodes[node_id]["node"]
        conditions = " ".join(c.text for c in node.conditions)
        if isinstance(node, Tasklet):
            if not bound and var in word_tokens(f"{node.code} {conditions}"):
                return True
            continue
        if isinstance(node, MapScope):
            if not bound and var in word_tokens(f"{node.begin} {node.end} {conditions}"):
                return True
            todo += [(child, bound or node.var == var) for child in scope_children(g, node_id)]
    return False


def escaping(g: DataflowGraph, maps: list[str] | None = None) -> set[str]:
    """The variables, declared outside their `for`, of the maps `maps` (default: every map of the
    region) whose exit value may be read (`read_after` their own map)."""
    if maps is None:
        maps = [n for n in scope_descendants(g, STATE) if isinstance(g.nodes[n]["node"], MapScope)]
    out = set()
    for map_id in maps:
        m = g.nodes[map_id]["node"]
        if not m.var_declared_in_header and m.var not in out and read_after(g, map_id, m.var):
            out.add(m.var)
    return out
