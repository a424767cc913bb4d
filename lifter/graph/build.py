"""Lifting: a polyhedral Region becomes a dataflow graph.

Loops become map scopes over their parametric ranges, statements become
tasklets, containers become access nodes, and every access becomes a memlet
whose subset is computed from the isl access relation: for a tasklet the
element it touches, for a map the range it touches over all its iterations.
The control layer (states, loop regions, conditional regions, transitions) is
then read off the scope tree and the `if`s around each map and tasklet
(graph/control.py).
"""
from __future__ import annotations

import islpy as isl

from lifter.analysis.affine import c_name, isl_name
from lifter.analysis.model import ProgramModel, Region
from lifter.graph.attributes import DataflowGraph, NestAttributes
from lifter.graph.control import build_control
from lifter.graph.nodes import STATE, AccessNode, MapScope, Memlet, Root, Schedule, Scope, Tasklet
from lifter.analysis.ranges import access_range, bound_c, box, pw_to_c, readable


def data_id(container: str) -> str:
    return f"data:{container}"


def build_graphs(model: ProgramModel) -> list[DataflowGraph]:
    return [build_graph(region, model.path) for region in model.regions]


def build_graph(region: Region, path: str) -> DataflowGraph:
    # The polyhedral region rides along so that transformations can prove their legality.
    g = DataflowGraph.of(NestAttributes(region, path, region.live_after))
    g.add_node(STATE, node=Root(region.id, region.function, region.params))
    for key, c in region.containers.items():
        g.add_node(data_id(key), node=AccessNode(key, c.name, c.ndim, c.element, c.kind, c.restrict, c.storage,
                                                 c.declared_in is not None, c.indirect, list(c.dims),
                                                 list(c.strides), c.field))
    for lid, loop in region.loops.items():
        v = region.verdicts[lid]
        g.add_node(lid, node=MapScope(
            lid, loop.var, _bound_text(region, loop, loop.lower), _bound_text(region, loop, loop.upper), loop.step, loop.decreasing,
            Schedule.PARALLEL if v.parallel and not v.condition and not v.shared_scratch else Schedule.SEQUENTIAL, loop.line, loop.column, loop.depth, loop.function,
            loop.offset, loop.var_declared_in_header, _trip_count(region, loop), _max_trip_count(region, loop),
            list(v.reductions), list(v.private), list(v.lastprivate),
            v.reason, v.condition, origin=lid, conditions=list(loop.conditions), var_type=loop.var_type,
            shared_scratch=list(v.shared_scratch)))
    for lid, loop in region.loops.items():
        parent = loop.parent or STATE
        g.add_edge(parent, lid, edge=Scope(_position(region, lid)))
    for sid, stmt in region.statements.items():
        parent = stmt.loops[-1] if stmt.loops else STATE
        g.add_node(sid, node=Tasklet(sid, stmt.code, stmt.line, stmt.opaque_reason, conditions=list(stmt.conditions)))
        g.add_edge(parent, sid, edge=Scope(_position(region, sid)))
        for acc in stmt.accesses:
            subset = box(access_range(acc.relation, len(stmt.loops)))
            wcr = stmt.reduction[1] if stmt.reduction and stmt.reduction[0] == acc.container else None
            memlet = Memlet(acc.container, subset, "1", wcr if acc.is_write else None, not acc.must and acc.is_write,
                            acc.text)
            if acc.is_write:
                g.add_edge(sid, data_id(acc.container), edge=memlet)
            else:
                g.add_edge(data_id(acc.container), sid, edge=memlet)
    for lid, loop in region.loops.items():
        _map_memlets(g, region, lid)
    build_control(g)
    return g


def _symbols(region: Region, loop) -> str:
    """isl parameter list for expressions at a loop's header: parameters and outer variables."""
    outer, parent = [], loop.parent
    while parent is not None:
        outer.append(isl_name(region.loops[parent].var))
        parent = region.loops[parent].parent
    return ", ".join([isl_name(p) for p in region.params] + outer)


def _bound_text(region: Region, loop, bound: str) -> str:
    """A loop bound, simplified by isl and printed for people."""
    try:
        return readable(isl.PwAff(f"[{_symbols(region, loop)}] -> {{ [{bound}] }}"))
    except isl.Error:
        return c_name(bound)


def _trip_count(region: Region, loop) -> str | None:
    count = f"floor((({loop.upper}) - ({loop.lower}))/{loop.step}) + 1"
    try:
        return pw_to_c(isl.PwAff(f"[{_symbols(region, loop)}] -> {{ [{count}] }}"))
    except isl.Error:
        return None


def _max_trip_count(region: Region, loop) -> str | None:
    """The largest trip count over all outer iterations (a triangular loop's longest run), in C."""
    span = None
    for stmt in region.statements.values():
        if loop.id not in stmt.loops:
            continue
        dom = stmt.domain
        n = dom.dim(isl.dim_type.set)
        dom = dom.project_out(isl.dim_type.set, loop.depth + 1, n - loop.depth - 1)
        dom = dom.project_out(isl.dim_type.set, 0, loop.depth).set_tuple_name("L")
        span = dom if span is None else span.union(dom)
    if span is None or span.is_empty():
        return None
    lo, hi = bound_c(span, 0, False), bound_c(span, 0, True)
    if lo is None or hi is None:
        return None
    return f"({hi}) - ({lo}) + 1"


def _position(region: Region, node_id: str) -> int:
    """Textual order of a child in its parent scope (the schedule's beta at that depth)."""
    if node_id in region.statements:
        stmt = region.statements[node_id]
        return stmt.beta[len(stmt.loops)]
    return region.loops[node_id].position


def _map_memlets(g: DataflowGraph, region: Region, loop_id: str) -> None:
    """One memlet per container and direction on the map: the range its iterations move."""
    depth = region.loops[loop_id].depth
    parts: dict[tuple[str, bool], list[tuple[isl.Map, int]]] = {}
    for sid in region.statements_inside(loop_id):
        for acc in region.statements[sid].accesses:
            parts.setdefault((acc.container, acc.is_write), []).append((acc.relation, depth))
    add_map_memlets(g, loop_id, parts)


def add_map_memlets(g: DataflowGraph, map_id: str, parts) -> None:
    """Memlets between a map and the access nodes: {(container, written?): [(access relation, outer
    loops), ...]}, the range of each the union of its parts' `access_range`s, in their order."""
    for (container, is_write), accesses in sorted(parts.items()):
        rng, subset = _map_range(g.nest.map_ranges, accesses)
        memlet = Memlet(container, list(subset), _volume(subset), dynamic=True, range=rng)
        if is_write:
            g.add_edge(map_id, data_id(container), edge=memlet)
        else:
            g.add_edge(data_id(container), map_id, edge=memlet)


def _map_range(cache: dict, accesses: list[tuple[isl.Map, int]]) -> tuple[isl.Set, list[tuple[str, str]]]:
    """The coalesced union of the accesses' ranges and its box, computed once per graph for the same
    accesses (the same relation objects, in the same order, at the same depths). Every rewrite of a
    nest recomputes the memlets of all its maps, most of them over the accesses they had before;
    isl's bounds of each dimension were the cost. The relations are kept in the entry, so their ids
    name them while it lives."""
    key = tuple((id(relation), outer) for relation, outer in accesses)
    hit = cache.get(key)
    if hit is not None and all(kept is relation for kept, (relation, _) in zip(hit[0], accesses)):
        return hit[1], hit[2]
    rng = None
    for relation, outer in accesses:
        r = access_range(relation, outer)
        rng = r if rng is None else rng.union(r)
    rng = rng.coalesce()
    subset = box(rng)
    cache[key] = ([relation for relation, _ in accesses], rng, subset)
    return rng, subset


def _volume(subset) -> str:
    factors = []
    for lo, hi in subset:
        if "?" in (lo, hi):
            return "?"
        if lo == hi:
            continue
        factors.append(f"({hi} - {lo} + 1)" if lo != "0" else f"({hi} + 1)")
    return " * ".join(factors) or "1"
