"""Legality of reshaped loop nests: whether a scope tree, a band or a nest may be run as proposed.

Every pass that reorders statement instances (distribution, interchange, fusion, tiling,
strip-mining, wavefronts, unroll-and-jam) proposes a tree and asks `legal_tree`, which checks
every dependence of the region (flow, anti, output) against the schedule the tree implies, with
isl; `permutable` is tiling's weaker question about one band (no dependence runs backwards along
any of its loops). The dependences treat each container as memory of its own, so
`reorder_guard` states the run-time condition (disjoint ranges) under which any reordering of
a nest holds, or '!reason' where none can. The checks live here, one module, so a pass decides
what to try and never how legality is proved.
"""
from __future__ import annotations

import re

import islpy as isl

from lifter.analysis.affine import isl_name
from lifter.analysis.budget import BudgetExceeded, isl_budget
from lifter.analysis.model import Region
from lifter.analysis.verdicts import exit_value_reads, volatile_access
from lifter.graph.build import STATE
from lifter.graph.nodes import Scope, scope_parent
from lifter.transform.alias_test import region_alias_check
from lifter.transform.rewrite import ancestors


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
                    var = f"i{owner.stands_for.get(sid, loop.depth)}"
                    if owner.tile:  # a tile loop: the block of its point loop
                        first = in_dims(region, loop, owner.tile_lower) if owner.tile_lower else lower_in_dims(region, loop)
                        dims.append(f"floor(({var} - ({first}))/{owner.tile})")
                    else:
                        dims.append(f"-{var}" if loop.decreasing else var)
                dims.append(str(order))
            dims.append(str(phase))
            dims += ["0"] * (width - len(dims))
            sched[acc.id] = f"{params}{{ {acc.id}[{', '.join(iters)}] -> [{', '.join(dims)}] }}"
    return sched


def lower_in_dims(region: Region, loop) -> str:
    """A loop's lower bound (isl text) with outer loop variables named as schedule inputs (`i0`)."""
    return in_dims(region, loop, loop.lower)


def in_dims(region: Region, loop, text: str) -> str:
    """isl text over the loops around `loop` with their variables named as schedule inputs (`i0`)."""
    parent = loop.parent
    while parent is not None:
        outer = region.loops[parent]
        text = re.sub(rf"\b{re.escape(isl_name(outer.var))}\b", f"i{outer.depth}", text)
        parent = outer.parent
    return text


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
            return _forward(_tree_schedule(g, region), *_checked(g, region))
    except BudgetExceeded:
        return False


def reorder_guard(g) -> str:
    """The C condition under which the nest may be reordered: '' always, '!reason' never.

    The analysis treats every container as memory of its own; pointers that may overlap carry
    dependences it cannot see. The reordered nest therefore runs only when the ranges the
    whole nest touches are disjoint (the test `alias_test.alias_check` makes for one loop),
    and the nest as written otherwise; a nest that accesses a volatile object is never reordered.
    Computed once, on the graph as built.
    """
    attrs = g.nest
    if attrs.reorder_guard is None:
        never = volatile_access(attrs.scop) or _exit_value_read(attrs.scop) or _header_scalar(attrs.scop)
        # The model holds only where its statements' sizes' tests do (`Statement.assumed`).
        assumed = [t for s in attrs.scop.statements.values() for t in s.assumed]
        attrs.reorder_guard = f"!{never}" if never \
            else " && ".join(dict.fromkeys(c for c in assumed + [region_alias_check(g)] if c))
    return attrs.reorder_guard


def _checked(g, region: Region) -> tuple[list, dict]:
    """The dependences `_forward` checks for this region and the verdicts it has reached, kept on
    the graph.

    Distribution, interchange, tiling, fusion, unrolling and strips each try many trees of one
    nest, and a candidate usually moves a few statements only: the schedules of most access
    pairs are the same text as in the trees tried before. A dependence's verdict depends on
    nothing else (the pair, its two schedules), so it is looked up instead of asked of isl again.
    The dependences, split into one map per access pair, are the same for every tree: split once.
    The region is kept beside them, so its id names it as long as the entry lives. So are the
    schedules isl parsed for it, by their text: a tree tried later asks for most of them again.
    """
    cache = g.nest.forward_checks
    entry = cache.get(id(region))
    if entry is None or entry[0] is not region or entry[1] is not region.dependences:
        entry = cache[id(region)] = (region, region.dependences, _pairs(region), {}, {})
    return entry[2], entry[3], entry[4]


def _pairs(region: Region) -> list[tuple[str, isl.Map, str, str]]:
    """(kind, dependence, source access, sink access) of every flow, anti and output dependence
    in that order, less those on variables declared in an innermost loop's body: each execution
    of that body has its own, and no transformation separates the statements of such a body (it
    is never distributed, fused or tiled)."""
    local = {a.id for s in region.statements.values() for a in s.accesses
             if region.containers[a.container].declared_in is not None
             and region.loops_inside(region.containers[a.container].declared_in)
             == [region.containers[a.container].declared_in]}
    pairs = []
    for kind in ("flow", "anti", "output"):
        parts: list[isl.Map] = []
        region.dependences[kind].foreach_map(parts.append)
        for dep in parts:
            source, sink = dep.get_tuple_name(isl.dim_type.in_), dep.get_tuple_name(isl.dim_type.out)
            if source not in local:
                pairs.append((kind, dep, source, sink))
    return pairs


def _forward(sched: dict[str, str], pairs: list[tuple[str, isl.Map, str, str]], checked: dict,
             maps: dict[str, isl.Map]) -> bool:
    """Every dependence of `pairs` (`_pairs`) goes forward in `sched` (each access's schedule, as
    isl text).

    Each dependence (one pair of accesses) is mapped through the schedules of its two
    accesses: applying the union of all schedules to the union of all dependences made a
    nest of a thousand accesses take seconds per check. `checked` holds the verdict of each
    (kind, pair, schedules) already decided, `maps` each schedule text isl has parsed.
    """

    def parsed(access: str) -> isl.Map:
        text = sched[access]
        if text not in maps:
            maps[text] = isl.Map(text)
        return maps[text]

    for kind, dep, source, sink in pairs:
        key = (kind, source, sink, sched[source], sched[sink])
        if key not in checked:
            times = dep.apply_domain(parsed(source)).apply_range(parsed(sink))
            checked[key] = times.is_subset(isl.Map.lex_lt(times.get_space().domain()))
        if not checked[key]:
            return False
    return True


def _exit_value_read(region: Region) -> str:
    """Why the nest keeps its order: a statement reads the value a loop header left in its
    variable, which the dependences do not record (a distributed or interchanged loop would
    leave another value there)."""
    reads = exit_value_reads(region)
    if not reads:
        return ""
    loop, stmt = reads[0]
    return f"loop variable '{loop.var}' of the loop at line {loop.line} is read outside it, at line {stmt.line}"


def _header_scalar(region: Region) -> str:
    """Why the nest keeps its order: a loop header reads a scalar the nest sets (`m = n - t; for
    (i < m)`). The model reads the header as the value set before it; its text names the
    scalar, so a header moved away from that assignment (distributed, interchanged, tiled)
    would read another value, or a private copy, there."""
    for loop in region.loops.values():
        if loop.header_scalars:
            return (f"the header of the loop at line {loop.line} reads '{sorted(loop.header_scalars)[0]}', "
                    "which the nest sets")
    return ""


def permutable(region: Region, band: list[str], outer: list[str], inside) -> bool:
    """No dependence between statements `inside`, at equal `outer` iterations, has a negative
    distance along any loop of `band` (loop ids; a statement's dimension d is its depth-d loop).
    Distances count in the order the loop runs: backwards along a decreasing loop."""
    inside = set(inside)
    for kind in ("flow", "anti", "output"):
        maps = []
        region.dependences[kind].foreach_map(maps.append)
        for dep in maps:
            src = dep.get_tuple_name(isl.dim_type.in_).rsplit("_a", 1)[0]
            dst = dep.get_tuple_name(isl.dim_type.out).rsplit("_a", 1)[0]
            if src not in inside or dst not in inside:
                continue
            n_in, n_out = dep.dim(isl.dim_type.in_), dep.dim(isl.dim_type.out)
            ins, outs = [f"i{j}" for j in range(n_in)], [f"o{j}" for j in range(n_out)]
            same = [f"i{d} = o{d}" for d in (region.loops[o].depth for o in outer)]
            for loop in band:
                d = region.loops[loop].depth
                earlier = f"o{d} > i{d}" if region.loops[loop].decreasing else f"o{d} < i{d}"
                cond = " and ".join(same + [earlier])
                back = isl.Map(f"{{ {dep.get_tuple_name(isl.dim_type.in_)}[{', '.join(ins)}] -> "
                               f"{dep.get_tuple_name(isl.dim_type.out)}[{', '.join(outs)}] : {cond} }}")
                if not dep.intersect(back).is_empty():
                    return False
    return True


__all__ = ["legal_tree", "lower_in_dims", "permutable", "reorder_guard"]
