"""Rewrites of the scope tree that several passes share, and what must follow a rewrite.

Moving a child to another parent, shifting sibling orders, copying a map under a fresh id, the
chain of maps above a node; after a pass changed the tree, `refresh_verdicts` and
`refresh_map_memlets` recompute what depends on a map's place in it (its verdict, the ranges
its iterations touch). The passes (locality, tiling, strips, fusion, wavefront, unroll) call
these rather than edit scope edges themselves; `rewrite_nest` is the frame the searching passes
(locality, tiling, wavefront) share around their rewrites of the root's subtrees.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import islpy as isl

from lifter.analysis.model import LoopVerdict, Region
from lifter.analysis.verdicts import Nest, original_nest, verdict
from lifter.frontend.names import fresh_name
from lifter.graph.build import STATE, add_map_memlets
from lifter.graph.nodes import (MapScope, Memlet, Schedule, Scope, Tasklet, scope_children, scope_descendants,
                                scope_parent)
from lifter.transform.checkpoint import checkpoint, rollback
from lifter.transform.source_text import rename_identifiers

ROTATED = "part of a rotated triangular solve, whose iterations read what the ones before wrote"


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


def copy_map(m: MapScope, new_id: str) -> MapScope:
    """A copy of a map under a new id, without its parallel plan (list fields not shared)."""
    return dataclasses.replace(m, id=new_id, plan=None, reductions=list(m.reductions), private=list(m.private),
                               lastprivate=list(m.lastprivate), transformations=list(m.transformations),
                               fused=list(m.fused), declarations=list(m.declarations),
                               closing=list(m.closing), prologue=list(m.prologue), epilogue=list(m.epilogue))


def renamed_memlet(e: Memlet, names: dict[str, str]) -> Memlet:
    """A tasklet's memlet with the variables `names` maps replaced (a copy for other loop values)."""
    return dataclasses.replace(e, subset=[(rename_identifiers(a, names), rename_identifiers(b, names))
                                          for a, b in e.subset], text=rename_identifiers(e.text, names),
                               range=None)  # the isl range is over the old names


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
    it carries at most the dependences that loop carries there. A rotated loop (`MapScope.stands_for`)
    runs other dimensions of some statements than its origin's, which a verdict cannot place: it, and
    every loop inside it around such statements, stays sequential (it carries the solve it was
    rotated for).
    """
    for n, d in g.nodes(data=True):
        m = d["node"]
        if not isinstance(m, MapScope):
            continue
        inside = {t for t in scope_descendants(g, n) if isinstance(g.nodes[t]["node"], Tasklet)}
        rotated = any(g.nodes[a]["node"].stands_for.keys() & inside for a in ancestors(g, n) + [n])
        v = LoopVerdict(False, reason=ROTATED) if rotated \
            else verdict(region, Nest(m.origin, origins_above(g, n), inside), region.live_after)
        written = region.verdicts.get(m.origin)
        if not rotated and not v.parallel and written is not None and written.shared_scratch \
                and placed_as_written(g, n, region, inside):
            v = written
        m.schedule = Schedule.PARALLEL if v.parallel and not v.shared_scratch and not v.condition \
            else Schedule.SEQUENTIAL
        m.reductions, m.private, m.lastprivate, m.reason = list(v.reductions), list(v.private), \
            list(v.lastprivate), v.reason
        # A value condition holds only for the nest as written (verdicts.value_verdict, which `verdict`
        # does not make); a shared scratch buffer's verdict (verdicts.shared_scratch_verdict) also where
        # only the inside was reshaped; the sizes' tests of its statements (`Statement.assumed`) anywhere.
        m.condition = v.condition
        m.shared_scratch = list(v.shared_scratch)
        m.depth = len(ancestors(g, n))


def placed_as_written(g, node_id: str, region: Region, inside: set[str]) -> bool:
    """Whether the map is its loop where the user wrote it: the same loops around it (no tile loop
    among them, nor itself one) and the same statements inside, however those were reordered.

    A verdict of the nest as written then still holds. It speaks of which statement instances run
    in which iteration of the loop, and of the dependences between them: a legal reshaping of the
    inside (every dependence kept in order, `legality.legal_tree`) changes neither, so each read
    still reads the write it read as written, in the same iteration."""
    m = g.nodes[node_id]["node"]
    above = [g.nodes[a]["node"] for a in ancestors(g, node_id)]
    if m.origin not in region.loops or m.tile or any(a.tile for a in above):
        return False
    written = original_nest(region, m.origin)
    return [a.origin for a in above] == written.outer and inside == written.inside


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
        parts: dict[tuple[str, bool], list[tuple[isl.Map, int]]] = {}
        for t in scope_descendants(g, n):
            if not isinstance(g.nodes[t]["node"], Tasklet):
                continue
            stmt = region.statements[t]
            outer = len(above) if stmt.loops[:len(above)] == above else 0
            for acc in stmt.accesses:
                parts.setdefault((acc.container, acc.is_write), []).append((acc.relation, outer))
        add_map_memlets(g, n, parts)


def rewrite_nest(g, region: Region, rewrite: Callable[[str], bool], verdicts: bool = True) -> bool:
    """Run `rewrite` on each map or tasklet at the root (it rewrites that subtree and says whether
    it changed it); True if any changed.

    isl may fail to decide a question on the way (an isl.Error): then the whole nest is rolled back
    to what it was before, since a half-done search may have left some subtrees rewritten. After
    a change the nest is marked restructured (backends re-emit it whole) and the map memlets are
    recomputed; so are the verdicts, unless `verdicts` is False: the wavefront pass sets the
    schedules of the maps it makes itself, which a verdict of the new tree would not reproduce.
    """
    saved = checkpoint(g)
    changed = False
    try:
        for child in scope_children(g, STATE):
            changed |= rewrite(child)
    except isl.Error:
        rollback(g, saved)  # isl could not decide something: keep the nest as it was
        return False
    if changed:
        g.nest.restructured = True
        if verdicts:
            refresh_verdicts(g, region)
        refresh_map_memlets(g, region)
    return changed


__all__ = ["ROTATED", "ancestors", "copy_map", "fresh_id", "fresh_name", "move_child", "origins_above",
           "placed_as_written", "refresh_map_memlets", "refresh_verdicts", "renamed_memlet", "rewrite_nest", "shift_orders"]
