"""Rotation of triangular solves: what follows a triangular inner loop moves ahead of it.

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
that reads what it wrote. Neither interchange nor distribution makes the right-hand nest: S2 runs
at iterations of the new outer loop that are its own `j`, not a `k` of it. The rotated map
records that (`MapScope.stands_for`: for S2, it runs over dimension `j`), so the schedule the
tree implies, which `legal_tree` checks against every dependence of the region, is exact for
every statement, and S2's text reads `k` where it read `j`.

The same rotation one level up turns Cholesky's rows into columns: the row loop `i` holds the row
solve (`for (j = 0; j < i; j++) {...}`, the inner loop, with loops inside it) and then the
diagonal element's sum and square root (what follows, renamed `i := j`):

    for (j = 0; j < n; j++) {
        for (k = 0; k < j; k++) A[j][j] -= A[j][k] * A[j][k];
        A[j][j] = sqrt(A[j][j]);
        for (i = j + 1; i < n; i++) {            the column below the diagonal: parallel
            for (k = 0; k < j; k++) A[i][j] -= A[i][k] * A[j][k];
            A[i][j] /= A[j][j];
        }
    }

A verdict cannot place a rotated map (it asks about one loop of every statement inside): it, and
the loops inside it around the statements it stands for, stay sequential
(`rewrite.refresh_verdicts`); the new inner loop gets its verdict as any other.

Applied, inner nests first, where the outer map's first child is the inner map and the headers
are `for ([type] v = lb; v < ub (or <=); v++)`, the inner one from the outer's lower bound
(textually) to `< j`; what follows the inner map does not name its variable; no map involved is
planned, rotated, a tile loop, or carries text of its own (declarations, `if`s), and no statement
is opaque or under an `if`. It pays (`_pays`) where the inner map held only statements and the
new innermost loop walks fewer strided accesses than the old one (counted as interchange counts
them, writes twice), or no more and the new inner loop is parallel where the outer loop was not.
Cholesky's row solve alone (`A[i][k] * A[j][k]`, streaming rows as written) is left as it is.
"""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from lifter.analysis.model import Region
from lifter.analysis.verdicts import Nest, verdict
from lifter.frontend.spans import word_tokens
from lifter.graph.nodes import MapScope, Memlet, Schedule, Tasklet, scope_children, scope_descendants
from lifter.transform.checkpoint import checkpoint, rollback
from lifter.transform.legality import legal_tree
from lifter.transform.locality import apply_order, loop_fields, stride_kind
from lifter.transform.loop_vars import escaping
from lifter.transform.rewrite import move_child, origins_above, renamed_memlet, rewrite_nest
from lifter.transform.source_text import rename_identifiers
from lifter.transform.tiling import canonical_header


def rotate_solves(g: nx.MultiDiGraph, region: Region) -> bool:
    """Rotate every row solve of the graph where that pays and isl proves it legal; True if any."""
    if not g.nest.reemittable or escaping(g):
        return False  # the loop variables would leave the nest with other values
    return rewrite_nest(g, region, lambda child: _visit(g, region, child))


def _visit(g, region: Region, node_id: str) -> bool:
    """Rotate inside first (LU's row solve, inside its row loop), then the map itself."""
    if not isinstance(g.nodes[node_id]["node"], MapScope):
        return False
    changed = False
    for child in scope_children(g, node_id):
        changed |= _visit(g, region, child)
    return _rotate(g, region, node_id) or changed


@dataclass(eq=False)
class _Solve:
    """A nest of the shape rotation takes: the outer map, its first child (the inner, triangular
    map) with the statements below it, and the children after it with theirs."""

    outer: str
    inner: str
    body: list[str]  # the statements below the inner map
    after: list[str]  # the outer map's other children, in order
    after_statements: list[str]
    headers: tuple[dict, dict]  # the outer's and the inner's (canonical_header)


def _rotate(g, region: Region, outer_id: str) -> bool:
    """Rotate the solve rooted at `outer_id` (see the module doc); True if it did."""
    solve = _solve(g, region, outer_id)
    if solve is None or not _pays(g, region, solve):
        return False
    saved = checkpoint(g)
    outer, inner = g.nodes[outer_id]["node"], g.nodes[solve.inner]["node"]
    j, k = outer.var, inner.var
    ho, hi = solve.headers
    fo = loop_fields(outer)
    apply_order(g, [outer_id, solve.inner], [inner, outer])  # the nodes stay, their loops swap
    rotated, row = g.nodes[outer_id]["node"], g.nodes[solve.inner]["node"]
    rotated.header = f"for ({_typed(hi)}{k} = {ho['lb']}; {k} {ho['op']} {ho['ub']}; {k}++)"
    rotated.begin, rotated.end = fo["begin"], fo["end"]
    rotated.trip_count, rotated.max_trip_count = fo["trip_count"], fo["max_trip_count"]
    row.header = f"for ({_typed(ho)}{j} = {k} + 1; {j} {ho['op']} {ho['ub']}; {j}++)"
    row.begin = f"{k} + 1"
    row.trip_count = f"({ho['ub']}) - ({k} + 1)" if ho["op"] == "<" else f"({ho['ub']}) - {k}"
    depth = region.loops[fo["origin"]].depth
    rotated.stands_for = {t: depth for t in solve.after_statements}
    for position, child in enumerate(solve.after):
        move_child(g, child, outer_id, position)
        for node in [child] + scope_descendants(g, child):
            _rename(g, node, {j: k})
    move_child(g, solve.inner, outer_id, len(solve.after))
    if not legal_tree(g, region):
        rollback(g, saved)
        return False
    moved = [g.nodes[n]["node"] for a in solve.after for n in [a] + scope_descendants(g, a)]
    for m in [rotated, row] + [m for m in moved if isinstance(m, MapScope)]:
        m.transformations.append("rotation")
    return True


def _solve(g, region: Region, outer_id: str) -> _Solve | None:
    """The solve rooted at `outer_id`, or None where the nest has another shape."""
    outer = g.nodes[outer_id]["node"]
    kids = scope_children(g, outer_id)
    if _frozen(outer) or len(kids) < 2 or not isinstance(g.nodes[kids[0]]["node"], MapScope):
        return None
    inner_id, after = kids[0], kids[1:]
    inner = g.nodes[inner_id]["node"]
    below = scope_descendants(g, inner_id)
    after_nodes = after + [d for a in after for d in scope_descendants(g, a)]
    maps = [n for n in [inner_id] + below + after_nodes if isinstance(g.nodes[n]["node"], MapScope)]
    statements = [n for n in below + after_nodes if isinstance(g.nodes[n]["node"], Tasklet)]
    if any(_frozen(g.nodes[m]["node"]) for m in maps) or any(g.nodes[t]["node"].conditions for t in statements) \
            or not any(isinstance(g.nodes[n]["node"], Tasklet) for n in below):
        return None
    ho, hi = canonical_header(outer, region), canonical_header(inner, region)
    if ho is None or hi is None or hi["op"] != "<" or hi["ub"].strip() != outer.var \
            or hi["lb"].strip() != ho["lb"].strip() or inner.var in word_tokens(f"{ho['lb']} {ho['ub']}"):
        return None
    if any(region.statements[t].opaque_reason for t in statements):
        return None
    after_text = " ".join(g.nodes[n]["node"].text if n in statements else g.nodes[n]["node"].header
                          for n in after_nodes)
    if inner.var in word_tokens(after_text):
        return None  # what runs after the inner loop must not see its variable (it runs before it now)
    return _Solve(outer_id, inner_id, [t for t in statements if t in below], after,
                  [t for t in statements if t not in below], (ho, hi))


def _frozen(m: MapScope) -> bool:
    """A map rotation leaves where it is: planned, rotated already, a tile loop, or carrying text
    of its own (declarations, statements before or after it, `if`s around it)."""
    return m.plan is not None or bool(m.stands_for) or bool(m.tile) or m.declares or bool(
        m.declarations or m.closing or m.prologue or m.epilogue or m.conditions)


def _pays(g, region: Region, solve: _Solve) -> bool:
    """Where the inner map holds only statements (it was their innermost loop, the outer one will
    be): fewer strided accesses along the new innermost loop than along the old one (writes count
    twice, as interchange counts them), or as many and a parallel new inner loop. Where it holds
    loops, their innermost loops stay: the new inner loop must be parallel. A parallel new inner
    loop pays only where the outer loop was sequential."""
    outer, inner = g.nodes[solve.outer]["node"], g.nodes[solve.inner]["node"]
    leaf = not any(isinstance(g.nodes[c]["node"], MapScope) for c in scope_children(g, solve.inner))

    def strided(loop: str) -> int:
        depth = region.loops[loop].depth
        return sum(2 if a.is_write else 1 for t in solve.body for a in region.statements[t].accesses
                   if stride_kind(a.relation, depth, len(region.statements[t].loops)) < 0)
    before, after = (strided(inner.origin), strided(outer.origin)) if leaf else (0, 0)
    if after < before:
        return True
    if after > before or outer.schedule == Schedule.PARALLEL:
        return False
    above = origins_above(g, solve.outer) + [inner.origin]
    return verdict(region, Nest(outer.origin, above, set(solve.body)), region.live_after).parallel


def _typed(header: dict) -> str:
    return f"{header['type']} " if header["type"] else ""


def _rename(g, node_id: str, names: dict[str, str]) -> None:
    """Rename variables in a statement's text and memlets, or in a loop's header and bounds: it now
    runs at another loop's value."""
    node = g.nodes[node_id]["node"]
    if isinstance(node, MapScope):
        node.header, node.begin, node.end = (rename_identifiers(x, names) for x in (node.header, node.begin, node.end))
        if node.trip_count is not None:
            node.trip_count = rename_identifiers(node.trip_count, names)
        return
    node.text, node.code = rename_identifiers(node.text, names), rename_identifiers(node.code, names)
    edges = list(g.in_edges(node_id, keys=True, data=True)) + list(g.out_edges(node_id, keys=True, data=True))
    for u, v, key, d in edges:
        if isinstance(d["edge"], Memlet):
            g.edges[u, v, key]["edge"] = renamed_memlet(d["edge"], names)


__all__ = ["rotate_solves"]
