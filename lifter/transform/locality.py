"""Loop distribution and interchange for unit-stride inner loops, proved legal by isl.

A map whose body mixes statements and inner maps is distributed (one copy of
the map per group of children) when that lets an inner perfect band be
permuted; a perfect band (maps nested one in another, statements only in the
innermost) is permuted so that its innermost loop walks memory with unit
stride, keeping a parallel loop outermost where there was one. Every candidate
tree is checked against all dependences (flow, anti, output) under the
schedule it implies; an illegal one is refused.

The cost model compares permutations by, in order: the fewest accesses with a
non-unit stride in the innermost loop (writes count twice: a strided inner
loop costs more than two cores win back), a parallel outermost loop, and the
stride score (unit stride +3, invariant +1, other -3 per access). Re-emitting a nest in a new shape
needs the exact text of every loop header and statement, so nests whose text
cannot be cut into such pieces (statements under `if`, declarations after
statements, preprocessor lines) are left as they are. A map whose body declares
variables stays where it is, unless it is the innermost map of a band: its
body moves whole with the last loop, so dependences on those variables never
leave one execution of it (`legal_tree` leaves them out). Scalars that freeze
an outer map are expanded by `transform/expansion.py`.
"""
from __future__ import annotations

import itertools

import islpy as isl

from lifter.analysis.model import Region
from lifter.analysis.verdicts import Nest, verdict
from lifter.frontend.spans import word_tokens
from lifter.graph.attributes import DataflowGraph
from lifter.graph.nodes import MapScope, Schedule, Scope, scope_children, scope_parent
from lifter.transform.checkpoint import checkpoint, rollback
from lifter.transform.legality import legal_tree
from lifter.transform.loop_vars import escaping
from lifter.transform.rewrite import (ancestors, copy_map, fresh_id, move_child, origins_above, rewrite_nest,
                                      shift_orders)

MAX_BAND = 4  # 4! = 24 permutations at most


def improve_locality(g: DataflowGraph, region: Region) -> bool:
    """Distribute and interchange where that pays and isl proves it legal; True if the tree changed."""
    if not g.nest.reemittable or escaping(g):
        return False  # distribution or interchange would change the value a loop leaves its variable
    return rewrite_nest(g, region, lambda child: _optimize(g, region, child))


# -- the search ----------------------------------------------------------------------------
def _optimize(g, region: Region, node_id: str) -> bool:
    """Improve the subtree of a map; True if the tree changed."""
    if not isinstance(g.nodes[node_id]["node"], MapScope):
        return False
    band = perfect_band(g, node_id)
    if len(band) >= 2:
        return _permute_best(g, region, band)
    kids = scope_children(g, node_id)
    frozen = g.nodes[node_id]["node"].declares
    if len(kids) > 1 and not frozen and any(isinstance(g.nodes[k]["node"], MapScope) for k in kids):
        saved = checkpoint(g)
        copies = distribute(g, region, node_id)
        # Distribution alone costs a pass over memory: keep it only if it enabled a permutation.
        if copies and any([_optimize(g, region, copy) for copy in copies]):
            return True
        rollback(g, saved)
    changed = False
    for child in scope_children(g, node_id):
        changed |= _optimize(g, region, child)
    return changed


def perfect_band(g, node_id: str) -> list[str]:
    """Maps nested one directly in another, statements only in the last; none declaring variables
    except the last (its body, declarations included, stays under whichever loop ends up last)."""
    if g.nodes[node_id]["node"].declares:
        return [node_id]
    band = [node_id]
    while len(band) < MAX_BAND and not g.nodes[band[-1]]["node"].declares:
        kids = scope_children(g, band[-1])
        if len(kids) == 1 and isinstance(g.nodes[kids[0]]["node"], MapScope) \
                and (not g.nodes[kids[0]]["node"].declares or _innermost(g, kids[0])):
            band.append(kids[0])
        else:
            break
    last = scope_children(g, band[-1])
    if any(isinstance(g.nodes[k]["node"], MapScope) for k in last):
        return band[:1]
    return band


def _permute_best(g, region: Region, band: list[str]) -> bool:
    maps = [g.nodes[b]["node"] for b in band]
    band_vars = {m.var for m in maps}
    for m in maps:  # bounds must not mention other loops of the band (rectangular band)
        if word_tokens(m.header) & (band_vars - {m.var}):
            return False
    tasklets = scope_children(g, band[-1])
    outer = origins_above(g, band[0])
    inside_parallel = any(g.nodes[a]["node"].schedule == Schedule.PARALLEL for a in ancestors(g, band[0]))
    # A permutation's strides depend on its innermost loop only, its parallelism on its outermost:
    # each is computed once per loop, not once for each of the up to 24 permutations. The
    # permutations are tried best score first (the first in itertools' order among equals), so
    # the first legal one is the choice, and isl is asked only until then: the legality check
    # is the costly part.
    kinds_of = [_stride_kinds(region, tasklets, m.origin) for m in maps]
    parallel_of = [not inside_parallel and _parallel_first(region, outer, m.origin, tasklets) for m in maps]

    def score(perm: tuple[int, ...]) -> tuple:
        # Strided inner accesses cost more than two cores can win back: fewest first,
        # then a parallel outermost loop, then the most unit-stride accesses.
        kinds = kinds_of[perm[-1]]
        return -sum(w for k, w in kinds if k < 0), parallel_of[perm[0]], sum(k * w for k, w in kinds)

    ranked = sorted(itertools.permutations(range(len(band))), key=score, reverse=True)  # stable
    best = next((list(perm) for perm in ranked if _legal_order(g, region, band, [maps[p].origin for p in perm])),
                list(range(len(band))))
    if best == list(range(len(band))):
        return False
    apply_order(g, band, [maps[p] for p in best])
    for node_id in band:
        g.nodes[node_id]["node"].transformations.append("interchange")
    return True


def distribute(g, region: Region, node_id: str) -> list[str]:
    """Split a map into one copy per group of children (runs of statements stay together).

    Returns the copies (the map itself first), or [] if distribution is illegal.
    """
    kids = scope_children(g, node_id)
    groups, run = [], []
    for k in kids:
        if isinstance(g.nodes[k]["node"], MapScope):
            if run:
                groups.append(run)
                run = []
            groups.append([k])
        else:
            run.append(k)
    if run:
        groups.append(run)
    if len(groups) < 2:
        return []
    parent = scope_parent(g, node_id)
    original = g.nodes[node_id]["node"]
    order = g.get_edge_data(parent, node_id)
    base = next(e["edge"].order for e in order.values() if isinstance(e["edge"], Scope))
    siblings = [s for s in scope_children(g, parent) if s != node_id]
    shift_orders(g, parent, siblings, base, len(groups) - 1)
    copies = []
    for index, group in enumerate(groups):
        copy_id = node_id if index == 0 else fresh_id(g, f"{node_id}.{index}")
        copies.append(copy_id)
        if index:
            g.add_node(copy_id, node=copy_map(original, copy_id))
            g.add_edge(parent, copy_id, edge=Scope(base + index))
        for position, child in enumerate(group):
            move_child(g, child, copy_id, position)
    if not legal_tree(g, region):
        return []
    for copy in copies:
        g.nodes[copy]["node"].transformations.append("distribution")
    return copies


# -- legality ------------------------------------------------------------------------------
def _innermost(g, node_id: str) -> bool:
    return not any(isinstance(g.nodes[k]["node"], MapScope) for k in scope_children(g, node_id))


def _legal_order(g, region: Region, band: list[str], order: list[str]) -> bool:
    """Whether the band may run in `order` (loop origins, outermost first). The test changes the
    loop fields of the band's maps and may fill in fields of the nest's record (`reorder_guard`):
    those are put back as they were, which is all a checkpoint of the whole graph restored here,
    at a fraction of its cost (it was taken once per permutation tried)."""
    maps = [g.nodes[b]["node"] for b in band]
    own = [loop_fields(m) for m in maps]
    record = g.nest
    fields = dict(vars(record))
    apply_order(g, band, [next(m for m in maps if m.origin == o) for o in order])
    try:
        return legal_tree(g, region)
    finally:
        for m, loop in zip(maps, own):
            vars(m).update(loop)
        vars(record).clear()
        vars(record).update(fields)


# -- cost model ----------------------------------------------------------------------------
def _stride_kinds(region: Region, tasklets: list[str], innermost: str) -> list[tuple[int, int]]:
    """(stride kind, weight) of every access in the band's body along the innermost loop."""
    depth = region.loops[innermost].depth
    out = []
    for sid in tasklets:
        stmt = region.statements[sid]
        for acc in stmt.accesses:
            out.append((stride_kind(acc.relation, depth, len(stmt.loops)), 2 if acc.is_write else 1))
    return out


def stride_kind(rel: isl.Map, dim: int, ndims: int) -> int:
    """+3 unit stride, +1 invariant, -3 other, 0 unknown (may-access) along iteration dim `dim`.

    Interchange, tiling, vectorization, unrolling and the accumulators each ask it of the same
    accesses; the answer is a function of the relation's text and the two numbers, so it is
    kept under them (a few microseconds to print the relation, against a tenth of a millisecond
    of isl for the answer; at most _STRIDES_KEPT answers, then they start again)."""
    key = (rel.to_str(), dim, ndims)
    kind = _strides.get(key)
    if kind is None:
        if len(_strides) >= _STRIDES_KEPT:
            _strides.clear()
        kind = _strides[key] = _stride_kind(rel, dim, ndims)
    return kind


_STRIDES_KEPT = 4096
_strides: dict[tuple[str, int, int], int] = {}


def _stride_kind(rel: isl.Map, dim: int, ndims: int) -> int:
    if rel.range().dim(isl.dim_type.set) == 0:
        return 1
    name = rel.get_tuple_name(isl.dim_type.in_)
    ins = [f"x{k}" for k in range(ndims)]
    outs = [f"x{k} + 1" if k == dim else f"x{k}" for k in range(ndims)]
    try:
        shift = isl.Map(f"{{ {name}[{', '.join(ins)}] -> {name}[{', '.join(outs)}] }}")
        step = rel.reverse().apply_range(shift).apply_range(rel).deltas()
    except isl.Error:
        return 0
    if step.is_empty():
        return 0
    try:
        if not step.lexmin().is_equal(step.lexmax()):
            return -3
    except isl.Error:  # unbounded: a may-access over a whole dimension
        return 0
    point = step.sample_point()
    delta = [point.get_coordinate_val(isl.dim_type.set, d).to_python() for d in range(step.dim(isl.dim_type.set))]
    if not any(delta):
        return 1
    if delta[-1] in (1, -1) and not any(delta[:-1]):
        return 3
    return -3


def _parallel_first(region: Region, outer: list[str], loop: str, tasklets: list[str]) -> bool:
    inside = set(tasklets)
    v = verdict(region, Nest(loop, outer, inside), set())
    return v.parallel and not v.reductions and not v.private and not v.lastprivate


# -- tree surgery --------------------------------------------------------------------------
def apply_order(g, band: list[str], maps: list[MapScope]) -> None:
    """Put the loop data of `maps` on the band's nodes, outermost first (the nodes stay)."""
    fields = [loop_fields(m) for m in maps]
    for node_id, f in zip(band, fields):
        m = g.nodes[node_id]["node"]
        for key, value in f.items():
            setattr(m, key, value)


_LOOP_FIELDS = ("origin", "var", "begin", "end", "step", "decreasing", "line", "column", "offset",
                "var_declared_in_header", "var_type", "trip_count", "max_trip_count", "header", "transformations")


def loop_fields(m: MapScope) -> dict:
    return {k: (list(getattr(m, k)) if k == "transformations" else getattr(m, k)) for k in _LOOP_FIELDS}

