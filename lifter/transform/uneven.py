"""A parallel loop of a few iterations over long parallel loops: run the inner loops in parallel.

A loop proved parallel whose trip count is a small constant (`for (t = 0; t < 5; t++)`, NPB IS's
five probed keys, each counted over every key) gives the threads whole iterations: 5 on 2
threads run as 3 on one and 2 on the other, the time of 3 iterations where 2.5 would do; on 8
threads, 3 of them wait. When the loop is perfectly nested, `collapse(2)` shares the
iterations of both loops (parallelize.py `_collapse`). When it is not (each iteration computes
a key, counts over the array, then tests the count), the work that matters is in the loops
inside it, which each run long enough to share evenly: those are parallelized instead, at the
cost of entering one parallel region per outer iteration (a few microseconds each, a handful of
times), as a hand-written version does.

This chooses between loops the analysis already proved parallel, so it changes no result: it
only applies where every loop directly inside is itself proved parallel (each is then planned
as any loop is, and if one of them cannot be, the outer loop is planned as before), and the rest
of the outer body is straight-line code (no loop in an opaque statement, no call of a function
of the file that runs one): work outside the inner loops would otherwise run on one thread.
"""
from __future__ import annotations

import re


from lifter.graph.attributes import DataflowGraph
from lifter.graph.nodes import MapScope, Schedule, Tasklet, scope_children

_LOOP = re.compile(r"\b(for|while|do)\b")


def inner_maps(g: DataflowGraph, m: MapScope, extent, collapse: int, few: int) -> list[MapScope]:
    """The maps directly inside `m` to parallelize instead of `m` (see the module's docstring),
    or [] to plan `m` itself. `extent` is `m`'s trip count (an int when constant), `collapse`
    what `m`'s plan would collapse, `few` the trip count from which `m` shares well enough."""
    if not isinstance(extent, int) or not 2 <= extent < few or collapse != 1 or m.tile:
        return []
    looping = g.nest.scop.looping_calls
    inner = []
    for child in scope_children(g, m.id):
        node = g.nodes[child]["node"]
        if isinstance(node, MapScope):
            if node.schedule != Schedule.PARALLEL or node.condition or node.shared_scratch or node.tile:
                return []
            inner.append(node)
        elif not isinstance(node, Tasklet) or child in looping or _LOOP.search(node.code):
            return []
    return inner
