"""Invariants of a dataflow graph, checked in the tests after every transformation."""
from __future__ import annotations

import networkx as nx

from lifter.graph.nodes import AccessNode, MapScope, Memlet, Scope, State, Tasklet, scope_children, scope_descendants


class InvalidGraph(AssertionError):
    pass


def validate(g: nx.MultiDiGraph) -> None:
    """Raise InvalidGraph naming the first broken invariant."""
    states = [n for n, d in g.nodes(data=True) if isinstance(d.get("node"), State)]
    _check(len(states) == 1, f"expected one state, found {len(states)}")
    scope = nx.DiGraph()
    for u, v, d in g.edges(data=True):
        e = d.get("edge")
        _check(isinstance(e, (Scope, Memlet)), f"edge {u}->{v} has no Scope or Memlet")
        if isinstance(e, Scope):
            _check(isinstance(g.nodes[u]["node"], (State, MapScope)), f"scope edge from non-scope {u}")
            _check(isinstance(g.nodes[v]["node"], (MapScope, Tasklet)), f"scope edge into {v}")
            scope.add_edge(u, v)
        else:
            ends = (g.nodes[u]["node"], g.nodes[v]["node"])
            data = [x for x in ends if isinstance(x, AccessNode)]
            _check(len(data) == 1, f"memlet {u}->{v} must connect exactly one access node")
            _check(data[0].container == e.container, f"memlet {u}->{v} names {e.container}, node {data[0].container}")
            _check(len(e.subset) == data[0].ndim, f"memlet {u}->{v} subset has {len(e.subset)} dims, "
                                                  f"container {data[0].ndim}")
            other = ends[0] if ends[1] is data[0] else ends[1]
            _check(isinstance(other, (MapScope, Tasklet)), f"memlet {u}->{v} must touch a map or tasklet")
    _check(nx.is_arborescence(scope) if scope.number_of_nodes() else True, "scopes do not form a tree")
    if scope.number_of_nodes():
        _check(states[0] in scope and scope.in_degree(states[0]) == 0, "the state is not the scope root")
    for n, d in g.nodes(data=True):
        node = d.get("node")
        _check(node is not None, f"node {n} has no data")
        if isinstance(node, (MapScope, Tasklet)):
            _check(n in scope, f"{n} is outside every scope")
        if isinstance(node, MapScope):
            _check(node.schedule in ("parallel", "sequential"), f"map {n} has schedule {node.schedule}")
            _check(node.plan is None or node.schedule == "parallel", f"sequential map {n} has a parallel plan")
            _check(node.step > 0, f"map {n} has step {node.step}")
            if node.tile:
                _check_tile(g, n, node)
        if isinstance(node, (MapScope, Tasklet)):
            _check(scope.in_degree(n) == 1, f"{n} has {scope.in_degree(n)} parent scopes")


def _check_tile(g: nx.MultiDiGraph, n: str, node: MapScope) -> None:
    """A tile loop steps by its tile size, holds only maps, and encloses a point loop of its origin
    (a tiled band's next tile loop, or the point loops a strip's body was distributed into)."""
    _check(node.step == node.tile, f"tile map {n} steps by {node.step}, not its tile size {node.tile}")
    kids = scope_children(g, n)
    _check(bool(kids) and all(isinstance(g.nodes[k]["node"], MapScope) for k in kids),
           f"tile map {n} must hold maps only")
    point = [d for d in scope_descendants(g, n) if isinstance(g.nodes[d]["node"], MapScope)
             and not g.nodes[d]["node"].tile and g.nodes[d]["node"].origin == node.origin]
    _check(bool(point), f"tile map {n} has no point loop of its origin {node.origin} inside")


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidGraph(message)
