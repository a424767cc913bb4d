"""Invariants of a dataflow graph, checked in the tests after every transformation."""
from __future__ import annotations

import networkx as nx

from lifter.graph.control import (CONTROL, branches, condition_runs, conditions, contained, is_loop_region,
                                  transitions)
from lifter.graph.attributes import DataflowGraph
from lifter.graph.nodes import (STATE, AccessNode, ConditionalRegion, Contains, LoopRegion, MapScope, Memlet, Root,
                                Schedule, Scope, State, Tasklet, Transition, scope_children, scope_descendants)


class InvalidGraph(AssertionError):
    pass


def validate(g: DataflowGraph) -> None:
    """Raise InvalidGraph naming the first broken invariant."""
    roots = [n for n, d in g.nodes(data=True) if isinstance(d.get("node"), Root)]
    _check(roots == [STATE], f"expected one root '{STATE}', found {roots}")
    scope = nx.DiGraph()
    for u, v, d in g.edges(data=True):
        e = d.get("edge")
        _check(isinstance(e, (Scope, Memlet, Contains, Transition)), f"edge {u}->{v} has no edge type")
        if isinstance(e, (Contains, Transition)):
            continue  # the control layer: _check_control
        if isinstance(e, Scope):
            _check(isinstance(g.nodes[u]["node"], (Root, MapScope)), f"scope edge from non-scope {u}")
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
        _check(STATE in scope and scope.in_degree(STATE) == 0, "the root is not the scope root")
    for n, d in g.nodes(data=True):
        node = d.get("node")
        _check(node is not None, f"node {n} has no data")
        if isinstance(node, (MapScope, Tasklet)):
            _check(n in scope, f"{n} is outside every scope")
        if isinstance(node, MapScope):
            _check(node.schedule in tuple(Schedule), f"map {n} has schedule {node.schedule}")
            _check(node.plan is None or node.schedule == Schedule.PARALLEL, f"sequential map {n} has a parallel plan")
            _check(node.step > 0, f"map {n} has step {node.step}")
            if node.tile:
                _check_tile(g, n, node)
        if isinstance(node, (MapScope, Tasklet)):
            _check(scope.in_degree(n) == 1, f"{n} has {scope.in_degree(n)} parent scopes")
    _check_control(g)


def _check_control(g: DataflowGraph) -> None:
    """The control layer is the one the scope tree implies (graph/control.py): each region's blocks
    stand, in order, for its scope's children, chained by one transition each; a loop region stands
    for a sequential map with a parallel map inside, a state for one other child, a conditional
    region for a run of children under one `if`, one branch per branch of it taken, and its
    branches' blocks for those children by the same rule; every control node is a block of one
    region. (Scope edges and memlets never touch control nodes: validate.)"""
    region_of = {STATE: None}  # control node -> the region it is a block of
    _check_region(g, STATE, scope_children(g, STATE), region_of)
    control = {n for n, d in g.nodes(data=True) if isinstance(d["node"], CONTROL)}
    stray = sorted(control - region_of.keys())
    _check(not stray, f"control nodes outside the root's regions: {stray}")
    for u, v, d in g.edges(data=True):
        if isinstance(d["edge"], Transition):
            _check(u in control and v in control and region_of[u] == region_of[v],
                   f"transition {u}->{v} does not join two blocks of one region")
        elif isinstance(d["edge"], Contains):
            _check(u in region_of, f"contains edge {u}->{v} from outside the control layer")


def _check_region(g: DataflowGraph, region: str, children: list[str], region_of: dict) -> None:
    """The Root's or a loop region's blocks stand, in order, for its scope's children."""
    blocks = contained(g, region)
    _check_orders(g, region, blocks)
    chain = [(u, v) for u, v, _ in transitions(g, blocks)]
    _check(chain == list(zip(blocks, blocks[1:])), f"transitions of {region} are {chain}, not its blocks in order")
    _check_blocks(g, region, blocks, children, 0, region_of)


def _check_orders(g: DataflowGraph, region: str, blocks: list[str]) -> None:
    orders = sorted(d["edge"].order for _, _, d in g.out_edges(region, data=True) if isinstance(d["edge"], Contains))
    _check(orders == list(range(len(blocks))), f"blocks of {region} are ordered {orders}")


def _check_blocks(g: DataflowGraph, region: str, blocks: list[str], children: list[str], depth: int,
                  region_of: dict) -> None:
    """Blocks of a region (or of one branch) stand, in order, for children of one scope that share
    their first `depth` conditions: one block per run of them (control.condition_runs)."""
    runs = condition_runs(g, children, depth)
    _check(len(blocks) == len(runs), f"{region} has {len(blocks)} blocks for {len(children)} children "
                                     f"{children} ({len(runs)} runs of conditions)")
    for block, run in zip(blocks, runs):
        _check(block not in region_of, f"block {block} is in two regions")
        region_of[block] = region
        node = g.nodes[block]["node"]
        child = run[0]
        if len(conditions(g, child)) > depth:
            _check(isinstance(node, ConditionalRegion),
                   f"{region} holds {block} for {child}, which is under `if ({conditions(g, child)[depth].text})`")
            _check_conditional(g, block, node, run, depth, region_of)
        elif isinstance(node, LoopRegion):
            _check(node.map == child and is_loop_region(g, child),
                   f"loop region {block} stands for {node.map}, not {child}, a sequential map around parallel maps")
            m = g.nodes[child]["node"]
            _check((node.var, node.begin, node.end, node.step, node.decreasing)
                   == (m.var, m.begin, m.end, m.step, m.decreasing), f"loop region {block} disagrees with {child}")
            _check_region(g, block, scope_children(g, child), region_of)
        else:
            _check(isinstance(node, State), f"{region} contains {block}, not a state or loop region for {child}")
            _check(contained(g, block) == [child], f"state {block} runs {contained(g, block)}, not {child}")
            _check(not is_loop_region(g, child), f"state {block} runs {child}, a loop over states")


def _check_conditional(g: DataflowGraph, block: str, node: ConditionalRegion, run: list[str], depth: int,
                       region_of: dict) -> None:
    """A conditional region stands for a run of children under one `if`: one branch per branch of it
    the run holds, in order, with the branch's condition; Contains edges to the blocks of all
    branches in turn; transitions only within a branch."""
    parts = branches(g, run, depth)
    _check([b.condition for b in node.branches] == [text for text, _ in parts],
           f"conditional region {block} has branches {[b.condition for b in node.branches]}, "
           f"its children are under {[text for text, _ in parts]}")
    inside = [b for branch in node.branches for b in branch.blocks]
    _check(contained(g, block) == inside, f"conditional region {block} contains {contained(g, block)}, "
                                          f"not the blocks of its branches {inside}")
    _check_orders(g, block, inside)
    chain = [(u, v) for u, v, _ in transitions(g, inside)]
    expected = [pair for branch in node.branches for pair in zip(branch.blocks, branch.blocks[1:])]
    _check(chain == expected, f"transitions of {block} are {chain}, not each branch's blocks in order")
    for branch, (_, kids) in zip(node.branches, parts):
        _check_blocks(g, block, branch.blocks, kids, depth + 1, region_of)


def _check_tile(g: DataflowGraph, n: str, node: MapScope) -> None:
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
