"""Parallel strips: a parallel innermost loop under a loop that only reduces into its elements, or
that carries a dependence along each of its elements, itself inside one sequential loop, is cut into
strips, and the loop over the strips goes above the reducing or carrying loop.

LU's row update after interchange, `for i { for k < i { for j >= i: A[i][j] -= A[i][k] * A[k][j] } }`
(and Gram-Schmidt's `R[k][j] += Q[i][k] * A[i][j]` under `for i`): `j` is parallel, `k` carries the
update (as a reduction into the array: parallel over `k` needs a private copy of the row per thread). A parallel region on `j` would be entered once per (i, k), millions of times, so the
profitability guard keeps it sequential. As
`for i { for j_t (parallel, strips of B) { for k { for j in the strip } } }` the region is entered
once per `i`, each thread updates its own strip of the row for every `k`, and the strip (a few
cache lines wide) stays in its cache while `k` runs; the innermost loop is still `j`, unit-stride
and vectorizable, and unroll-and-jam still blocks `k` around it.

adi's column sweep after interchange, `for t { for j (down) { for i: v[j][i] = p[i][j] * v[j + 1][i]
+ q[i][j] } }`, is the other case: `j` carries the sweep, but only along each `i`, so the strips of
`i` are independent (checked: `i` placed above `j` must be parallel with nothing to reduce), and
`for t { for i_t (parallel) { for j { for i in the strip } } }` starts one team per `t` where the
region around `j` would pay a barrier per `j` for a row of work.

That is a tiling of the band (sequential loop, parallel loop) with an untiled outer loop, legal when
the band is permutable (`legality.permutable`); the rewritten tree is checked once more, exactly,
against every dependence (`legality.legal_tree`). The strip width is the innermost tile size of the
cache model (or the last `--tile-sizes` value).
"""
from __future__ import annotations


from lifter.analysis.model import Region
from lifter.analysis.verdicts import Nest, verdict
from lifter.frontend.spans import word_tokens
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE
from lifter.graph.nodes import MapScope, Schedule, Scope, Tasklet, scope_children, scope_descendants, scope_parent
from lifter.transform.checkpoint import checkpoint, rollback
from lifter.transform.legality import legal_tree, permutable
from lifter.transform.rewrite import ancestors, move_child, origins_above, refresh_map_memlets, refresh_verdicts
from lifter.transform.tiling import canonical_header, model_sizes, tile_rewrite


# The widest strip of a sweep (a sequential loop carrying a dependence along each element). adi's
# sweep reads p[i][j] across the strip: one cache line per element, each reused over the next 8
# steps of j, so 64 elements keep 2 x 64 lines (8 KiB) in L1; and a row of 700 gives 11 strips,
# 6 and 5 for two threads, where 256 gave 3 (2 and 1).
SWEEP_STRIP = 64


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
    if seq.schedule == Schedule.PARALLEL and not seq.reductions:
        return None  # a parallel loop is parallelized where it is
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


def _parallel_above(g, region: Region, seq_id: str, par: MapScope, tasklets) -> bool:
    """The parallel loop stays parallel, with nothing to reduce, placed above the sequential loop:
    every dependence the sequential loop carries keeps its element of the parallel loop (adi's
    column sweep `v[j][i] = ... v[j + 1][i]`), so the strips are independent."""
    placed = verdict(region, Nest(par.origin, origins_above(g, seq_id), set(tasklets)), region.live_after)
    return placed.parallel and not placed.reductions


def _hoist(g, region: Region, seq_id: str, par_id: str, sizes) -> bool:
    seq, par = g.nodes[seq_id]["node"], g.nodes[par_id]["node"]
    header = canonical_header(par, region)
    tasklets = scope_descendants(g, par_id)
    if header is None or not permutable(region, [seq.origin, par.origin], origins_above(g, seq_id), tasklets):
        return False
    if seq.schedule == Schedule.SEQUENTIAL and not _parallel_above(g, region, seq_id, par, tasklets):
        return False
    arrays = len({a.container for t in tasklets for a in region.statements[t].accesses}) or 1
    width = sizes[-1] if sizes else model_sizes(2, arrays)[-1]
    if seq.schedule == Schedule.SEQUENTIAL and not sizes:
        width = min(width, SWEEP_STRIP)
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
