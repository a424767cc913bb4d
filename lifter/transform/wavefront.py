"""Skewed (and fused) tiling run as wavefronts, for time loops around stencil sweeps.

A Gauss-Seidel sweep inside a time loop (`A[i][j] = f(A[i-1][..], A[i][j-1], A[i+1][..])`)
carries dependences along every loop, some with negative distances (t+1 reads i-1 written at
t): nothing is parallel and the band cannot be tiled as written. Skewing makes it permutable:
each loop's new coordinate adds multiples of the skewed coordinates outside it,

    z_k = (y_k - L_k) + sum_{l<k} a_kl * z_l        (a_kl in 0..3, L_k the loop's lower bound)

(seidel2d: z_t = t, z_i = i - 1 + z_t, z_j = j - 1 + z_i; y_k = x_k, the loop's variable). The
smallest coefficients that give every dependence of the band (between instances at equal outer
iterations) a non-negative distance along every z_k are chosen dimension by dimension, by isl
on the dependence distances. The skewed band is tiled rectangularly (tile index T_k = z_k / S_k;
all z_k >= 0, so C division is floor); tiles whose indices differ only by non-negative amounts
depend on one another only forward, so the tiles of one wavefront `T_p + T_q = w` of the two
innermost tile dimensions (p, q = p + 1) are independent. The nest becomes

    tile loops of dims < p (sequential)          for (long t_t = ...; t_t <= ...; t_t += S)
      wavefront loop w (sequential)              #pragma omp parallel   (around it)
        tile loop of dim p (omp for)             for (long i_t = S * lo(w); i_t <= S * hi(w); i_t += S)
          point loops x_0 .. x_{n-1}, in the original order, each limited to its tile and to
          its original bounds:  for (int i = max(L, L + i_t - sub); i <= min(U, L + i_t + S-1 - sub); i++)
          (dim q's tile start is S * (w - i_t / S): it needs no loop)

The statements keep the user's text and the original loop variables: within a tile the point
loops run in the original lexicographic order, which is also the skewed one (z_k grows with
x_k at fixed outer coordinates). Tile loop bounds cover every non-empty tile (a few empty
ones at the edges cost a bound test); the point loops are exact.

Jacobi sweeps (a time loop around two or more sibling nests of one depth and one range, like
jacobi2d's `B = f(A); A = B`) are fused first: nest s runs at fused coordinates y = x + h_s,
the shifts h_s (0..2 per dim, the smallest first) found together with the skew (jacobi2d: the
copy runs one row behind). The shared loops (t) are point loops as above; the fused dims
except the last get new loops (`for (long i_f = ...)`), inside which each nest's loop runs
at its place (`for (i = max(lb, i_f - h); i <= min(ub, i_f - h); i++)`), and each nest's
innermost loop walks the tile's window of the last dim, shifted back; nests run one after
another inside the innermost fused loop.

Legality is proved by isl, not assumed: the schedule the nest implies (tile indices, wavefront,
shared and fused coordinates, nest, innermost coordinate, statement order, reads before writes)
must order every dependence of the band forward, and no dependence may join two tiles of one
wavefront. Statements outside the band keep their place relative to it.

Applied (after parallelization) to a perfect band of two to four loops none of which is
parallel, or to a time loop (sequential) around fused sweeps of a 2-D grid, whose parallel
plans it replaces; where every header is `for ([type] v = lb; v < ub (or <=); v++)` with bounds
free of band variables (rectangular), no body declares variables, no statement is opaque, no
loop variable is read after the nest, no pointers may overlap in a way no run-time test rules
out, and the work (iterations x statements) is above the parallel-work threshold when it is
constant (a run-time `if` on the parallel region otherwise). Variables declared outside the
nest are private to the region; bounds are compared as `long` (negative windows). Fused sweeps
of 1-D and 3-D grids are left alone: measured (CPU time, one thread), jacobi1d took 1.27 s
against 1.14 s with per-sweep loops (its rows already stream through L2 and get shorter in a
tile), heat3d 2.95 s (1.27 s with the best sizes tried) against 1.39 s; jacobi2d 0.44 s against
0.86 s.

Tile sizes: `--tile-sizes` (outermost first, the last repeats), else 32 along every dim, as
Pluto does: a skewed 32 x 32 x 32 tile of seidel2d touches about (32 + 32) x (32 + 64) doubles,
inside L1, and 32-wide wavefronts keep two threads busy (on seidel2d at its bench size, 1500 x
1500 x 40 steps, the tiles of each wavefront split between two threads leave the slower thread
4% more work than half; 64-wide tiles 9%); fused sweeps vectorize their innermost loops and
take 128 along the two wavefront dims (jacobi2d: 0.44 s with 32 x 128 x 128 tiles, 0.65 s with
16 x 64 x 64). The two
wavefront dims always get the same size (dim q's tile range is then a function of T_p).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import islpy as isl

from lifter.analysis.affine import isl_name
from lifter.analysis.budget import BudgetExceeded, isl_budget
from lifter.analysis.model import Region
from lifter.frontend.spans import parenthesized, word_tokens
from lifter.graph.attributes import DataflowGraph
from lifter.graph.nodes import MapScope, OmpPlan, OmpRegion, Schedule, Scope, scope_children, scope_parent
from lifter.transform.diagonal import diagonal_nest
from lifter.transform.legality import lower_in_dims, reorder_guard
from lifter.transform.locality import perfect_band
from lifter.transform.rewrite import ancestors, fresh_name, move_child, origins_above, rewrite_nest
from lifter.transform.loop_vars import escaping
from lifter.transform.team_start import work_condition, work_parts
from lifter.transform.tiling import canonical_header, nest_names

MAX_SKEW = 3  # coefficients tried per pair of dimensions: 0..MAX_SKEW
MAX_SHIFT = 2  # offsets tried per fused nest and dimension: 0..MAX_SHIFT
FUSED_DIMS = 3  # fused sweeps pay only as a time loop around 2-D sweeps (see the module doc)
OUTER_SIZE, WAVE_SIZE, FUSED_WAVE_SIZE = 32, 32, 128
SIGNED_TYPES = ("int", "long", "long int", "long long", "long long int")


def wavefront_nests(g: DataflowGraph, region: Region, sizes: tuple[int, ...] = (), min_work: int = 0,
                    text: str = "") -> bool:
    """Skew, tile and run as wavefronts every qualifying band of the graph (see module doc), or
    else its outermost nests as diagonal wavefronts (`diagonal.py`, which keeps loop bodies as
    `text`, the user's file, has them); True if any."""
    if reorder_guard(g).startswith("!"):
        return False
    if not g.nest.reemittable:
        return bool(text) and g.nest.text_span is not None and \
            rewrite_nest(g, region, lambda child: diagonal_nest(g, region, child, min_work, text), verdicts=False)
    return rewrite_nest(g, region, lambda child: _visit(g, region, child, sizes, min_work, text), verdicts=False)


def _visit(g, region: Region, node_id: str, sizes, min_work: int, text: str) -> bool:
    node = g.nodes[node_id]["node"]
    if not isinstance(node, MapScope) or node.plan is not None:
        return False  # already parallel: leave it to parallelization
    band = find_band(g, node_id)
    if band is not None and _wavefront(g, region, band, sizes, min_work):
        return True
    if text and not ancestors(g, node_id) and diagonal_nest(g, region, node_id, min_work, text):
        return True
    if node.parallel_region is not None:
        return False
    changed = False
    for child in scope_children(g, node_id):
        changed |= _visit(g, region, child, sizes, min_work, text)
    return changed


@dataclass(eq=False)
class Band:
    """The loops that become one skewed, tiled band.

    `shared` maps (outermost first) hold either one perfect nest (`nests == [[]]`: the shared
    maps are the whole band, statements in the last) or two or more sibling nests of one depth
    and the same bounds (a time loop around Jacobi sweeps), whose loops are fused: nest s runs
    at fused coordinates `x + shifts[s]`."""

    shared: list[str]
    nests: list[list[str]]
    tasklets: list[list[str]]  # per nest, its statements in order
    shifts: list[list[int]] = field(default_factory=list)  # per nest, per band dim (0 on shared dims)

    def dims(self, s: int) -> list[str]:
        return self.shared + self.nests[s]


def find_band(g, node_id: str) -> Band | None:
    """The band rooted at a map: a perfect nest of two or more loops, or a chain of maps around
    sibling perfect nests of one depth (statements only in their innermost loops)."""
    band = perfect_band(g, node_id)
    if len(band) >= 2:
        return Band(band, [[]], [scope_children(g, band[-1])])
    chain = [node_id]
    while True:
        kids = scope_children(g, chain[-1])
        if g.nodes[chain[-1]]["node"].declares or not kids \
                or not all(isinstance(g.nodes[k]["node"], MapScope) for k in kids):
            return None
        if len(kids) >= 2:
            break
        chain.append(kids[0])
    nests = [perfect_band(g, k) for k in kids]
    if len({len(n) for n in nests}) != 1 or len(chain) + len(nests[0]) != FUSED_DIMS:
        return None
    tasklets = [scope_children(g, n[-1]) for n in nests]
    if any(isinstance(g.nodes[t]["node"], MapScope) for ts in tasklets for t in ts):
        return None
    return Band(chain, nests, tasklets)


# -- the decision ------------------------------------------------------------------------
def _wavefront(g, region: Region, band: Band, sizes, min_work: int) -> bool:
    fused = band.nests != [[]]
    every = band.shared + [m for nest in band.nests for m in nest]
    maps = {b: g.nodes[b]["node"] for b in every}
    if any(m.declares for m in maps.values()) or any(maps[b].schedule == Schedule.PARALLEL for b in band.shared):
        return False  # a loop of the band is parallel already (nested sweeps may be: they are fused)
    if not fused and any(m.plan is not None for m in maps.values()):
        return False
    headers = {b: canonical_header(m, region) for b, m in maps.items()}
    if any(h is None for h in headers.values()):
        return False
    names = {m.var for m in maps.values()}
    if any(word_tokens(f"{h['lb']} {h['ub']}") & names for h in headers.values()):
        return False  # not rectangular
    if escaping(g, every):
        return False  # the loop variables end with other values after the rewritten nest
    for k in range(len(band.nests[0])):
        if len({(headers[n[k]]["lb"], headers[n[k]]["op"], headers[n[k]]["ub"]) for n in band.nests}) != 1:
            return False  # fused loops need one range
    statements = [t for ts in band.tasklets for t in ts]
    if any(region.statements[t].opaque_reason for t in statements):
        return False
    work = _work([headers[b] for b in band.dims(0)], len(statements))
    if isinstance(work, int) and work < max(min_work, 1):
        return False
    n = len(band.dims(0))
    wave_size = FUSED_WAVE_SIZE if fused else WAVE_SIZE
    chosen = list(sizes) if sizes else [OUTER_SIZE] * (n - 2) + [wave_size, wave_size]
    chosen = [chosen[min(d, len(chosen) - 1)] for d in range(n)]
    chosen[-1] = chosen[-2]  # the wavefront dims share one size (see module doc)
    if not sizes and any(_one_tile(headers[b], size) for b, size in zip(band.dims(0)[-2:], chosen[-2:])):
        return False  # (sizes the user chose are tiled as asked)
    outer = [region.loops[o].depth for o in origins_above(g, band.shared[0])]
    try:
        with isl_budget():
            skew = _schedule(g, region, band, outer, chosen)
    except BudgetExceeded:
        return False
    if skew is None:
        return False
    guard = ""
    if min_work:  # (the threads' start too: team_start.py)
        size, team = work_parts(work, min_work)
        guard = work_condition(size, team)
        if size and word_tokens(size) - {"long"} <= set(region.params):
            # Below the size test the tiles would run one after the other, each row of a tile
            # with bounds of its own: the nest as written runs instead (jacobi_2d at its default
            # N = 40, TSTEPS = 6: 2.2 times the instructions of the serial build in the tiles).
            g.nest.worth = f"{g.nest.worth} || {size}" if g.nest.worth else size
    _rewrite(g, band, headers, skew, chosen, guard)
    return True


def _schedule(g, region: Region, band: Band, outer: list[int], sizes: list[int]) -> list[list[int]] | None:
    """Shifts (on `band`) and skew of the first legal tiled wavefront schedule, the smallest first."""
    statements = [t for ts in band.tasklets for t in ts]
    deps = _band_dependences(region, statements, outer)
    nest_of = {t: s for s, ts in enumerate(band.tasklets) for t in ts}
    depths = [[region.loops[g.nodes[b]["node"].origin].depth for b in band.dims(s)] for s in range(len(band.nests))]
    m, n = len(band.shared), len(band.dims(0))
    choices = itertools.product(range(MAX_SHIFT + 1), repeat=(n - m) * (len(band.nests) - 1))
    for flat in sorted(choices, key=lambda c: (sum(c), c)):
        shifts = [[0] * n] + [[0] * m + list(flat[(s - 1) * (n - m):s * (n - m)]) for s in range(1, len(band.nests))]
        distances = [_distances(d, *[(depths[nest_of[_statement(d, side)]], shifts[nest_of[_statement(d, side)]])
                                     for side in (isl.dim_type.in_, isl.dim_type.out)]) for d in deps]
        skew = find_skew(distances, n)
        if skew is not None and _legal(g, region, band, shifts, deps, depths, skew, sizes):
            band.shifts = shifts
            return skew
    return None


def _statement(dep: isl.Map, side) -> str:
    return dep.get_tuple_name(side).rsplit("_a", 1)[0]


def _band_dependences(region: Region, statements: list[str], outer: list[int]) -> list[isl.Map]:
    """Every dependence between the band's statements at equal iterations of the loops around it."""
    inside = set(statements)
    out = []
    for kind in ("flow", "anti", "output"):
        parts = []
        region.dependences[kind].foreach_map(parts.append)
        for dep in parts:
            if _statement(dep, isl.dim_type.in_) not in inside or _statement(dep, isl.dim_type.out) not in inside:
                continue
            n_in, n_out = dep.dim(isl.dim_type.in_), dep.dim(isl.dim_type.out)
            same = " and ".join(f"i{d} = o{d}" for d in outer) or "true"
            equal = isl.Map(f"{{ {dep.get_tuple_name(isl.dim_type.in_)}[{', '.join(f'i{j}' for j in range(n_in))}]"
                            f" -> {dep.get_tuple_name(isl.dim_type.out)}[{', '.join(f'o{j}' for j in range(n_out))}]"
                            f" : {same} }}")
            dep = dep.intersect(equal)
            if not dep.is_empty():
                out.append(dep)
    return out


def find_skew(distances: list[isl.Set], n: int) -> list[list[int]] | None:
    """Lower-triangular skew coefficients a[k][l] (l < k) making every band distance non-negative
    along every skewed dimension, the smallest first, dimension by dimension; None if none exists."""
    forms: list[list[int]] = []  # z_k as a linear form of the original distances
    skew: list[list[int]] = []
    for k in range(n):
        for coeffs in sorted(itertools.product(range(MAX_SKEW + 1), repeat=k), key=lambda c: (sum(c), c)):
            form = [1 if m == k else 0 for m in range(n)]
            for l, a in enumerate(coeffs):
                form = [f + a * x for f, x in zip(form, forms[l])]
            if all(_nonnegative(d, form) for d in distances):
                forms.append(form)
                skew.append(list(coeffs))
                break
        else:
            return None
    return skew


def _distances(dep: isl.Map, source: tuple[list[int], list[int]], target: tuple[list[int], list[int]]) -> isl.Set:
    """The distance vectors (target minus source) along the band's dims; `source` and `target`
    give each side's (iteration dim of every band dim, shift of every band dim)."""
    src, dst = dep.get_tuple_name(isl.dim_type.in_), dep.get_tuple_name(isl.dim_type.out)
    ins = ", ".join(f"i{j}" for j in range(dep.dim(isl.dim_type.in_)))
    outs = ", ".join(f"o{j}" for j in range(dep.dim(isl.dim_type.out)))
    diff = ", ".join(f"o{dt} + {ht} - i{ds} - {hs}" for ds, hs, dt, ht in zip(*source, *target))
    return dep.wrap().apply(isl.Map(f"{{ [{src}[{ins}] -> {dst}[{outs}]] -> [{diff}] }}"))


def _nonnegative(distances: isl.Set, form: list[int]) -> bool:
    dims = [f"d{m}" for m in range(len(form))]
    expr = " + ".join(f"{c} * {x}" for c, x in zip(form, dims) if c) or "0"
    negative = isl.Set(f"{{ [{', '.join(dims)}] : {expr} < 0 }}")
    return distances.intersect(negative).is_empty()


def _work(headers: list[dict], statements: int) -> int | str:
    """Iterations x statements of the band: an int when constant, else C text."""
    trips = [f"(({_upper(h)}) - ({h['lb']}) + 1)" for h in headers]
    try:
        return statements * eval_product(trips)
    except ValueError:
        return " * ".join([f"{statements}L"] + [f"(long){t}" for t in trips])


def eval_product(trips: list[str]) -> int:
    """The product of integer constant expressions (digits, + - * and parentheses only)."""
    total = 1
    for t in trips:
        if not set(t) <= set("0123456789+-*() "):
            raise ValueError(t)
        total *= max(0, int(eval(t, {"__builtins__": {}})))  # noqa: S307 - digits and operators only
    return total


def _one_tile(h: dict, size: int) -> bool:
    """The loop runs at most `size` iterations, a constant: along it the band has one tile, so
    a wavefront of it and the other wavefront dim holds one tile (the skew puts the tiles of
    the other dim in waves of their own): nothing would run in parallel, and every wave would
    pay a barrier (a counter nest `for (i < m) for (b < 4) x[n++] = ...`)."""
    try:
        return eval_product([f"(({_upper(h)}) - ({h['lb']}) + 1)"]) <= size
    except ValueError:
        return False


def _upper(h: dict) -> str:
    return h["ub"] if h["op"] == "<=" else f"{h['ub']} - 1"


# -- legality ----------------------------------------------------------------------------
def _legal(g, region: Region, band: Band, shifts, deps: list[isl.Map], depths: list[list[int]], skew, sizes) -> bool:
    """The tiled wavefront schedule orders every band dependence forward, and no dependence joins
    two tiles of one wavefront (the parallel loop's iterations).

    Statement instance -> [tiles before p, T_p + T_q, T_p, y_0 .. y_{n-2}, nest, y_{n-1}, order,
    phase], y the fused coordinates: nests run one after another inside the innermost fused
    loop, each statement's accesses reads first."""
    n = len(depths[0])
    p = n - 2
    params = f"[{', '.join(isl_name(x) for x in region.params)}] -> " if region.params else ""
    schedule, parallel = {}, {}
    for s, tasklets in enumerate(band.tasklets):
        lowers = [lower_in_dims(region, region.loops[g.nodes[b]["node"].origin]) for b in band.dims(s)]
        y = [f"i{depths[s][k]} + {shifts[s][k]}" for k in range(n)]
        z = []
        for k in range(n):
            skewed = [f"{a} * ({z[l]})" for l, a in enumerate(skew[k]) if a]
            z.append(" + ".join([f"({y[k]} - ({lowers[k]}))"] + skewed))
        tiles = [f"floor(({z[k]})/{sizes[k]})" for k in range(n)]
        prefix = tiles[:p] + [f"{tiles[p]} + {tiles[p + 1]}", tiles[p]]
        for order, sid in enumerate(tasklets):
            stmt = region.statements[sid]
            iters = ", ".join(f"i{k}" for k in range(len(stmt.loops)))
            for phase, acc in enumerate(sorted(stmt.accesses, key=lambda a: a.is_write)):
                dims = prefix + y[:-1] + [str(s), y[-1], str(order), str(phase)]
                schedule[acc.id] = isl.Map(f"{params}{{ {acc.id}[{iters}] -> [{', '.join(dims)}] }}")
                parallel[acc.id] = isl.Map(f"{params}{{ {acc.id}[{iters}] -> [{', '.join(prefix)}] }}")
    for dep in deps:
        # Through the two accesses' own schedules, not the union of all: the same maps, found
        # without isl matching every access of the band against the pair (seconds per nest).
        source, sink = dep.get_tuple_name(isl.dim_type.in_), dep.get_tuple_name(isl.dim_type.out)
        if source not in schedule or sink not in schedule:
            continue  # an access outside the band: the union's image of it would be empty
        m = dep.apply_domain(schedule[source]).apply_range(schedule[sink])
        if not m.is_subset(isl.Map.lex_lt(m.get_space().domain())):
            return False
        m = dep.apply_domain(parallel[source]).apply_range(parallel[sink])
        width = m.dim(isl.dim_type.in_)
        ins, outs = [f"a{j}" for j in range(width)], [f"b{j}" for j in range(width)]
        same_wave = " and ".join(f"a{j} = b{j}" for j in range(width - 1))
        across = isl.Map(f"{{ [{', '.join(ins)}] -> [{', '.join(outs)}] : {same_wave} and "
                         f"a{width - 1} != b{width - 1} }}")
        if not m.intersect(across).is_empty():
            return False
    return True


# -- the rewrite -------------------------------------------------------------------------
def _max(a: str, b: str) -> str:
    return f"({a} > {b} ? {a} : {b})"


def _min(a: str, b: str) -> str:
    return f"({a} < {b} ? {a} : {b})"


def _paren(text: str) -> str:
    """`text` safe as an operand: names, numbers and casts `(long)(...)` stay as they are."""
    if text.replace("_", "").isalnum() or text.startswith("(long)(") and parenthesized(text[6:]):
        return text
    return f"({text})"


def _plus(terms: list[str]) -> str:
    """`a + b + ...` without zero terms."""
    terms = [t for t in terms if t != "0"]
    return " + ".join(terms) if terms else "0"


def _minus(a: str, b: str) -> str:
    return a if b == "0" else f"{a} - {_paren(b)}"


def _times(a: int, x: str) -> str:
    return x if a == 1 or x == "0" else f"{a} * {_paren(x)}"


def _rewrite(g, band: Band, headers: dict, skew, sizes: list[int], guard: str) -> None:
    """Put the tile loops, the wavefront loop and the parallel tile loop above the band, limit the
    shared loops to one tile, add the fused loops, and limit each nest's loops to its place in
    them (see the module doc for the bounds)."""
    m, n = len(band.shared), len(band.dims(0))
    p, q = n - 2, n - 1
    first_dims = [g.nodes[b]["node"] for b in band.dims(0)]
    taken = nest_names(g)
    widest = [max(band.shifts[s][k] for s in range(len(band.nests))) for k in range(n)]
    lower = [_long(headers[b]["lb"]) for b in band.dims(0)]
    extent = [_paren(_plus([_minus(_long(_upper(headers[b])), lower[k]), str(widest[k])]))
              for k, b in enumerate(band.dims(0))]  # the largest fused coordinate minus the least
    start = [fresh_name(f"{x.var}_t", taken) for x in first_dims]  # tile starts along z_k
    wave = fresh_name("wave", taken)
    size, a_q = sizes[p], skew[q][p]
    start[q] = f"{size} * ({wave} - {start[p]} / {size})"

    def low(k, upto):  # the least z_k in the tiles the starts of dims < upto select
        return _plus([_times(a, start[l]) for l, a in enumerate(skew[k][:upto]) if a])

    def high(k, upto):  # the greatest
        return _plus([extent[k]] + [_times(a, f"{start[l]} + {sizes[l] - 1}")
                                    for l, a in enumerate(skew[k][:upto]) if a])

    chain = []
    for k in range(p):
        first = "0" if low(k, k) == "0" else f"{_paren(low(k, k))} / {sizes[k]} * {sizes[k]}"
        chain.append(_tile_map(first_dims[k], f"{band.dims(0)[k]}.tile", start[k], sizes[k], first, high(k, k)))
    # Wavefront w = T_p + T_q; T_q lies in [c0 + a T_p, d0 + a T_p] (a = skew[q][p]).
    p_lo, p_hi = _div(low(p, p), size), _div(high(p, p), size)
    c0, d0 = _div(low(q, p), size), _div(_plus([high(q, p), str(a_q * (size - 1))]), size)
    k1 = 1 + a_q
    w_first, w_last = _plus([_times(k1, p_lo), c0]), _plus([_times(k1, p_hi), d0])
    at = first_dims[p]
    wave_map = MapScope(f"{band.dims(0)[p]}.wave", wave, w_first, w_last, 1, False, Schedule.SEQUENTIAL, at.line,
                        at.column, at.depth, at.function, at.offset, True, None, None, origin=at.origin, span=at.span,
                        header=f"for (long {wave} = {w_first}; {wave} <= {w_last}; {wave}++)", var_type="long",
                        reason="each wavefront of tiles reads what the ones before wrote")
    every = band.shared + [b for nest in band.nests for b in nest]
    outside = sorted({g.nodes[b]["node"].var for b in every if not g.nodes[b]["node"].var_declared_in_header})
    wave_map.parallel_region = OmpRegion(private=outside, guard=guard)
    ceil = f"({wave} - {d0} + {a_q}) / {k1}" if a_q else f"{wave} - {d0}"
    floor = f"({_minus(wave, c0)}) / {k1}" if a_q else _minus(wave, c0)
    par = _tile_map(at, f"{band.dims(0)[p]}.tile", start[p], size, f"{size} * {_max(p_lo, ceil)}",
                    f"{size} * {_min(p_hi, floor)}")
    par.schedule, par.reason, par.plan = Schedule.PARALLEL, "", OmpPlan(worksharing=True)
    chain += [wave_map, par]
    parent = above = scope_parent(g, band.shared[0])
    order = next(d["edge"].order for d in g.get_edge_data(parent, band.shared[0]).values()
                 if isinstance(d["edge"], Scope))
    done = (["shift"] if any(any(h) for h in band.shifts) else []) \
        + (["skew"] if any(any(r) for r in skew) else []) + ["wavefront"]
    for x in chain:
        g.add_node(x.id, node=x)
        g.add_edge(above, x.id, edge=Scope(order if above == parent else 0))
        x.transformations = list(done)
        above = x.id
    move_child(g, band.shared[0], above, 0)

    # Point loops: z_k within its tile, every coordinate within its bounds.
    z = []  # z_k in C, over the loop variables of the shared dims and of the fused loops
    fused_vars = []

    def window(k):  # the least and greatest fused coordinate along dim k in this tile, given outer ones
        sub = _plus([_times(a, z[l]) for l, a in enumerate(skew[k]) if a])
        return (_minus(_plus([lower[k], start[k]]), sub), _minus(_plus([lower[k], start[k], str(sizes[k] - 1)]), sub))

    for k in range(n):
        lo, hi = window(k)
        if k < m:  # a shared loop
            x, h = first_dims[k], headers[band.shared[k]]
            _point(x, h, _max(_paren(lower[k]), _paren(lo)), _min(_paren(_long(_upper(h))), _paren(hi)))
            coordinate = _value(x, h)
        elif k < n - 1:  # a fused loop of the nests' dimension k, then each nest's loop at its place
            var = fresh_name(f"{first_dims[k].var}_f", taken)
            top = _plus([_long(_upper(headers[band.dims(0)[k]])), str(widest[k])])
            first, last = _max(_paren(lower[k]), _paren(lo)), _min(_paren(top), _paren(hi))
            x = first_dims[k]
            fused = MapScope(f"{band.dims(0)[k]}.fused", var, first, last, 1, False, Schedule.SEQUENTIAL, x.line,
                             x.column, x.depth, x.function, x.offset, True, None, None, origin=x.origin,
                             span=x.span, header=f"for (long {var} = {first}; {var} <= {last}; {var}++)", var_type="long",
                             transformations=list(done), reason="the fused loops of the nests")
            fused_vars.append(fused)
            for s, nest in enumerate(band.nests):
                y, h = g.nodes[nest[k - m]]["node"], headers[nest[k - m]]
                at_place = _minus(var, str(band.shifts[s][k]))
                _point(y, h, _max(_paren(_long(h["lb"])), _paren(at_place)),
                       _min(_paren(_long(_upper(h))), _paren(at_place)))
            coordinate = var
        else:  # each nest's innermost loop over the tile's window, shifted back
            for s, nest in enumerate(band.nests):
                y, h = g.nodes[nest[-1]]["node"], headers[nest[-1]]
                shift = str(band.shifts[s][k])
                _point(y, h, _max(_paren(_long(h["lb"])), _paren(_minus(lo, shift))),
                       _min(_paren(_long(_upper(h))), _paren(_minus(hi, shift))))
        if k < n - 1:
            skewed = _plus([_times(a, z[l]) for l, a in enumerate(skew[k]) if a])
            z.append(_plus([_minus(coordinate, lower[k]), skewed]))
    above = band.shared[-1]
    kids = scope_children(g, above)
    for x in fused_vars:
        g.add_node(x.id, node=x)
        g.add_edge(above, x.id, edge=Scope(0))
        above = x.id
    for position, kid in enumerate(kids if fused_vars else []):
        move_child(g, kid, above, position)
    for b in every:
        x = g.nodes[b]["node"]
        x.transformations += done
        x.plan, x.parallel_region, x.simd = None, None, False
        x.schedule, x.reason = Schedule.SEQUENTIAL, x.reason or "runs inside one tile of a wavefront, in the original order"
    for x in chain + fused_vars + [g.nodes[b]["node"] for b in every]:
        x.depth = len(ancestors(g, x.id))


def _point(m: MapScope, h: dict, first: str, last: str) -> None:
    """Rewrite a loop of the band into a point loop from `first` to `last` (C over long values)."""
    m.header = f"for ({h['type'] + ' ' if h['type'] else ''}{m.var} = {first}; {_value(m, h)} <= {last}; {m.var}++)"
    m.begin, m.end = first, last
    m.trip_count = m.max_trip_count = None


def _value(m: MapScope, h: dict) -> str:
    """A loop variable as a signed long in C: itself when declared `int` or `long` in the header."""
    return m.var if h["type"] in SIGNED_TYPES else f"(long){m.var}"


def _long(text: str) -> str:
    """A bound as a signed long, so that unsigned bounds compare right with negative windows."""
    text = text.strip()
    return text if text.isdigit() else f"(long)({text})"


def _div(x: str, size: int) -> str:
    return "0" if x == "0" else f"{_paren(x)} / {size}"


def _tile_map(m: MapScope, node_id: str, var: str, size: int, first: str, last: str) -> MapScope:
    """A map over the starts of tiles along one skewed dimension (`tile` = its size)."""
    return MapScope(node_id, var, first, last, size, False, Schedule.SEQUENTIAL, m.line, m.column, m.depth, m.function,
                    m.offset, True, None, None, origin=m.origin, tile=size, span=m.span,
                    header=f"for (long {var} = {first}; {var} <= {last}; {var} += {size})", var_type="long",
                    reason="its tiles need what earlier tiles wrote")


__all__ = ["Band", "find_band", "find_skew", "wavefront_nests"]
