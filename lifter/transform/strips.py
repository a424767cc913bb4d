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

Sweeps (`sink_sweeps`, before tiling): a parallel loop around a sequential innermost loop that
carries a recurrence along each of its elements, adi's `for i { for j: p[i][j] = -c / (a * p[i][j - 1]
+ b); ... }`, runs each row's chain of divisions one after another: every step waits for the one
before (tens of cycles), whatever the rows around it. Cut into strips, with the sequential loop
between, `for i_t (parallel) { for j { for i in the strip } } }`, each step runs the strip's
independent rows together (vector lanes and overlapped latencies): adi's sweeps at their large
size took 2.2 s on one thread against 5.7 s tiled as before (kernel timer, loaded machine). A
parallel loop with other children too is distributed first (each sweep then gets its strips;
a distribution that sinks no sweep is undone). Where it is inside a loop, only inside one
sequential loop (a time loop), as above; the strips are `SWEEP_STRIP` wide at most, and the
rewritten tree is checked by `legal_tree` (a scalar the rows share, privatized per row, keeps
the rows apart).
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
from lifter.transform.locality import distribute
from lifter.transform.rewrite import (ancestors, move_child, origins_above, refresh_map_memlets, refresh_verdicts,
                                     rewrite_nest)
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
    width = _width(region, tasklets, sizes, seq.schedule == Schedule.SEQUENTIAL)
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


def _width(region: Region, tasklets, sizes, sweep: bool) -> int:
    """The strip width: the last `--tile-sizes` value, else the cache model's innermost tile size,
    at most SWEEP_STRIP for a sweep (a sequential loop carrying a dependence along each element)."""
    arrays = len({a.container for t in tasklets for a in region.statements[t].accesses}) or 1
    width = sizes[-1] if sizes else model_sizes(2, arrays)[-1]
    return min(width, SWEEP_STRIP) if sweep and not sizes else width


def sink_sweeps(g: DataflowGraph, region: Region, sizes: tuple[int, ...] = ()) -> bool:
    """Cut the parallel loops around sweeps into strips with the sweeps inside (module doc)."""
    if not g.nest.reemittable:
        return False
    return rewrite_nest(g, region, lambda child: _sweeps_in(g, region, child, sizes, 0))


def _sweeps_in(g, region: Region, node_id: str, sizes, depth: int) -> bool:
    node = g.nodes[node_id]["node"]
    if not isinstance(node, MapScope) or node.tile or node.declares:
        return False
    if node.schedule == Schedule.PARALLEL:
        return _sweep_rows(g, region, node_id, sizes)
    if depth > 0:
        return False  # under two sequential loops the strips' region would start too often
    changed = False
    for child in scope_children(g, node_id):
        changed |= _sweeps_in(g, region, child, sizes, depth + 1)
    return changed


def _sweep(g, par_id: str, seq_id: str) -> bool:
    """Map `seq_id`, a child of parallel map `par_id`, is a sweep to sink: sequential, innermost,
    its bounds free of the parallel loop's variable, nothing opaque inside."""
    seq, par = g.nodes[seq_id]["node"], g.nodes[par_id]["node"]
    if not isinstance(seq, MapScope) or seq.schedule != Schedule.SEQUENTIAL or seq.tile or seq.declares \
            or seq.declarations or par.var in word_tokens(seq.header):
        return False
    kids = scope_children(g, seq_id)
    region = g.nest.scop
    return bool(kids) and all(isinstance(g.nodes[t]["node"], Tasklet) and not region.statements[t].opaque_reason
                              for t in kids)


def _sweep_rows(g, region: Region, par_id: str, sizes) -> bool:
    par = g.nodes[par_id]["node"]
    if par.declarations or par.reductions or par.private or par.lastprivate or par.condition \
            or par.shared_scratch or canonical_header(par, region) is None:
        return False
    kids = scope_children(g, par_id)
    if not any(_sweep(g, par_id, k) for k in kids):
        return False
    saved = checkpoint(g)
    copies = [par_id] if len(kids) == 1 else distribute(g, region, par_id)
    sunk = False
    for copy in copies:
        inside = scope_children(g, copy)
        if len(inside) == 1 and _sweep(g, copy, inside[0]):
            sunk |= _sink(g, region, copy, inside[0], sizes)
    if not sunk:
        rollback(g, saved)
    return sunk


def _sink(g, region: Region, par_id: str, seq_id: str, sizes) -> bool:
    """`par { seq { statements } }` becomes `strips of par { seq { par in the strip { statements } } }`."""
    par, seq = g.nodes[par_id]["node"], g.nodes[seq_id]["node"]
    if {seq.var, par.var} & set(g.nest.live_after):
        return False  # the loop variables would end with other values
    tasklets = scope_children(g, seq_id)
    saved = checkpoint(g)
    strip_id = tile_rewrite(g, region, [par_id], [canonical_header(par, region)],
                            [_width(region, tasklets, sizes, True)])[0]
    move_child(g, seq_id, strip_id, 0)
    move_child(g, par_id, seq_id, 0)
    for position, t in enumerate(tasklets):
        move_child(g, t, par_id, position)
    if not legal_tree(g, region):
        rollback(g, saved)
        return False
    return True
