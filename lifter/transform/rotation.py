"""Rotation of a row solve: the statements after a triangular inner loop move ahead of it.

LU's lower part, one row `i` of it (and every forward substitution of a row against an upper
triangle) is written as

    for (j = a; j < b; j++) {                       for (k = a; k < b; k++) {
        for (k = a; k < j; k++)                         A[i][k] /= A[k][k];          S2, j := k
            A[i][j] -= A[i][k] * A[k][j];    S1   ->    for (j = k + 1; j < b; j++)
        A[i][j] /= A[j][j];                  S2             A[i][j] -= A[i][k] * A[k][j];   S1
    }                                               }

The inner loop on the left walks a column of A (`A[k][j]` along k: a cache line per element, a
strided load per multiply-add, no vectorization); on the right it streams two rows. The two
nests run the same instances, each S1(j, k) at (k, j) and each S2(j) at the head of iteration
k = j: S2(j) still follows every S1(j, k) (k < j, earlier iterations) and precedes every S1(j', j)
that reads what it wrote. Neither interchange nor distribution makes the right-hand nest: the
statement S2 runs at iterations of the new outer loop that are its own `j`, not a `k` of it. The
rotated map records that (`MapScope.stands_for`: for S2, it runs over dimension `j`), so the
schedule the tree implies, which `legal_tree` checks against every dependence of the region, is
exact for both statements, and S2's text reads `k` where it read `j`. A verdict cannot place such
a map (it asks about one loop of every statement inside): the rotated loop stays sequential
(`rewrite.refresh_verdicts`); the inner loop gets its verdict as any other (parallel for LU: one
row's elements right of the pivot, vectorized).

Applied where the outer map holds the inner loop first and only statements after it, the inner
loop holds only statements, both headers are `for ([type] v = lb; v < ub (or <=); v++)` with the
inner loop's bounds `a` (the outer's lower bound, textually) and `< j`, the statements after it do
not name the inner loop's variable, no statement is opaque or under an `if`, and it pays: fewer
strided accesses in the new innermost loop than in the old one (counted as interchange counts
them, writes twice). Cholesky's row solve `A[i][j] -= A[i][k] * A[j][k]` streams rows as written
and is left alone.
"""
from __future__ import annotations

import networkx as nx

from lifter.analysis.model import Region
from lifter.frontend.spans import word_tokens
from lifter.graph.attributes import nest
from lifter.graph.nodes import MapScope, Memlet, Tasklet, scope_children
from lifter.transform.checkpoint import checkpoint, rollback
from lifter.transform.legality import legal_tree
from lifter.transform.locality import apply_order, loop_fields, stride_kind
from lifter.transform.loop_vars import escaping
from lifter.transform.rewrite import move_child, renamed_memlet, rewrite_nest
from lifter.transform.source_text import rename_identifiers
from lifter.transform.tiling import canonical_header


def rotate_solves(g: nx.MultiDiGraph, region: Region) -> bool:
    """Rotate every row solve of the graph where that pays and isl proves it legal; True if any."""
    if not nest(g).reemittable or escaping(g):
        return False  # the loop variables would leave the nest with other values
    return rewrite_nest(g, region, lambda child: _visit(g, region, child))


def _visit(g, region: Region, node_id: str) -> bool:
    if not isinstance(g.nodes[node_id]["node"], MapScope):
        return False
    if _rotate(g, region, node_id):
        return True
    changed = False
    for child in scope_children(g, node_id):
        changed |= _visit(g, region, child)
    return changed


def _rotate(g, region: Region, outer_id: str) -> bool:
    """Rotate the solve rooted at `outer_id` (see the module doc); True if it did."""
    shape = _solve(g, region, outer_id)
    if shape is None:
        return False
    inner_id, body, after, headers = shape
    outer, inner = g.nodes[outer_id]["node"], g.nodes[inner_id]["node"]
    if not _pays(region, body, inner.origin, outer.origin):
        return False
    saved = checkpoint(g)
    j, k = outer.var, inner.var
    ho, hi = headers
    fo = loop_fields(outer)
    apply_order(g, [outer_id, inner_id], [inner, outer])  # the nodes stay, their loops swap
    rotated, row = g.nodes[outer_id]["node"], g.nodes[inner_id]["node"]
    rotated.header = f"for ({_typed(hi)}{k} = {ho['lb']}; {k} {ho['op']} {ho['ub']}; {k}++)"
    rotated.begin, rotated.end = fo["begin"], fo["end"]
    rotated.trip_count, rotated.max_trip_count = fo["trip_count"], fo["max_trip_count"]
    row.header = f"for ({_typed(ho)}{j} = {k} + 1; {j} {ho['op']} {ho['ub']}; {j}++)"
    row.begin, row.trip_count = f"{k} + 1", None
    depth = region.loops[fo["origin"]].depth
    rotated.stands_for = {t: depth for t in after}
    for position, t in enumerate(after):
        move_child(g, t, outer_id, position)
        _rename(g, t, {j: k})
    move_child(g, inner_id, outer_id, len(after))
    if not legal_tree(g, region):
        rollback(g, saved)
        return False
    for m in (rotated, row):
        m.transformations.append("rotation")
    return True


def _solve(g, region: Region, outer_id: str):
    """(inner map, its statements, the statements after it, the two headers) where `outer_id` roots
    a row solve of the shape rotation takes, else None."""
    outer = g.nodes[outer_id]["node"]
    kids = scope_children(g, outer_id)
    if outer.plan is not None or outer.stands_for or len(kids) < 2 or not isinstance(g.nodes[kids[0]]["node"], MapScope):
        return None
    inner_id, after = kids[0], kids[1:]
    inner = g.nodes[inner_id]["node"]
    body = scope_children(g, inner_id)
    nodes = [g.nodes[t]["node"] for t in body + after]
    if inner.plan is not None or not body or any(not isinstance(n, Tasklet) or n.conditions for n in nodes) \
            or inner.conditions:
        return None
    ho, hi = canonical_header(outer, region), canonical_header(inner, region)
    if ho is None or hi is None or hi["op"] != "<" or hi["ub"].strip() != outer.var \
            or hi["lb"].strip() != ho["lb"].strip() or inner.var in word_tokens(f"{ho['lb']} {ho['ub']}"):
        return None
    if any(region.statements[t].opaque_reason for t in body + after) \
            or any(inner.var in word_tokens(g.nodes[t]["node"].text) for t in after):
        return None
    return inner_id, body, after, (ho, hi)


def _pays(region: Region, body: list[str], inner: str, outer: str) -> bool:
    """Fewer strided accesses of the inner statements along the new innermost loop (`outer`'s)
    than along the old one (writes count twice, as interchange counts them)."""
    def strided(loop: str) -> int:
        depth = region.loops[loop].depth
        return sum(2 if a.is_write else 1 for t in body for a in region.statements[t].accesses
                   if stride_kind(a.relation, depth, len(region.statements[t].loops)) < 0)
    return strided(outer) < strided(inner)


def _typed(header: dict) -> str:
    return f"{header['type']} " if header["type"] else ""


def _rename(g, tasklet: str, names: dict[str, str]) -> None:
    """Rename variables in a statement's text and its memlets (it now runs at another loop's value)."""
    t = g.nodes[tasklet]["node"]
    t.text, t.code = rename_identifiers(t.text, names), rename_identifiers(t.code, names)
    for u, v, key, d in list(g.in_edges(tasklet, keys=True, data=True)) + list(g.out_edges(tasklet, keys=True, data=True)):
        if isinstance(d["edge"], Memlet):
            g.edges[u, v, key]["edge"] = renamed_memlet(d["edge"], names)


__all__ = ["rotate_solves"]
