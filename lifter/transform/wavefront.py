"""Skewed tiling run as wavefronts, for perfect nests that no loop of which is parallel.

A Gauss-Seidel sweep inside a time loop (`A[i][j] = f(A[i-1][..], A[i][j-1], A[i+1][..])`)
carries dependences along every loop, some with negative distances (t+1 reads i-1 written at
t): nothing is parallel and the band cannot be tiled as written. Skewing makes it permutable:
each loop's new coordinate adds multiples of the skewed coordinates outside it,

    z_k = (x_k - L_k) + sum_{l<k} a_kl * z_l        (a_kl in 0..3, L_k the loop's lower bound)

(seidel2d: z_t = t, z_i = i - 1 + z_t, z_j = j - 1 + z_i). The smallest coefficients that give
every dependence of the band (between instances at equal outer iterations) a non-negative
distance along every z_k are chosen dimension by dimension, by isl on the dependence distances.
The skewed band is tiled rectangularly (tile index T_k = z_k / S_k; all z_k >= 0, so C division
is floor); tiles whose indices differ only by non-negative amounts depend on one another only
forward, so the tiles of one wavefront `T_p + T_q = w` of the two innermost tile dimensions
(p, q = p + 1) are independent. The nest becomes

    tile loops of dims < p (sequential)          for (long t_t = ...; t_t <= ...; t_t += S)
      wavefront loop w (sequential)              #pragma omp parallel   (around it)
        tile loop of dim p (omp for)             for (long i_t = S * lo(w); i_t <= S * hi(w); i_t += S)
          tile loops of dims > q (sequential)    (dim q's tile start is S * (w - i_t / S))
            point loops x_0 .. x_{n-1}, in the original order, each limited to its tile and to
            its original bounds:  for (int i = max(L, L + i_t - sub); i <= min(U, L + i_t + S-1 - sub); i++)

The statements keep the user's text and the original loop variables: within a tile the point
loops run in the original lexicographic order, which is also the skewed one (z_k grows with
x_k at fixed outer coordinates). Tile loop bounds cover every non-empty tile (a few empty
ones at the edges cost a bound test); the point loops are exact. Legality is proved by isl,
not assumed: the schedule the nest implies (tile indices, wavefront, point coordinates,
statement order, read-before-write) must order every dependence of the band forward, and no
dependence may join two tiles of one wavefront.

Applied (after parallelization, only to nests it left sequential) where: the band has at least
two loops, none parallel, headers `for (int|long v = lb; v < ub (or <=); v++)` declaring their
variable with bounds free of other band variables (rectangular), no declarations in the body,
no opaque statements, no pointers that may overlap in a way no run-time test rules out, and
the work (iterations x statements) is above the parallel-work threshold when it is constant
(a run-time `if` on the parallel region otherwise). The dims p, q are the two innermost: the
outer ones (a time loop) stay sequential, so even few time steps leave many tiles per wavefront.

Tile sizes: `--tile-sizes` (outermost first, the last repeats), else 32 along every dim, as
Pluto does: a skewed 32 x 32 x 32 tile of seidel2d touches about (32 + 32) x (32 + 64) doubles,
inside L1, and 32-wide wavefronts keep two threads busy (on seidel2d at its bench size, 1500 x
1500 x 40 steps, the tiles of each wavefront split between two threads leave the slower thread
4% more work than half; 64-wide tiles 9%). The two wavefront dims always get the same size
(dim q's tile range is then a function of T_p).
"""
from __future__ import annotations

import itertools

import islpy as isl
import networkx as nx

from lifter.analysis.affine import isl_name
from lifter.analysis.budget import BudgetExceeded, isl_budget
from lifter.analysis.model import Region
from lifter.frontend.spans import word_tokens
from lifter.graph.build import STATE
from lifter.graph.nodes import MapScope, OmpPlan, OmpRegion, Scope, scope_children, \
    scope_parent
from lifter.transform.locality import (_lower_in_dims, move_child, origins_above, perfect_band, refresh_map_memlets,
                                       reorder_guard, restore, snapshot)
from lifter.transform.tiling import canonical_header, fresh_name, nest_names

MAX_SKEW = 3  # coefficients tried per pair of dimensions: 0..MAX_SKEW
OUTER_SIZE, WAVE_SIZE = 32, 32
SIGNED_TYPES = ("int", "long", "long int", "long long", "long long int")


def wavefront_nests(g: nx.MultiDiGraph, region: Region, sizes: tuple[int, ...] = (), min_work: int = 0) -> None:
    """Skew, tile and run as wavefronts every qualifying band of the graph (see module doc)."""
    if not g.graph.get("reemittable") or reorder_guard(g).startswith("!"):
        return
    saved = snapshot(g)
    changed = False
    try:
        for child in scope_children(g, STATE):
            changed |= _visit(g, region, child, sizes, min_work)
    except isl.Error:
        restore(g, saved)  # isl could not decide something: keep the nest as it was
        return
    if changed:
        g.graph["restructured"] = True
        refresh_map_memlets(g, region)


def _visit(g, region: Region, node_id: str, sizes, min_work: int) -> bool:
    node = g.nodes[node_id]["node"]
    if not isinstance(node, MapScope) or node.plan is not None or node.parallel_region is not None:
        return False  # already parallel (or a parallel region): leave it to parallelization
    band = perfect_band(g, node_id)
    if len(band) >= 2 and _wavefront(g, region, band, sizes, min_work):
        return True
    changed = False
    for child in scope_children(g, node_id):
        changed |= _visit(g, region, child, sizes, min_work)
    return changed


# -- the decision ------------------------------------------------------------------------
def _wavefront(g, region: Region, band: list[str], sizes, min_work: int) -> bool:
    maps = [g.nodes[b]["node"] for b in band]
    if any(m.schedule == "parallel" or m.plan is not None or m.declares for m in maps):
        return False
    headers = [canonical_header(m, region) for m in maps]
    if any(h is None or h["type"] not in SIGNED_TYPES or not m.var_declared_in_header
           for h, m in zip(headers, maps)):
        return False  # unsigned or outside variables: the bound arithmetic below needs signed ints
    band_vars = {m.var for m in maps}
    if any(word_tokens(f"{h['lb']} {h['ub']}") & band_vars for h in headers):
        return False  # not rectangular
    tasklets = scope_children(g, band[-1])
    if any(region.statements[t].opaque_reason for t in tasklets):
        return False
    work = _work(headers, len(tasklets))
    if isinstance(work, int) and work < max(min_work, 1):
        return False
    n = len(band)
    chosen = list(sizes) if sizes else [OUTER_SIZE] * (n - 2) + [WAVE_SIZE, WAVE_SIZE]
    chosen = [chosen[min(d, len(chosen) - 1)] for d in range(n)]
    chosen[-1] = chosen[-2]  # the wavefront dims share one size (see module doc)
    depths = [region.loops[m.origin].depth for m in maps]
    outer = [region.loops[o].depth for o in origins_above(g, band[0])]
    try:
        with isl_budget():
            deps = _band_dependences(region, tasklets, outer)
            skew = find_skew(deps, depths)
            if skew is None or not _legal(region, tasklets, deps, depths, skew, chosen, maps):
                return False
    except BudgetExceeded:
        return False
    _rewrite(g, band, headers, skew, chosen, work if isinstance(work, str) and min_work else "", min_work)
    return True


def _band_dependences(region: Region, tasklets: list[str], outer: list[int]) -> list[isl.Map]:
    """Every dependence between the band's statements at equal iterations of the loops around it."""
    inside = set(tasklets)
    out = []
    for kind in ("flow", "anti", "output"):
        parts = []
        region.dependences[kind].foreach_map(parts.append)
        for dep in parts:
            src = dep.get_tuple_name(isl.dim_type.in_).rsplit("_a", 1)[0]
            dst = dep.get_tuple_name(isl.dim_type.out).rsplit("_a", 1)[0]
            if src not in inside or dst not in inside:
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


def find_skew(deps: list[isl.Map], depths: list[int]) -> list[list[int]] | None:
    """Lower-triangular skew coefficients a[k][l] (l < k) making every band distance non-negative
    along every skewed dimension, the smallest first, dimension by dimension; None if none exists."""
    distances = [_distances(d, depths) for d in deps]
    n = len(depths)
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


def _distances(dep: isl.Map, depths: list[int]) -> isl.Set:
    """The set of distance vectors along the band's loops (target minus source)."""
    src, dst = dep.get_tuple_name(isl.dim_type.in_), dep.get_tuple_name(isl.dim_type.out)
    ins = ", ".join(f"i{j}" for j in range(dep.dim(isl.dim_type.in_)))
    outs = ", ".join(f"o{j}" for j in range(dep.dim(isl.dim_type.out)))
    diff = ", ".join(f"o{d} - i{d}" for d in depths)
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


def _upper(h: dict) -> str:
    return h["ub"] if h["op"] == "<=" else f"{h['ub']} - 1"


# -- legality ----------------------------------------------------------------------------
def _legal(region: Region, tasklets: list[str], deps: list[isl.Map], depths: list[int], skew, sizes,
           maps: list[MapScope]) -> bool:
    """The tiled wavefront schedule orders every band dependence forward, and no dependence joins
    two tiles of one wavefront (the parallel loop's iterations)."""
    n = len(depths)
    p = n - 2
    lowers = [_lower_in_dims(region, region.loops[m.origin]) for m in maps]
    z = []
    for k in range(n):
        z.append(" + ".join([f"(i{depths[k]} - ({lowers[k]}))"] + [f"{a} * ({z[l]})" for l, a in enumerate(skew[k]) if a]))
    tiles = [f"floor(({z[k]})/{sizes[k]})" for k in range(n)]
    prefix = tiles[:p] + [f"{tiles[p]} + {tiles[p + 1]}", tiles[p]]
    schedule, parallel = [], []
    params = f"[{', '.join(isl_name(x) for x in region.params)}] -> " if region.params else ""
    for order, sid in enumerate(tasklets):
        stmt = region.statements[sid]
        iters = ", ".join(f"i{k}" for k in range(len(stmt.loops)))
        for phase, acc in enumerate(sorted(stmt.accesses, key=lambda a: a.is_write)):
            dims = prefix + tiles[p + 2:] + [f"i{d}" for d in depths] + [str(order), str(phase)]
            schedule.append(isl.Map(f"{params}{{ {acc.id}[{iters}] -> [{', '.join(dims)}] }}"))
            parallel.append(isl.Map(f"{params}{{ {acc.id}[{iters}] -> [{', '.join(prefix)}] }}"))
    full, par = _union(schedule), _union(parallel)
    for dep in deps:
        d = isl.UnionMap.from_map(dep)
        times = d.apply_domain(full).apply_range(full)
        for m in _maps(times):
            if not m.is_subset(isl.Map.lex_lt(m.get_space().domain())):
                return False
        for m in _maps(d.apply_domain(par).apply_range(par)):
            width = m.dim(isl.dim_type.in_)
            ins, outs = [f"a{j}" for j in range(width)], [f"b{j}" for j in range(width)]
            same_wave = " and ".join(f"a{j} = b{j}" for j in range(width - 1))
            across = isl.Map(f"{{ [{', '.join(ins)}] -> [{', '.join(outs)}] : {same_wave} and "
                             f"a{width - 1} != b{width - 1} }}")
            if not m.intersect(across).is_empty():
                return False
    return True


def _union(maps: list[isl.Map]) -> isl.UnionMap:
    out = isl.UnionMap.from_map(maps[0])
    for m in maps[1:]:
        out = out.union(isl.UnionMap.from_map(m))
    return out


def _maps(u: isl.UnionMap) -> list[isl.Map]:
    out = []
    u.foreach_map(out.append)
    return out


# -- the rewrite -------------------------------------------------------------------------
def _max(a: str, b: str) -> str:
    return f"({a} > {b} ? {a} : {b})"


def _min(a: str, b: str) -> str:
    return f"({a} < {b} ? {a} : {b})"


def _paren(text: str) -> str:
    return text if text.replace("_", "").isalnum() else f"({text})"


def _plus(terms: list[str]) -> str:
    """`a + b + ...` without zero terms."""
    terms = [t for t in terms if t != "0"]
    return " + ".join(terms) if terms else "0"


def _minus(a: str, b: str) -> str:
    return a if b == "0" else f"{a} - {_paren(b)}"


def _times(a: int, x: str) -> str:
    return x if a == 1 else f"{a} * {_paren(x)}"


def _rewrite(g, band: list[str], headers: list[dict], skew, sizes: list[int], work: str, min_work: int) -> None:
    """Put the tile loops, the wavefront loop and the parallel tile loop above the band, and
    limit the band's loops (now point loops) to one tile (see the module doc for the bounds)."""
    n = len(band)
    p, q = n - 2, n - 1
    maps = [g.nodes[b]["node"] for b in band]
    taken = nest_names(g)
    lower = [h["lb"].strip() for h in headers]
    upper = [_upper(h) for h in headers]
    extent = [_paren(_minus(u, lb)) for u, lb in zip(upper, lower)]  # the largest z_k without skew
    start = [fresh_name(f"{m.var}_t", taken) for m in maps]  # tile starts along z_k
    wave = fresh_name("wave", taken)
    size, a_q = sizes[p], skew[q][p]
    start[q] = f"{size} * ({wave} - {start[p]} / {size})"

    def low(k, upto):  # the least z_k in the tiles the starts of dims < upto select
        return _plus([_times(a, start[l]) for l, a in enumerate(skew[k][:upto]) if a])

    def high(k, upto):  # the greatest
        return _plus([extent[k]] + [_times(a, f"{start[l]} + {sizes[l] - 1}") for l, a in enumerate(skew[k][:upto]) if a])

    chain = []
    for k in range(p):
        first = "0" if low(k, k) == "0" else f"{_paren(low(k, k))} / {sizes[k]} * {sizes[k]}"
        chain.append(_tile_map(maps[k], f"{band[k]}.tile", start[k], sizes[k], first, high(k, k)))
    # Wavefront w = T_p + T_q; T_q lies in [c0 + a T_p, d0 + a T_p] (a = skew[q][p]).
    p_lo, p_hi = _div(low(p, p), size), _div(high(p, p), size)
    c0, d0 = _div(low(q, p), size), _div(_plus([high(q, p), str(a_q * (size - 1))]), size)
    k1 = 1 + a_q
    w_first, w_last = _plus([_times(k1, p_lo), c0]), _plus([_times(k1, p_hi), d0])
    wave_map = MapScope(f"{band[p]}.wave", wave, w_first, w_last, 1, False, "sequential", maps[p].line,
                        maps[p].column, maps[p].depth, maps[p].function, maps[p].offset, True, None, None,
                        origin=maps[p].origin, span=maps[p].span,
                        header=f"for (long {wave} = {w_first}; {wave} <= {w_last}; {wave}++)",
                        reason="each wavefront of tiles reads what the ones before wrote")
    wave_map.parallel_region = OmpRegion(condition=f"{work} > {min_work}L" if work else "")
    ceil = f"({wave} - {d0} + {a_q}) / {k1}" if a_q else f"{wave} - {d0}"
    floor = f"({_minus(wave, c0)}) / {k1}" if a_q else _minus(wave, c0)
    par = _tile_map(maps[p], f"{band[p]}.tile", start[p], size, f"{size} * {_max(p_lo, ceil)}",
                    f"{size} * {_min(p_hi, floor)}")
    par.schedule, par.reason, par.plan = "parallel", "", OmpPlan(worksharing=True)
    chain += [wave_map, par]
    parent = above = scope_parent(g, band[0])
    order = next(d["edge"].order for d in g.get_edge_data(parent, band[0]).values() if isinstance(d["edge"], Scope))
    done = (["skew"] if any(any(r) for r in skew) else []) + ["wavefront"]
    for m in chain:
        g.add_node(m.id, node=m)
        g.add_edge(above, m.id, edge=Scope(order if above == parent else 0))
        m.transformations = list(done)
        above = m.id
    move_child(g, band[0], above, 0)
    # Point loops: z_k within its tile, x_k within its original bounds.
    z = []
    for k, (m, h) in enumerate(zip(maps, headers)):
        sub = _plus([_times(a, z[l]) for l, a in enumerate(skew[k]) if a])
        z.append(_plus([_minus(m.var, lower[k]), sub]))
        first = _max(_paren(lower[k]), _paren(_minus(_plus([lower[k], start[k]]), sub)))
        last = _min(_paren(upper[k]), _paren(_minus(_plus([lower[k], start[k], str(sizes[k] - 1)]), sub)))
        m.header = f"for ({h['type']} {m.var} = {first}; {m.var} <= {last}; {m.var}++)"
        m.begin, m.end = first, last
        m.trip_count = m.max_trip_count = None
        m.reason = m.reason or "runs inside one tile, in the original order"
        m.transformations += done
    for m in chain + maps:
        m.depth = _depth(g, m.id)


def _div(x: str, size: int) -> str:
    return "0" if x == "0" else f"{_paren(x)} / {size}"


def _tile_map(m: MapScope, node_id: str, var: str, size: int, first: str, last: str) -> MapScope:
    """A map over the starts of tiles along one skewed dimension (`tile` = its size)."""
    return MapScope(node_id, var, first, last, size, False, "sequential", m.line, m.column, m.depth, m.function,
                    m.offset, True, None, None, origin=m.origin, tile=size, span=m.span,
                    header=f"for (long {var} = {first}; {var} <= {last}; {var} += {size})",
                    reason="its tiles need what earlier tiles wrote")


def _depth(g, node_id: str) -> int:
    depth, parent = 0, scope_parent(g, node_id)
    while parent != STATE:
        depth, parent = depth + 1, scope_parent(g, parent)
    return depth


__all__ = ["find_skew", "wavefront_nests"]
