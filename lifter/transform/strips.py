"""Parallel strips: a parallel innermost loop under a loop that only reduces into its elements, itself
inside one sequential loop, is cut into strips, and the loop over the strips goes above the reducing loop.

LU's row update after interchange, `for i { for k < i { for j >= i: A[i][j] -= A[i][k] * A[k][j] } }`
(and Gram-Schmidt's `R[k][j] += Q[i][k] * A[i][j]` under `for i`): `j` is parallel, `k` carries the
update (as a reduction into the array: parallel over `k` needs a private copy of the row per thread). A parallel region on `j` would be entered once per (i, k), millions of times, so the
profitability guard keeps it sequential. As
`for i { for j_t (parallel, strips of B) { for k { for j in the strip } } }` the region is entered
once per `i`, each thread updates its own strip of the row for every `k`, and the strip (a few
cache lines wide) stays in its cache while `k` runs; the innermost loop is still `j`, unit-stride
and vectorizable, and unroll-and-jam still blocks `k` around it.

That is a tiling of the band (sequential loop, parallel loop) with an untiled outer loop, legal when
the band is permutable (`legality.permutable`); the rewritten tree is checked once more, exactly,
against every dependence (`legality.legal_tree`). The strip width is the innermost tile size of the
cache model (or the last `--tile-sizes` value).
"""
from __future__ import annotations


from lifter.analysis.model import Region
from lifter.frontend.spans import word_tokens
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE
from lifter.graph.nodes import MapScope, Schedule, Scope, Tasklet, scope_children, scope_descendants, scope_parent
from lifter.transform.checkpoint import checkpoint, rollback
from lifter.transform.legality import legal_tree, permutable
from lifter.transform.rewrite import ancestors, move_child, origins_above, refresh_map_memlets, refresh_verdicts
from lifter.transform.tiling import canonical_header, model_sizes, tile_rewrite


def hoist_strips(g: DataflowGraph, region: Region, sizes: tuple[int, ...] = ()) -> bool:
    """Strip and hoist every parallel innermost loop that qualifies (see the module doc); True if any."""
    if not g.nest.reemittable:
        return False
    changed = False
    for node_id in list(g.nodes):
        candidate = _candidate(g, region, node_id)
        if candidate is not None:
            changed |= _hoist(g, region, node_id, candidate, sizes)
    if changed:
        g.nest.restructured = True
        refresh_verdicts(g, region)
        refresh_map_memlets(g, region)
    return changed


def _candidate(g, region: Region, node_id: str) -> str | None:
    """The parallel loop to strip out of reducing map `node_id`, or None."""
    seq = g.nodes[node_id]["node"]
    if not isinstance(seq, MapScope) or seq.tile or seq.declares or seq.declarations:
        return None
    outer = ancestors(g, node_id)
    if len(outer) != 1 or g.nodes[outer[0]]["node"].schedule != Schedule.SEQUENTIAL:
        # Outermost, the sequential loop gets one parallel region around it instead; under a
        # parallel loop the strips would not run in parallel; under two sequential loops the
        # strip loop would still be too deep for a parallel region to pay (parallelize's guard).
        return None
    if seq.schedule != Schedule.PARALLEL or not seq.reductions:
        return None  # only a loop that reduces into the parallel loop's elements (LU's k, trmm's k)
    kids = scope_children(g, node_id)
    if len(kids) != 1 or not isinstance(g.nodes[kids[0]]["node"], MapScope):
        return None
    par = g.nodes[kids[0]]["node"]
    if par.schedule != Schedule.PARALLEL or par.tile or par.declares or par.declarations or par.reductions \
            or par.private or par.lastprivate:
        return None
    inside = scope_children(g, kids[0])
    if not inside or not all(isinstance(g.nodes[t]["node"], Tasklet) for t in inside):
        return None  # innermost loops only: the strip is what the vector loop runs over
    if seq.var in word_tokens(par.header):
        return None  # a triangular parallel loop: its strips would depend on the sequential loop
    if {seq.var, par.var} & set(g.nest.live_after):
        return None  # the loop variables would end with other values
    if any(region.statements[t].opaque_reason for t in inside):
        return None
    return kids[0]


def _hoist(g, region: Region, seq_id: str, par_id: str, sizes) -> bool:
    seq, par = g.nodes[seq_id]["node"], g.nodes[par_id]["node"]
    header = canonical_header(par, region)
    tasklets = scope_descendants(g, par_id)
    if header is None or not permutable(region, [seq.origin, par.origin], origins_above(g, seq_id), tasklets):
        return False
    arrays = len({a.container for t in tasklets for a in region.statements[t].accesses}) or 1
    width = sizes[-1] if sizes else model_sizes(2, arrays)[-1]
    saved = checkpoint(g)
    tile_rewrite(g, region, [par_id], [header], [width])  # the strip loop now sits between seq and par
    strip_id = f"{par_id}.tile"
    parent = scope_parent(g, seq_id)
    order = next(d["edge"].order for d in g.get_edge_data(parent, seq_id).values() if isinstance(d["edge"], Scope))
    move_child(g, strip_id, parent, order)
    move_child(g, seq_id, strip_id, 0)
    move_child(g, par_id, seq_id, 0)
    if parent == STATE or not legal_tree(g, region):
        rollback(g, saved)
        return False
    return True
