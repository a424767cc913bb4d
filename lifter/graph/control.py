"""The control layer of a region's graph: states and loop regions linked by transitions.

It is a function of the scope tree and the maps' schedules, so it is rebuilt whole, never edited:
`build_graph` builds it, and `transform` rebuilds it after each pass that reshapes the scope tree
or changes schedules (locality, expansion, fusion, tiling). Passes and backends keep working on
the scope tree; the control layer is what the exports and the validator read as control flow.

The rule: the Root's scope children, in order, are its blocks. A child that is a sequential map
with a parallel map somewhere inside is a LoopRegion, whose blocks are that map's children by the
same rule; every other child (a map with everything inside it, or a tasklet) is one State. A
sequential loop nested inside a state's map stays a map of that state's dataflow.
"""
from __future__ import annotations

import networkx as nx

from lifter.graph.nodes import (STATE, Contains, LoopRegion, MapScope, State, Transition, scope_children,
                                scope_descendants)


def is_loop_region(g: nx.MultiDiGraph, node_id: str) -> bool:
    """A sequential map with a parallel map inside: the time loop around parallel sweeps."""
    node = g.nodes[node_id]["node"]
    return isinstance(node, MapScope) and node.schedule == "sequential" and any(
        isinstance(n := g.nodes[d]["node"], MapScope) and n.schedule == "parallel"
        for d in scope_descendants(g, node_id))


def build_control(g: nx.MultiDiGraph) -> None:
    """Replace the graph's control layer with the one its scope tree implies."""
    g.remove_nodes_from([n for n, d in g.nodes(data=True) if isinstance(d["node"], (State, LoopRegion))])
    g.remove_edges_from([(u, v, k) for u, v, k, d in g.out_edges(STATE, keys=True, data=True)
                         if isinstance(d["edge"], Contains)])
    _add_blocks(g, STATE, STATE)


def _add_blocks(g: nx.MultiDiGraph, region: str, scope: str) -> None:
    previous = None
    for order, child in enumerate(scope_children(g, scope)):
        if is_loop_region(g, child):
            m = g.nodes[child]["node"]
            block = f"loop:{child}"
            g.add_node(block, node=LoopRegion(block, child, m.var, m.begin, m.end, m.step, m.decreasing))
            _add_blocks(g, block, child)
        else:
            block = f"state:{child}"
            g.add_node(block, node=State(block))
            g.add_edge(block, child, edge=Contains(0))
        g.add_edge(region, block, edge=Contains(order))
        if previous is not None:
            g.add_edge(previous, block, edge=Transition())
        previous = block


def contained(g: nx.MultiDiGraph, node_id: str) -> list[str]:
    """What a control node contains, in order: a region's blocks, or the map or tasklet a state runs."""
    kids = [(d["edge"].order, v) for _, v, d in g.out_edges(node_id, data=True) if isinstance(d["edge"], Contains)]
    return [v for _, v in sorted(kids)]


def transitions(g: nx.MultiDiGraph, blocks: list[str]) -> list[tuple[str, str, Transition]]:
    """The transitions between the given blocks (those of one region), in the blocks' order."""
    inside = set(blocks)
    return [(u, v, d["edge"]) for u in blocks for _, v, d in g.out_edges(u, data=True)
            if isinstance(d["edge"], Transition) and v in inside]
