"""Fusion of producer-consumer sibling maps over the same range, proved legal by isl.

Two maps next to each other in one scope fuse into one when their headers are
the same text (same variable and bounds, so the same range), they come from
different loops at the same depth of the original nest, and one writes data
the other reads (or both write it): the fused map makes one pass over that
data instead of two. The fused tree is checked against every dependence under
the schedule it implies (`legality.legal_tree`), and the fusion is refused when
a map that was parallel would no longer be (fusion must not cost the two
cores). After a fusion the bodies are fused in turn (`for i {for j A}` and
`for i {for j B}` become `for i for j {A B}`). Maps that distribution split
apart (copies of one loop) are not fused back, and maps that declare
variables stay as they are (their declarations would meet in one block).

Consecutive outermost loops are separate regions (one graph each). `fuse_regions`
looks at each loop that follows another directly in its block (nothing but
blanks and comments between their texts) with the same header text and data
in common by name: it analyses the run of loops as one region (the analysis's
`Region.rebuild`), builds its graph and fuses it; the merged graph replaces the
separate ones only if two of its outermost loops fused, so regions stay as
they were everywhere else. A run is at most MAX_RUN loops long (each loop
added analyses the run again), and at most MAX_ATTEMPTS merges are tried per file.
"""
from __future__ import annotations

import re

import islpy as isl

from lifter.analysis.affine import NotAffine
from lifter.analysis.budget import BudgetExceeded
from lifter.analysis.model import Kind, Region
from lifter.analysis.scop import NotModelable
from lifter.analysis.verdicts import Nest, verdict
from lifter.frontend.spans import TokenKind
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE, build_graph
from lifter.graph.nodes import MapScope, Memlet, Schedule, Tasklet, scope_children, scope_descendants
from lifter.transform.legality import legal_tree, reorder_guard
from lifter.transform.rewrite import move_child, origins_above, refresh_map_memlets, refresh_verdicts
from lifter.transform.loop_vars import escaping
from lifter.transform.source_text import attach_source_text


def fuse_maps(g: DataflowGraph, region: Region) -> bool:
    """Fuse producer-consumer sibling maps; True if any fused."""
    if not g.nest.reemittable or escaping(g):
        return False  # moving a loop's statements past another's would change what its variable is read as
    try:
        changed = _fuse_children(g, region, STATE)
    except isl.Error:
        return False  # raised before any fusion was committed: every attempt undoes itself first
    if changed:
        g.nest.restructured = True
        refresh_verdicts(g, region)
    return changed


MAX_RUN = 4  # loops per merged region: each merge analyses the whole run again
MAX_ATTEMPTS = 32  # merges tried per file: a file of a thousand such loops stays quick to lift


def fuse_regions(graphs: list[DataflowGraph], source, spans) -> list[DataflowGraph]:
    """The graphs, with each run of consecutive outermost loops that fuses merged into one graph."""
    out: list[DataflowGraph] = []
    attempts = 0
    for g in graphs:
        merged = None
        if out and attempts < MAX_ATTEMPTS and len(_roots(out[-1])) < MAX_RUN and _neighbours(out[-1], g, spans):
            attempts += 1
            merged = _merged(out[-1], g, source, spans)
        if merged is not None:
            out[-1] = merged
        else:
            out.append(g)
    return out


def _roots(g) -> list:
    region = g.nest.scop
    return sorted((loop for loop in region.loops.values() if loop.parent is None), key=lambda loop: loop.offset)


def _neighbours(first, second, spans) -> bool:
    """`second`'s loop is the statement right after `first`'s (tokens: comments may lie between)
    in the block that holds `first`'s loops, with the same header and data in common (by name:
    the regions' container keys differ)."""
    a, b = first.nest.scop, second.nest.scop
    if a.rebuild is None or a.function != b.function or not (first.nest.reemittable
                                                             and second.nest.reemittable):
        return False
    last, head = scope_children(first, STATE)[-1], scope_children(second, STATE)[0]
    if _normal(first.nodes[last]["node"].header) != _normal(second.nodes[head]["node"].header):
        return False
    start, end = first.nest.text_span
    i, j = spans.index.get(start), spans.index.get(second.nest.text_span[0])
    if i is None or j is None or i == 0 or spans.tokens[j - 1].end != end:
        return False
    before = i - 1
    while before > 0 and spans.tokens[before].kind == TokenKind.DIRECTIVE:
        before -= 1  # `#pragma scop` and other lines of their own before the first loop
    if spans.tokens[before].text not in (";", "{", "}"):
        return False  # the body of an `if`, `else`, loop or label, not an item of a block

    def names(region, written):
        return {region.containers[x.container].name for s in region.statements.values() for x in s.accesses
                if x.is_write == written and region.containers[x.container].kind != Kind.SCALAR}
    return bool(names(a, True) & (names(b, False) | names(b, True)) or names(b, True) & names(a, False))


def _merged(first, second, source, spans):
    """The graph of both regions' loops as one region, if two outermost loops fuse in it."""
    roots = _roots(first) + _roots(second)
    region_id = f"{first.nest.scop.id}{second.nest.scop.id}"
    try:
        region = first.nest.scop.rebuild(region_id, [loop.node for loop in roots])
    except (NotModelable, NotAffine, BudgetExceeded, isl.Error):
        return None
    g = build_graph(region, first.path)
    if not attach_source_text(g, source, spans):
        return None
    reorder_guard(g)
    fuse_maps(g, region)
    if len(scope_children(g, STATE)) == len(scope_children(first, STATE)) + len(scope_children(second, STATE)):
        return None  # the second region's loop fused with none: keep the regions as they were
    return g


def _fuse_children(g, region: Region, scope: str) -> bool:
    changed = False
    kids = scope_children(g, scope)
    k = 0
    while k + 1 < len(kids):
        if _fuse(g, region, kids[k], kids[k + 1]):
            changed = True
            refresh_map_memlets(g, region)  # the fused map now moves both maps' data
            kids = scope_children(g, scope)
        else:
            k += 1
    for child in scope_children(g, scope):
        if isinstance(g.nodes[child]["node"], MapScope):
            changed |= _fuse_children(g, region, child)
    return changed


def _fuse(g, region: Region, first: str, second: str) -> bool:
    """Fuse map `second` into map `first` (its next sibling) if that is legal and pays."""
    a, b = g.nodes[first]["node"], g.nodes[second]["node"]
    if not (isinstance(a, MapScope) and isinstance(b, MapScope)):
        return False
    if a.origin == b.origin or b.origin in a.fused or a.declares or b.declares or a.tile or b.tile:
        return False
    if _normal(a.header) != _normal(b.header) or not a.header:
        return False
    if region.loops[a.origin].depth != region.loops[b.origin].depth:
        return False
    if not _share(g, first, second):
        return False
    was_parallel = a.schedule == Schedule.PARALLEL or b.schedule == Schedule.PARALLEL
    inside = {t for m in (first, second) for t in scope_descendants(g, m) if isinstance(g.nodes[t]["node"], Tasklet)}
    base = len(scope_children(g, first))
    moved = scope_children(g, second)
    for index, child in enumerate(moved):
        move_child(g, child, first, base + index)
    try:
        legal = legal_tree(g, region)
        if legal and was_parallel:
            legal = verdict(region, Nest(a.origin, origins_above(g, first), inside), region.live_after).parallel
    except isl.Error:
        legal = False
    if not legal:
        for index, child in enumerate(moved):
            move_child(g, child, second, index)
        return False
    g.remove_node(second)
    a.fused = a.fused + [b.origin] + b.fused
    a.transformations = a.transformations + ["fusion"]
    return True


def _share(g, first: str, second: str) -> bool:
    """One map writes a container that the other reads or writes (from their map memlets)."""
    def touched(m):
        reads = {u for u, _, d in g.in_edges(m, data=True) if isinstance(d["edge"], Memlet)}
        writes = {v for _, v, d in g.out_edges(m, data=True) if isinstance(d["edge"], Memlet)}
        return reads, writes
    r1, w1 = touched(first)
    r2, w2 = touched(second)
    return bool(w1 & (r2 | w2) or w2 & r1)


def _normal(header: str) -> str:
    return re.sub(r"\s+", "", header)


__all__ = ["fuse_maps", "fuse_regions"]
