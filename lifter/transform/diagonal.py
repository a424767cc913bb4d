"""Diagonal wavefronts: a two-loop nest whose iterations depend only on earlier diagonals.

Nussinov's table fill, `for (i = n - 1; i >= 0; i--) for (j = i + 1; j < n; j++) { ...
table[i][j] from table[i][j - 1], table[i + 1][j], table[i][k] and table[k + 1][j] ... }`,
carries dependences along both loops, and its body (statements, an inner `k` loop, `if`s) is no
perfect band for the tiled wavefronts of `wavefront.py`. But every dependence between two
iterations (i, j) increases `j - i`: the cells of one anti-diagonal `j - i = w` are independent.
The nest becomes

    #pragma omp parallel                          (around the diagonals: threads start once)
    for (long w = w_first; w <= w_last; w++)      (sequential: each diagonal reads the ones before)
      #pragma omp for
      for (i = i_first(w); i <= i_last(w); i++)   (the cells of diagonal w)
        for (j = i + w; j <= i + w; j++)          (the one cell of row i on it)
          the body, as written

The diagonal is `w = a * x + b * y` (x, y the two loops' variables, a and b +1 or -1), the first
form whose every dependence between statement instances of the nest at different (x, y) has
`a * dx + b * dy >= 1`, checked by isl on the region's dependences (flow, anti and output): the
diagonals then run in an order that keeps every such dependence forward, and none joins two
cells of one diagonal. Instances of one cell keep the body's order. The ranges (w's, and x's
on diagonal w) are the exact projections of the loops' domain, by isl, so the inner loop runs
exactly once for each cell of the original nest; the inner loop's original bounds hold there.

Applied (after parallelization) to an outermost nest that stays sequential: the outer map with
one child, the inner map, neither parallel and nothing inside planned; unit steps; no body that
declares variables, no opaque statement, no loop variable read after the nest, no pointers that
may overlap in a way no run-time test rules out (`wavefront_nests` checks the nest's guard); the
ranges single affine pieces. The diagonals share a parallel region whose barrier (one per
diagonal) is far cheaper than a thread start; it runs in parallel when the nest's work (its
statement instances, counted by isl) passes the parallel-work threshold, as a wavefront's does.
"""
from __future__ import annotations

import islpy as isl

from lifter.analysis.affine import isl_name
from lifter.analysis.budget import BudgetExceeded, isl_budget
from lifter.analysis.count import add_polys, constant, count_points, poly_to_c
from lifter.analysis.model import Region
from lifter.graph.nodes import (MapScope, OmpPlan, OmpRegion, Schedule, Scope, Tasklet, scope_children,
                                scope_descendants, scope_parent)
from lifter.analysis.ranges import pw_to_c
from lifter.transform.loop_vars import escaping
from lifter.transform.rewrite import fresh_name, move_child
from lifter.transform.team_start import work_condition, work_parts
from lifter.transform.tiling import nest_names

# Diagonals w = a * x + b * y tried, in order: anti-diagonals first (the dynamic programs').
FORMS = ((-1, 1), (1, -1), (1, 1), (-1, -1))
SEQUENTIAL_DIAGONALS = "each diagonal reads what the diagonals before it wrote"


def diagonal_nest(g, region: Region, node_id: str, min_work: int, text: str) -> bool:
    """Run the nest rooted at map `node_id` as diagonal wavefronts where it qualifies (module doc);
    `text` is the user's file, whose text of the inner loop's body the nest keeps."""
    outer = g.nodes[node_id]["node"]
    kids = scope_children(g, node_id)
    if not isinstance(outer, MapScope) or len(kids) != 1 or not isinstance(g.nodes[kids[0]]["node"], MapScope):
        return False
    inner = g.nodes[kids[0]]["node"]
    if outer.span is None or inner.span is None or not inner.header or outer.offset is None:
        return False  # (the body is cut from the file at the inner loop's span)
    below = [d for d in scope_descendants(g, node_id) if isinstance(g.nodes[d]["node"], MapScope)]
    maps = [g.nodes[d]["node"] for d in [node_id] + below]
    if outer.schedule == Schedule.PARALLEL or inner.schedule == Schedule.PARALLEL:
        return False  # parallelization's (a loop it left sequential on purpose stays so)
    if any(m.plan or m.parallel_region or m.tile or m.declares or m.declarations or m.condition or m.shared_scratch
           for m in maps):
        return False
    loops = [region.loops.get(m.origin) for m in (outer, inner)]
    if None in loops or any(loop.step != 1 or m.var != loop.var for loop, m in zip(loops, (outer, inner))):
        return False
    if escaping(g, [node_id] + below):
        return False
    tasklets = [t for t in scope_descendants(g, node_id) if isinstance(g.nodes[t]["node"], Tasklet)]
    if not tasklets or any(t not in region.statements or region.statements[t].opaque_reason for t in tasklets):
        return False
    try:
        with isl_budget():
            form = _form(region, set(tasklets), loops[0].depth, loops[1].depth)
            if form is None:
                return False
            taken = nest_names(g)
            w = fresh_name("w", taken)
            ranges = _ranges(region, loops, form, w)
            work = _work(region, tasklets)
    except (BudgetExceeded, isl.Error):
        return False
    if ranges is None or work is None or isinstance(work, int) and work < max(min_work, 1):
        return False
    guard = work_condition(*work_parts(work, min_work)) if min_work else ""
    body = text[inner.span[0] + len(inner.header):inner.span[1]]
    _rewrite(g, node_id, outer, inner, maps, form, w, ranges, guard)
    inner.body_text = body
    # The statements stay in the body as written: no later pass may move them apart.
    g.nest.reemittable = False
    return True


def _form(region: Region, inside: set[str], dx: int, dy: int) -> tuple[int, int] | None:
    """The first diagonal of FORMS along which every dependence between instances of `inside` at
    different (x, y) (the statements' dims `dx`, `dy`) moves forward by at least one; None if none."""
    statement = {a.id: s.id for s in region.statements.values() for a in s.accesses}
    deps = []
    for kind in ("flow", "anti", "output"):
        parts: list[isl.Map] = []
        region.dependences[kind].foreach_map(parts.append)
        deps += [d for d in parts if statement[d.get_tuple_name(isl.dim_type.in_)] in inside
                 and statement[d.get_tuple_name(isl.dim_type.out)] in inside]
    for a, b in FORMS:
        if all(_forward(dep, dx, dy, a, b) for dep in deps):
            return a, b
    return None


def _forward(dep: isl.Map, dx: int, dy: int, a: int, b: int) -> bool:
    """No instance pair of `dep` at different (x, y) stays on its diagonal or goes back."""
    ins = [f"i{k}" for k in range(dep.dim(isl.dim_type.in_))]
    outs = [f"o{k}" for k in range(dep.dim(isl.dim_type.out))]
    moved = f"o{dx} != i{dx} or o{dy} != i{dy}"
    back = isl.Map(f"{{ {dep.get_tuple_name(isl.dim_type.in_)}[{', '.join(ins)}] -> "
                   f"{dep.get_tuple_name(isl.dim_type.out)}[{', '.join(outs)}] : "
                   f"{a} * (o{dx} - i{dx}) + {b} * (o{dy} - i{dy}) <= 0 and ({moved}) }}")
    return dep.intersect(back.align_params(dep.get_space())).is_empty()


def _ranges(region: Region, loops, form: tuple[int, int], w: str) -> tuple[str, str, str, str] | None:
    """(first w, last w, first x on diagonal w, last x on it) in C, from the loops' domain; None
    where one is not a single affine piece."""
    a, b = form
    x, y = isl_name(loops[0].var), isl_name(loops[1].var)
    params = [isl_name(p) for p in region.params]
    bounds = f"{loops[0].lower} <= {x} <= {loops[0].upper} and {loops[1].lower} <= {y} <= {loops[1].upper}"
    diagonals = isl.Set(f"[{', '.join(params)}] -> {{ [d] : exists {x}, {y} : {bounds} and d = {a} * {x} + {b} * {y} }}")
    cells = isl.Set(f"[{', '.join(params + [isl_name(w)])}] -> {{ [{x}] : exists {y} : {bounds} and "
                    f"{isl_name(w)} = {a} * {x} + {b} * {y} }}")
    found = [pw_to_c(diagonals.dim_min(0)), pw_to_c(diagonals.dim_max(0)), *_limits(cells)]
    return None if None in found else tuple(found)


def _limits(cells: isl.Set) -> tuple[str | None, str | None]:
    """The first and last x of a diagonal's cells in C: the greatest of the lower bounds its
    constraints give, the least of the upper ones (a sweep from a corner: `i >= 0` and
    `i >= w - (n - 3)`), each one affine; (None, None) where a bound is not a unit one."""
    pieces = [b.remove_redundancies() for b in cells.coalesce().get_basic_sets()]
    if len(pieces) != 1:
        return None, None
    lower, upper = [], []
    for c in pieces[0].get_constraints():
        coefficient = c.get_coefficient_val(isl.dim_type.set, 0).to_python()
        if coefficient == 0:
            continue
        if abs(coefficient) != 1:
            return None, None
        rest = c.get_aff().set_coefficient_val(isl.dim_type.in_, 0, 0)
        text = pw_to_c(isl.PwAff.from_aff(rest.neg() if coefficient > 0 else rest))
        if text is None:
            return None, None
        if c.is_equality():
            lower.append(text)
            upper.append(text)
        else:
            (lower if coefficient > 0 else upper).append(text)
    if not lower or not upper:
        return None, None
    return _fold(lower, ">"), _fold(upper, "<")


def _fold(bounds: list[str], keep: str) -> str:
    """The greatest (`keep` '>') or least ('<') of C expressions, as nested conditionals."""
    out = bounds[0]
    for b in bounds[1:]:
        out = f"(({out}) {keep} ({b}) ? ({out}) : ({b}))"
    return out


def _work(region: Region, tasklets: list[str]) -> int | str | None:
    """The nest's statement instances: an int when constant, else C text; None if not countable."""
    total = {}
    for t in tasklets:
        points = count_points(region.statements[t].domain)
        if points is None:
            return None
        total = add_polys(total, points)
    value = constant(total)
    return value if value is not None else poly_to_c(total)


def _rewrite(g, node_id: str, outer: MapScope, inner: MapScope, maps: list[MapScope], form, w: str, ranges,
             guard: str) -> None:
    """Put the diagonal map above the nest, with its parallel region; the outer map runs the cells
    of one diagonal (`omp for`), the inner map the one cell of its row."""
    w_first, w_last, x_first, x_last = ranges
    diagonal = MapScope(f"{node_id}.diagonal", w, w_first, w_last, 1, False, Schedule.SEQUENTIAL, outer.line,
                        outer.column, outer.depth, outer.function, outer.offset, True, None, None,
                        origin=outer.origin, span=outer.span, var_type="long", reason=SEQUENTIAL_DIAGONALS,
                        header=f"for (long {w} = {w_first}; {w} <= {w_last}; {w}++)",
                        transformations=["diagonal wavefront"])
    diagonal.parallel_region = OmpRegion(private=sorted({m.var for m in maps if not m.var_declared_in_header}),
                                         guard=guard)
    parent = scope_parent(g, node_id)
    order = next(d["edge"].order for d in g.get_edge_data(parent, node_id).values() if isinstance(d["edge"], Scope))
    g.add_node(diagonal.id, node=diagonal)
    g.add_edge(parent, diagonal.id, edge=Scope(order))
    move_child(g, node_id, diagonal.id, 0)
    x = outer.var
    cell = {(-1, 1): f"{w} + {x}", (1, -1): f"{x} - {w}", (1, 1): f"{w} - {x}", (-1, -1): f"-{w} - {x}"}[form]
    _header(outer, x_first, x_last)
    _header(inner, cell, cell)
    outer.schedule, outer.reason, outer.plan = Schedule.PARALLEL, "", OmpPlan(worksharing=True)
    inner.schedule, inner.reason = Schedule.SEQUENTIAL, "one cell of its row lies on each diagonal"
    for m in (outer, inner):
        m.transformations.append("diagonal wavefront")
    for m in maps:
        m.depth += 1


def _header(m: MapScope, first: str, last: str) -> None:
    """Rewrite a loop of the nest to run upwards from `first` to `last`, inclusive."""
    kind = f"{m.var_type} " if m.var_declared_in_header else ""
    m.header = f"for ({kind}{m.var} = {first}; {m.var} <= {last}; {m.var}++)"
    m.begin, m.end, m.decreasing = first, last, False
    m.trip_count = m.max_trip_count = None


__all__ = ["diagonal_nest"]
