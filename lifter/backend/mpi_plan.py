"""Which maps of a region run block-distributed over MPI ranks, and which rows each rank touches.

The scheme (docs/backends.md, "MPI target"): every rank holds all arrays, as the original
allocates them. A *unit* is a child of the region's root, or of the sequential time loop that
is the root's only child. A unit that is a planned parallel map (an OpenMP plan without a
correctness guard) whose every write of an array is the row `v + c` of its variable `v`
(dimension 0, one row per iteration) is distributed: rank r runs the block r of `v`'s range, so
it owns the rows `block + c` of each array it writes. Every other unit runs replicated (every
rank runs it on the full data, so it computes what the original computes).

All ranks know every rank's block, so the rows a unit reads on rank r and the rows the last
distributed writer of an array wrote on rank q are intervals of C expressions over the block's
bounds `lift_lo`, `lift_hi` (from the isl access relations, the block bounds as parameters).
The backend (mpi.py) exchanges exactly their intersections, for q != r, before each unit that
reads an array another rank may have written since the last exchange.

Restrictions (a region outside them runs replicated, with a remark saying why): one distributed
writer per array in a region (so the owner of a row is fixed), block bounds free of the time
loop's variable (so ownership is the same every step), no `a = b;` of a distributed array's
pointer and no unit under an `if` in the region, arrays named by a plain identifier whose
subscripts are as many as its dimensions (rows are `&A[r]`, `sizeof A[0]` bytes apart), no
array reductions and no lastprivate scalars in a distributed map (their values would be one
rank's); scalar reductions become `MPI_Allreduce` after the loop.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl

from lifter.analysis.affine import isl_name
from lifter.analysis.model import Kind
from lifter.graph.attributes import DataflowGraph
from lifter.graph.nodes import STATE, MapScope, Schedule, Tasklet, scope_children
from lifter.analysis.ranges import bound_c, pw_to_c

# A reduction's MPI operator, and for those that are not idempotent the identity each rank starts
# from and how the total joins the value before the loop (idempotent ones reduce the value itself).
MPI_OPS = {"+": ("MPI_SUM", "0", "+"), "-": ("MPI_SUM", "0", "+"), "*": ("MPI_PROD", "1", "*"),
           "max": ("MPI_MAX", None, None), "min": ("MPI_MIN", None, None),
           "&": ("MPI_BAND", None, None), "|": ("MPI_BOR", None, None), "^": ("MPI_BXOR", "0", "^"),
           "&&": ("MPI_LAND", None, None), "||": ("MPI_LOR", None, None)}
MPI_TYPES = {"double": "MPI_DOUBLE", "float": "MPI_FLOAT", "long double": "MPI_LONG_DOUBLE", "int": "MPI_INT",
             "long": "MPI_LONG", "long long": "MPI_LONG_LONG", "unsigned": "MPI_UNSIGNED",
             "unsigned int": "MPI_UNSIGNED", "unsigned long": "MPI_UNSIGNED_LONG",
             "unsigned long long": "MPI_UNSIGNED_LONG_LONG", "short": "MPI_SHORT", "char": "MPI_CHAR"}
LO, HI = "v_lift_lo", "v_lift_hi"  # isl names of the block's bounds; C: lift_lo, lift_hi (exclusive)


@dataclass
class Rows:
    """Rows [first, last] (C expressions over lift_lo, lift_hi, parameters, outer variables)."""

    first: str
    last: str


@dataclass
class Distributed:
    """A distributed map: its loop bounds (C, `last` inclusive) and the rows it writes and reads."""

    map_id: str
    lower: str
    upper: str
    writes: dict[str, Rows] = field(default_factory=dict)  # container -> rows its block writes
    reads: dict[str, Rows] = field(default_factory=dict)  # container -> rows its block reads
    unplain: dict[str, str] = field(default_factory=dict)  # read without row intervals: container -> text
    reductions: list[tuple[str, str, str]] = field(default_factory=list)  # (scalar, operator, MPI type)


@dataclass
class RegionPlan:
    """The units of a region in order, the distributed ones, and the time loop around them."""

    units: list[str]
    time_loop: str | None
    distributed: dict[str, Distributed]
    names: dict[str, str]  # container -> C name of the arrays distributed maps write
    reads: dict[str, set[str]]  # replicated unit -> containers it reads ('*': any memory)


def plan_region(g: DataflowGraph) -> tuple[RegionPlan | None, str]:
    """The distribution of a region, or None with the reason it runs replicated."""
    region = g.nest.scop
    if g.nest.restructured:
        return None, "the nest was restructured"
    top = scope_children(g, STATE)
    time_loop = None
    units = top
    if len(top) == 1 and isinstance(g.nodes[top[0]]["node"], MapScope) and g.nodes[top[0]]["node"].schedule != Schedule.PARALLEL:
        time_loop, units = top[0], scope_children(g, top[0])
    distributed: dict[str, Distributed] = {}
    why = "no loop of it is parallel"
    for u in units:
        node = g.nodes[u]["node"]
        if isinstance(node, MapScope) and node.schedule == Schedule.PARALLEL:
            d, reason = _distribute(g, region, node, time_loop)
            if d is None:
                why = reason
            else:
                distributed[u] = d
    if not distributed:
        return None, why
    writers: dict[str, str] = {}
    for d in distributed.values():
        for c in d.writes:
            if c in writers:
                return None, f"'{region.containers[c].name}' is written by two distributed loops"
            writers[c] = d.map_id
    for u in units:
        moved = [a for a in _accesses(region, g, u) if a.is_write and a.container in writers
                 and a.text.count("[") != region.containers[a.container].ndim]
        if moved:  # `a = b;`: the name stands for another buffer afterwards (a swap)
            return None, f"'{moved[0].text}' changes where '{region.containers[moved[0].container].name}' points"
        if g.nodes[u]["node"].conditions:  # ranks would have to agree on it, and a gather under it
            return None, "a loop or statement of it runs under an 'if'"  # may not run: keep it simple
    for d in distributed.values():
        for c, text in d.unplain.items():
            if c in writers or region.containers[c].kind not in (Kind.ARRAY, Kind.POINTER):
                return None, f"the rows '{text}' reads are not an interval of the block"
    names = {c: region.containers[c].name for c in writers}
    reads = {u: _read(region, g, u) for u in units if u not in distributed}
    return RegionPlan(units, time_loop, distributed, names, reads), ""


def _distribute(g: DataflowGraph, region, m: MapScope, time_loop: str | None) -> tuple[Distributed | None, str]:
    plan = m.plan
    if plan is None:
        return None, f"the loop over '{m.var}' has no parallel plan ({m.not_parallelized or 'too little work'})"
    if plan.guard:
        return None, f"the loop over '{m.var}' is parallel only under a run-time test ({plan.guard})"
    if plan.sections:
        return None, f"the loop over '{m.var}' reduces into an array section"
    reductions = []
    for name, op in plan.reductions:
        scalar = [c for c in region.containers.values() if c.name == name and c.kind == Kind.SCALAR]
        kind = MPI_TYPES.get(scalar[0].element) if len(scalar) == 1 else None
        if op not in MPI_OPS or kind is None:
            return None, f"the loop over '{m.var}' reduces into '{name}' with no MPI reduction for it"
        reductions.append((name, op, kind))
    if plan.lastprivate or plan.scratch:
        return None, f"the loop over '{m.var}' has last values or private buffers"
    if m.step != 1 or m.decreasing or m.offset is None or m.span is None:
        return None, f"the loop over '{m.var}' does not step by 1 upwards"
    loop = region.loops[m.id]
    symbols = [isl_name(p) for p in region.params] + ([isl_name(region.loops[time_loop].var)] if time_loop else [])
    lower, upper = _c_bound(symbols, loop.lower), _c_bound(symbols, loop.upper)
    if lower is None or upper is None:
        return None, f"the bounds of the loop over '{m.var}' are not affine in C"
    outer = _outer_names(region, m.id)
    if any(_mentions(symbols, b, outer) for b in (loop.lower, loop.upper)):
        return None, f"the bounds of the loop over '{m.var}' change with the time loop"
    d = Distributed(m.id, lower, upper, reductions=reductions)
    context = f"{isl_name('lift_lo')} >= ({loop.lower}) and {isl_name('lift_hi')} <= ({loop.upper}) + 1 " \
              f"and {isl_name('lift_lo')} < {isl_name('lift_hi')}"
    ranges: dict[tuple[str, bool], isl.Set] = {}
    shifts: dict[str, int] = {}  # container -> c, where iteration v writes row v + c
    for sid in region.statements_inside(m.id):
        for acc in region.statements[sid].accesses:
            c = region.containers[acc.container]
            if c.kind == Kind.SCALAR:
                if acc.is_write and c.name not in plan.private and c.name not in dict(plan.reductions) \
                        and c.declared_in not in region.loops_inside(m.id):
                    return None, f"the loop over '{m.var}' writes the scalar '{c.name}'"
                continue
            plain = c.kind in (Kind.ARRAY, Kind.POINTER) and not c.field and c.name.isidentifier() \
                and acc.text.count("[") == c.ndim
            if not plain and not acc.is_write:  # fine unless a distributed loop writes it (plan_region)
                d.unplain[acc.container] = acc.text
                continue
            if not plain:
                return None, f"'{acc.text}' is not a plain array subscripted once per dimension"
            if acc.is_write:
                shift = _row_shift(acc.relation, loop.depth)
                if shift is None:
                    return None, f"'{acc.text}' does not write one row per iteration of '{m.var}'"
                if shifts.setdefault(acc.container, shift) != shift:
                    return None, f"the loop over '{m.var}' writes two different rows of '{c.name}'"
            rng = _block_range(acc.relation, loop.depth, context)
            if rng is None and not acc.is_write:
                d.unplain[acc.container] = acc.text
                continue
            if rng is None:
                return None, f"the rows of '{acc.text}' are not an affine interval of the block"
            key = (acc.container, acc.is_write)
            ranges[key] = rng if key not in ranges else ranges[key].union(rng)
    for (container, is_write), rng in ranges.items():
        rows = _rows(rng)
        if rows is None and not is_write:
            d.unplain[container] = region.containers[container].name
            continue
        if rows is None:
            return None, f"the rows of '{region.containers[container].name}' are not an affine interval of the block"
        (d.writes if is_write else d.reads)[container] = rows
    return d, ""


def _outer_names(region, map_id: str) -> list[str]:
    names, parent = [], region.loops[map_id].parent
    while parent is not None:
        names.append(isl_name(region.loops[parent].var))
        parent = region.loops[parent].parent
    return names


def _pw(symbols: list[str], expr: str) -> isl.PwAff:
    return isl.PwAff(f"[{', '.join(symbols)}] -> {{ [{expr}] }}")


def _c_bound(symbols: list[str], expr: str) -> str | None:
    try:
        return pw_to_c(_pw(symbols, expr))
    except isl.Error:
        return None


def _mentions(symbols: list[str], expr: str, names: list[str]) -> bool:
    """Whether an isl expression depends on any of `names` (outer loop variables)."""
    try:
        pw = _pw(symbols, expr)
    except isl.Error:
        return True
    return any(pw.involves_dims(isl.dim_type.param, i, 1)
               for i in range(pw.dim(isl.dim_type.param)) if pw.get_dim_name(isl.dim_type.param, i) in names)


def _block_range(relation: isl.Map, depth: int, context: str) -> isl.Set | None:
    """Elements an access touches over the iterations lift_lo <= v < lift_hi of the map at
    `depth` (outer variables and the block's bounds are parameters)."""
    n = relation.dim(isl.dim_type.param)
    moved = relation.move_dims(isl.dim_type.param, n, isl.dim_type.in_, 0, depth)
    moved = moved.add_dims(isl.dim_type.param, 2)
    moved = moved.set_dim_name(isl.dim_type.param, moved.dim(isl.dim_type.param) - 2, LO)
    moved = moved.set_dim_name(isl.dim_type.param, moved.dim(isl.dim_type.param) - 1, HI)
    params = ", ".join(moved.get_dim_name(isl.dim_type.param, i) for i in range(moved.dim(isl.dim_type.param)))
    variables = ", ".join(f"x{i}" for i in range(moved.dim(isl.dim_type.in_)))
    try:
        dom = isl.Set(f"[{params}] -> {{ [{variables}] : {LO} <= x0 < {HI} }}")
        if moved.has_tuple_id(isl.dim_type.in_):
            dom = dom.set_tuple_id(moved.get_tuple_id(isl.dim_type.in_))
        rng = moved.intersect_domain(dom).range().intersect_params(isl.Set(f"[{params}] -> {{ : {context} }}"))
    except isl.Error:
        return None
    return None if rng.is_empty() else rng


def _rows(rng: isl.Set) -> Rows | None:
    """First and last row (dimension 0) of a range, as C over the block's bounds, or None."""
    first, last = bound_c(rng, 0, False), bound_c(rng, 0, True)
    if first is None or last is None:
        return None
    return Rows(first, last)


def _row_shift(relation: isl.Map, depth: int) -> int | None:
    """c where each iteration of the map's variable v writes the one row v + c (c constant), so
    the rows the ranks' blocks write do not overlap; None otherwise."""
    r = relation.project_out(isl.dim_type.in_, depth + 1, relation.dim(isl.dim_type.in_) - depth - 1)
    r = r.project_out(isl.dim_type.in_, 0, depth)
    r = r.project_out(isl.dim_type.out, 1, r.dim(isl.dim_type.out) - 1)
    for kind in (isl.dim_type.in_, isl.dim_type.out):
        if r.has_tuple_id(kind):
            r = r.reset_tuple_id(kind)
    try:
        if not r.is_single_valued():
            return None
        deltas = r.deltas()
        if not deltas.is_singleton():
            return None
        shift = deltas.dim_max(0)
        return shift.get_pieces()[0][1].get_constant_val().to_python() if shift.is_cst() else None
    except isl.Error:
        return None


def _accesses(region, g: DataflowGraph, unit: str):
    node = g.nodes[unit]["node"]
    sids = region.statements_inside(unit) if isinstance(node, MapScope) else [unit]
    for sid in sids:
        yield from region.statements[sid].accesses


def _read(region, g: DataflowGraph, unit: str) -> set[str]:
    """Containers a replicated unit reads; '*' when it may read memory the model cannot name."""
    out = set()
    for a in _accesses(region, g, unit):
        if a.is_write:
            continue
        c = region.containers[a.container]
        out.add("*" if c.kind == Kind.MEMORY else a.container)
    node = g.nodes[unit]["node"]
    if isinstance(node, Tasklet) and node.opaque_reason:
        out.add("*")
    return out
