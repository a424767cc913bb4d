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

import dataclasses
import itertools
import re

import islpy as isl
import networkx as nx

from lifter.analysis.affine import isl_name
from lifter.analysis.budget import BudgetExceeded, isl_budget
from lifter.analysis.model import Region
from lifter.analysis.verdicts import Nest, verdict
from lifter.frontend.spans import word_tokens
from lifter.graph.build import STATE, add_map_memlets
from lifter.graph.ranges import access_range
from lifter.graph.nodes import MapScope, Memlet, Scope, Tasklet, scope_children, scope_descendants, scope_parent
from lifter.transform.checkpoint import checkpoint, rollback
from lifter.transform.loop_vars import escaping
from lifter.transform.parallelize import region_alias_check

MAX_BAND = 4  # 4! = 24 permutations at most


def improve_locality(g: nx.MultiDiGraph, region: Region) -> bool:
    """Distribute and interchange where that pays and isl proves it legal; True if the tree changed."""
    if not g.graph.get("reemittable") or escaping(g):
        return False  # distribution or interchange would change the value a loop leaves its variable
    saved = checkpoint(g)
    changed = False
    try:
        for child in scope_children(g, STATE):
            changed |= _optimize(g, region, child)
    except isl.Error:
        # isl could not decide something: keep the nest exactly as written.
        rollback(g, saved)
        return False
    if changed:
        g.graph["restructured"] = True
        refresh_verdicts(g, region)
        refresh_map_memlets(g, region)
    return changed


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
    inside_parallel = any(g.nodes[a]["node"].schedule == "parallel" for a in ancestors(g, band[0]))
    best, best_score = list(range(len(band))), None
    for perm in itertools.permutations(range(len(band))):
        order = [maps[p].origin for p in perm]
        if not _legal_order(g, region, band, order):
            continue
        kinds = _stride_kinds(region, tasklets, order[-1])
        parallel = not inside_parallel and _parallel_first(region, outer, order[0], tasklets)
        # Strided inner accesses cost more than two cores can win back: fewest first,
        # then a parallel outermost loop, then the most unit-stride accesses.
        score = (-sum(w for k, w in kinds if k < 0), parallel, sum(k * w for k, w in kinds))
        if best_score is None or score > best_score:
            best, best_score = list(perm), score
    if best == list(range(len(band))):
        return False
    _apply_order(g, band, [maps[p] for p in best])
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
def _tree_schedule(g, region: Region) -> dict[str, str]:
    """The schedule of each access (by id) as the current tree orders it (tile loops included),
    as isl text: `_forward` parses only the ones a dependence it has not yet checked needs."""
    maps_above = [len(ancestors(g, sid)) for sid in region.statements]
    width = 2 * max(maps_above + [len(s.loops) for s in region.statements.values()]) + 2
    params = f"[{', '.join(isl_name(p) for p in region.params)}] -> " if region.params else ""
    sched = {}
    for sid, stmt in region.statements.items():
        path = []
        node = sid
        while node != STATE:
            parent = scope_parent(g, node)
            order = next(e["edge"].order for e in g.get_edge_data(parent, node).values()
                         if isinstance(e["edge"], Scope))
            path.insert(0, (order, g.nodes[parent]["node"] if parent != STATE else None))
            node = parent
        for phase, acc in enumerate(sorted(stmt.accesses, key=lambda a: a.is_write)):
            iters = [f"i{k}" for k in range(len(stmt.loops))]
            dims = []
            for level, (order, owner) in enumerate(path):
                if owner is not None:
                    loop = region.loops[owner.origin]
                    var = f"i{loop.depth}"
                    if owner.tile:  # a tile loop: the block of its point loop
                        dims.append(f"floor(({var} - ({lower_in_dims(region, loop)}))/{owner.tile})")
                    else:
                        dims.append(f"-{var}" if loop.decreasing else var)
                dims.append(str(order))
            dims.append(str(phase))
            dims += ["0"] * (width - len(dims))
            sched[acc.id] = f"{params}{{ {acc.id}[{', '.join(iters)}] -> [{', '.join(dims)}] }}"
    return sched


def lower_in_dims(region: Region, loop) -> str:
    """A loop's lower bound (isl text) with outer loop variables named as schedule inputs (`i0`)."""
    text, parent = loop.lower, loop.parent
    while parent is not None:
        outer = region.loops[parent]
        text = re.sub(rf"\b{re.escape(isl_name(outer.var))}\b", f"i{outer.depth}", text)
        parent = outer.parent
    return text


def _innermost(g, node_id: str) -> bool:
    return not any(isinstance(g.nodes[k]["node"], MapScope) for k in scope_children(g, node_id))


def legal_tree(g, region: Region) -> bool:
    """Every dependence goes forward in the schedule the tree implies; a check past the
    analysis budget fails, and so does any reordering of a nest whose pointers may overlap in a
    way no run-time test can rule out (see `reorder_guard`).
    """
    if reorder_guard(g).startswith("!"):
        return False
    if not region.statements:
        return True  # an empty nest has nothing to order
    try:
        with isl_budget():
            return _forward(region, _tree_schedule(g, region), _checked(g, region))
    except BudgetExceeded:
        return False


def reorder_guard(g) -> str:
    """The C condition under which the nest may be reordered: '' always, '!reason' never.

    The analysis treats every container as memory of its own; pointers that may overlap carry
    dependences it cannot see. The reordered nest therefore runs only when the ranges the
    whole nest touches are disjoint (the test `parallelize.alias_check` makes for one loop),
    and the nest as written otherwise. Computed once, on the graph as built.
    """
    if "reorder_guard" not in g.graph:
        g.graph["reorder_guard"] = region_alias_check(g)
    return g.graph["reorder_guard"]


def _checked(g, region: Region) -> dict:
    """The verdicts `_forward` has reached for this region, kept on the graph.

    Distribution, interchange, tiling, fusion, unrolling and strips each try many trees of one
    nest, and a candidate usually moves a few statements only: the schedules of most access
    pairs are the same text as in the trees tried before. A dependence's verdict depends on
    nothing else (the pair, its two schedules), so it is looked up instead of asked of isl again.
    The region is kept beside its verdicts, so its id names it as long as the entry lives.
    """
    cache = g.graph.setdefault("forward_checks", {})
    entry = cache.get(id(region))
    if entry is None or entry[0] is not region or entry[1] is not region.dependences:
        entry = cache[id(region)] = (region, region.dependences, {})
    return entry[2]


def _forward(region: Region, sched: dict[str, str], checked: dict) -> bool:
    """Every dependence goes forward in `sched` (each access's schedule, as isl text).

    Dependences on variables declared in an innermost loop's body are left out:
    each execution of that body has its own, and no transformation separates
    the statements of such a body (it is never distributed, fused or tiled).
    Each dependence (one pair of accesses) is mapped through the schedules of its two
    accesses: applying the union of all schedules to the union of all dependences made a
    nest of a thousand accesses take seconds per check. `checked` holds the verdict of each
    (kind, pair, schedules) already decided.
    """
    local = {a.id for s in region.statements.values() for a in s.accesses
             if region.containers[a.container].declared_in is not None
             and region.loops_inside(region.containers[a.container].declared_in)
             == [region.containers[a.container].declared_in]}
    maps: dict[str, isl.Map] = {}

    def parsed(access: str) -> isl.Map:
        if access not in maps:
            maps[access] = isl.Map(sched[access])
        return maps[access]

    for kind in ("flow", "anti", "output"):
        parts = []
        region.dependences[kind].foreach_map(parts.append)
        for dep in parts:
            source, sink = dep.get_tuple_name(isl.dim_type.in_), dep.get_tuple_name(isl.dim_type.out)
            if source in local:
                continue
            key = (kind, source, sink, sched[source], sched[sink])
            if key not in checked:
                times = dep.apply_domain(parsed(source)).apply_range(parsed(sink))
                checked[key] = times.is_subset(isl.Map.lex_lt(times.get_space().domain()))
            if not checked[key]:
                return False
    return True


def _legal_order(g, region: Region, band: list[str], order: list[str]) -> bool:
    saved = checkpoint(g)
    _apply_order(g, band, [next(g.nodes[b]["node"] for b in band if g.nodes[b]["node"].origin == o)
                           for o in order])
    legal = legal_tree(g, region)
    rollback(g, saved)
    return legal


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
    """+3 unit stride, +1 invariant, -3 other, 0 unknown (may-access) along iteration dim `dim`."""
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


def ancestors(g, node_id: str) -> list[str]:
    """The maps around a node, outermost first (the region's root not included)."""
    out, parent = [], scope_parent(g, node_id)
    while parent != STATE:
        out.insert(0, parent)
        parent = scope_parent(g, parent)
    return out


def origins_above(g, node_id: str) -> list[str]:
    """The loops around a map, outermost first. Tile loops are left out: their blocks are
    functions of their point loop's iterations, so the dependences they separate are the
    ones their point loop separates."""
    out, parent = [], scope_parent(g, node_id)
    while parent != STATE:
        if not g.nodes[parent]["node"].tile:
            out.insert(0, g.nodes[parent]["node"].origin)
        parent = scope_parent(g, parent)
    return out


# -- tree surgery --------------------------------------------------------------------------
def _apply_order(g, band: list[str], maps: list[MapScope]) -> None:
    """Put the loop data of `maps` on the band's nodes, outermost first (the nodes stay)."""
    fields = [_loop_fields(m) for m in maps]
    for node_id, f in zip(band, fields):
        m = g.nodes[node_id]["node"]
        for key, value in f.items():
            setattr(m, key, value)


_LOOP_FIELDS = ("origin", "var", "begin", "end", "step", "decreasing", "line", "column", "offset",
                "var_declared_in_header", "trip_count", "max_trip_count", "header", "transformations")


def _loop_fields(m: MapScope) -> dict:
    return {k: (list(getattr(m, k)) if k == "transformations" else getattr(m, k)) for k in _LOOP_FIELDS}


def copy_map(m: MapScope, new_id: str) -> MapScope:
    """A copy of a map under a new id, without its parallel plan (list fields not shared)."""
    return dataclasses.replace(m, id=new_id, plan=None, reductions=list(m.reductions), private=list(m.private),
                               lastprivate=list(m.lastprivate), transformations=list(m.transformations),
                               fused=list(m.fused), declarations=list(m.declarations))


def fresh_id(g, wanted: str) -> str:
    """`wanted`, or `wanted` with a suffix, whichever names no node yet. A map distributed
    twice (by the locality pass, then again by tiling to expose a band) would otherwise give
    its second copy the id of an earlier one, and networkx would merge the two: one node with
    two scope edges, emitted twice."""
    candidate, n = wanted, 1
    while candidate in g:
        candidate, n = f"{wanted}_{n}", n + 1
    return candidate


def move_child(g, child: str, new_parent: str, order: int) -> None:
    old = scope_parent(g, child)
    for key, data in list(g.get_edge_data(old, child).items()):
        if isinstance(data["edge"], Scope):
            g.remove_edge(old, child, key)
    g.add_edge(new_parent, child, edge=Scope(order))


def shift_orders(g, parent, siblings, after: int, by: int) -> None:
    for s in siblings:
        for data in g.get_edge_data(parent, s).values():
            if isinstance(data["edge"], Scope) and data["edge"].order > after:
                data["edge"] = Scope(data["edge"].order + by)


def refresh_verdicts(g, region: Region) -> None:
    """Re-derive every map's verdict in its new place in the tree.

    A tile loop gets the verdict of its point loop placed where the band starts:
    it carries at most the dependences that loop carries there.
    """
    for n, d in g.nodes(data=True):
        m = d["node"]
        if not isinstance(m, MapScope):
            continue
        inside = {t for t in scope_descendants(g, n) if isinstance(g.nodes[t]["node"], Tasklet)}
        v = verdict(region, Nest(m.origin, origins_above(g, n), inside), region.live_after)
        m.schedule = "parallel" if v.parallel else "sequential"
        m.reductions, m.private, m.lastprivate, m.reason = list(v.reductions), list(v.private), \
            list(v.lastprivate), v.reason
        m.condition = ""  # a value condition holds only for the nest as written (verdicts.value_verdict)
        m.depth = len(ancestors(g, n))


def refresh_map_memlets(g, region: Region) -> None:
    """Recompute every map's memlets (the ranges its iterations touch) in the new tree.

    Outer loop variables stay symbolic only while the map's ancestors are the
    statement's original outer loops in order; otherwise the range is taken over
    the whole region, a superset, which keeps run-time alias checks safe.
    """
    for u, v, key, d in list(g.edges(keys=True, data=True)):
        if isinstance(d["edge"], Memlet) and (isinstance(g.nodes[u]["node"], MapScope)
                                              or isinstance(g.nodes[v]["node"], MapScope)):
            g.remove_edge(u, v, key)
    for n, d in list(g.nodes(data=True)):
        if not isinstance(d["node"], MapScope):
            continue
        above = origins_above(g, n)
        ranges = {}
        for t in scope_descendants(g, n):
            if not isinstance(g.nodes[t]["node"], Tasklet):
                continue
            stmt = region.statements[t]
            outer = len(above) if stmt.loops[:len(above)] == above else 0
            for acc in stmt.accesses:
                r = access_range(acc.relation, outer)
                k = (acc.container, acc.is_write)
                ranges[k] = r if k not in ranges else ranges[k].union(r)
        add_map_memlets(g, n, ranges)
