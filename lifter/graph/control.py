"""The control layer of a region's graph: states, loop regions and conditional regions linked by
transitions.

It is a function of the scope tree, the maps' schedules and the `if`s around each map and tasklet
(`conditions`), so it is rebuilt whole, never edited: `build_graph` builds it, and `transform`
rebuilds it after each pass that reshapes the scope tree or changes schedules (locality, expansion,
fusion, tiling). Passes and backends keep working on the scope tree; the control layer is what the
exports and the validator read as control flow.

The rule: the Root's scope children, in order, are its blocks. A child that is a sequential map
with a parallel map somewhere inside is a LoopRegion, whose blocks are that map's children by the
same rule; every other child (a map with everything inside it, or a tasklet) is one State. A
sequential loop nested inside a state's map stays a map of that state's dataflow.

Conditions: a child under `if`s inside its parent scope (`conditions`, outermost first) is a block
of a ConditionalRegion, not of the region itself. Consecutive children whose first condition
comes from the same `if` (`Condition.if_id`) share one conditional region; its branches are the
branches of that `if` they come from (then-branch first, text the `if`'s condition; else-branch
its negation), and each branch's blocks are its children by this rule again, one condition
further in: an `if` nested in a branch is a conditional region inside that branch. Conditions
around maps and tasklets inside a state's map stay in that state's dataflow (their `conditions`).
Conditions never change which children are loop regions or states, only where their blocks sit.
"""
from __future__ import annotations

from itertools import groupby


from lifter.graph.attributes import DataflowGraph
from lifter.graph.nodes import (STATE, Branch, ConditionalRegion, Contains, LoopRegion, MapScope, Schedule, State,
                                Transition, scope_children, scope_descendants)

CONTROL = (State, LoopRegion, ConditionalRegion)  # the control layer's node types, besides the Root


def is_loop_region(g: DataflowGraph, node_id: str) -> bool:
    """A sequential map with a parallel map inside: the time loop around parallel sweeps."""
    node = g.nodes[node_id]["node"]
    return isinstance(node, MapScope) and node.schedule == Schedule.SEQUENTIAL and any(
        isinstance(n := g.nodes[d]["node"], MapScope) and n.schedule == Schedule.PARALLEL
        for d in scope_descendants(g, node_id))


def build_control(g: DataflowGraph) -> None:
    """Replace the graph's control layer with the one its scope tree implies."""
    g.remove_nodes_from([n for n, d in g.nodes(data=True) if isinstance(d["node"], CONTROL)])
    g.remove_edges_from([(u, v, k) for u, v, k, d in g.out_edges(STATE, keys=True, data=True)
                         if isinstance(d["edge"], Contains)])
    _chain(g, STATE, _blocks(g, scope_children(g, STATE), 0), 0)


def conditions(g: DataflowGraph, node_id: str) -> list:
    """The `if`s around a map or tasklet inside its parent scope (analysis.model.Condition)."""
    return g.nodes[node_id]["node"].conditions


def condition_runs(g: DataflowGraph, children: list[str], depth: int) -> list[list[str]]:
    """Consecutive children sharing their first `depth` conditions, in runs: each child with no
    condition beyond them alone, and the children under one `if` at `depth` together."""
    def key(item):
        index, child = item
        under = conditions(g, child)
        return under[depth].if_id if len(under) > depth else ("alone", index)

    return [[child for _, child in run] for _, run in groupby(enumerate(children), key)]


def branches(g: DataflowGraph, run: list[str], depth: int) -> list[tuple[str, list[str]]]:
    """A run under one `if`, split by the branch taken: (condition, children), in order."""
    return [(text, list(kids)) for text, kids in groupby(run, lambda child: conditions(g, child)[depth].text)]


def _blocks(g: DataflowGraph, children: list[str], depth: int) -> list[str]:
    """Add the blocks that stand for consecutive children of one scope (sharing their first `depth`
    conditions), and return them in order."""
    blocks = []
    for run in condition_runs(g, children, depth):
        child = run[0]
        if len(conditions(g, child)) > depth:
            block = f"if{conditions(g, child)[depth].if_id}:{child}"
            parts = [Branch(text, _blocks(g, kids, depth + 1)) for text, kids in branches(g, run, depth)]
            g.add_node(block, node=ConditionalRegion(block, parts))
            order = 0
            for part in parts:
                _chain(g, block, part.blocks, order)
                order += len(part.blocks)
        elif is_loop_region(g, child):
            m = g.nodes[child]["node"]
            block = f"loop:{child}"
            g.add_node(block, node=LoopRegion(block, child, m.var, m.begin, m.end, m.step, m.decreasing))
            _chain(g, block, _blocks(g, scope_children(g, child), 0), 0)
        else:
            block = f"state:{child}"
            g.add_node(block, node=State(block))
            g.add_edge(block, child, edge=Contains(0))
        blocks.append(block)
    return blocks


def _chain(g: DataflowGraph, region: str, blocks: list[str], first: int) -> None:
    """Make blocks, run in this order, blocks of a region (Contains from `first` on), with transitions."""
    for k, block in enumerate(blocks):
        g.add_edge(region, block, edge=Contains(first + k))
        if k:
            g.add_edge(blocks[k - 1], block, edge=Transition())


def contained(g: DataflowGraph, node_id: str) -> list[str]:
    """What a control node contains, in order: a region's blocks (a conditional region's, branch
    after branch), or the map or tasklet a state runs."""
    kids = [(d["edge"].order, v) for _, v, d in g.out_edges(node_id, data=True) if isinstance(d["edge"], Contains)]
    return [v for _, v in sorted(kids)]


def transitions(g: DataflowGraph, blocks: list[str]) -> list[tuple[str, str, Transition]]:
    """The transitions between the given blocks (those of one region or branch), in the blocks' order."""
    inside = set(blocks)
    return [(u, v, d["edge"]) for u in blocks for _, v, d in g.out_edges(u, data=True)
            if isinstance(d["edge"], Transition) and v in inside]
