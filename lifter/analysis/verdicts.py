"""Which loops are parallel, and why not when they are not.

A loop is parallel when no dependence is carried by it, that is, links two
instances in the same iteration of every enclosing loop but in different
iterations of this one. Carried dependences are forgiven only when they are
provably harmless:

- the container is declared inside the loop body (each iteration has its own);
- the container is a scalar written before it is read in every iteration
  (privatizable), and, if its value is needed after the loop, written by the
  last iteration unconditionally (lastprivate);
- the container is a local array or pointer target (a scratch row) every read of
  which in an iteration gets its value from a write of the same iteration (isl:
  each flow into a read starts inside the loop and is not carried by it, and no
  read lacks a source), and nothing later in the region reads what the loop
  wrote: each thread may then work on its own copy (private). That the function
  names it nowhere after the loop is checked when the loop is planned;
- every access to the container inside the loop belongs to reduction
  statements with one operator (a reduction).

A loop that is not parallel so may still be parallel under a run-time condition
on values: min-plus updates (`minplus.py`, Floyd-Warshall's relaxation) whose
row-c and column-c instances provably change nothing when `W[c][c] >= 0`. Those
write instances leave the dependence problem, the verdict is recomputed, and a
parallel verdict carries the condition (`LoopVerdict.condition`), which must be
tested in C before the loop (only for the nest as written: `verdict` on a
reshaped nest never assumes it).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl
from pycparser import c_ast

from lifter.analysis.affine import isl_name
from lifter.analysis.budget import BudgetExceeded, isl_budget
from lifter.analysis.dependences import compute_dependences
from lifter.analysis.effects import GENERIC, MEMORY, WORLD
from lifter.analysis.minplus import PathUpdate, declared_names, path_update
from lifter.analysis.model import Access, Kind, LoopVerdict, Region
from lifter.analysis.shared_scratch import candidate, shared_scratch_condition
from lifter.frontend.walk import walk

KIND_WORDS = {"flow": "flow", "anti": "anti", "output": "output"}


@dataclass
class CarriedDependence:
    kind: str
    source: Access
    sink: Access


def maps_of(umap: isl.UnionMap) -> list[isl.Map]:
    """The maps of a union map, one per pair of spaces."""
    out = []
    umap.foreach_map(out.append)
    return out


@dataclass
class Nest:
    """A loop placed in a nest: its (original) loop id, the loops around it, the statements inside.

    For the nest as written, `outer` is the loop's ancestors; a transformation
    that reorders or distributes loops asks about the loop in its new place.
    """

    loop: str
    outer: list[str]
    inside: set[str]


def original_nest(region: Region, loop_id: str) -> Nest:
    outer, parent = [], region.loops[loop_id].parent
    while parent is not None:
        outer.insert(0, parent)
        parent = region.loops[parent].parent
    return Nest(loop_id, outer, set(region.statements_inside(loop_id)))


def carried_by(region: Region, nest: Nest, dep: isl.Map) -> isl.Map:
    """The part of `dep` carried by the loop: same outer iterations, different loop iteration.

    A statement's iteration dimensions are its original loops in order, so an
    original loop's dimension is its original depth in every statement inside it.
    """
    k = region.loops[nest.loop].depth
    same_outer = dep
    for d in (region.loops[o].depth for o in nest.outer):
        same_outer = same_outer.equate(isl.dim_type.in_, d, isl.dim_type.out, d)
    return same_outer.order_lt(isl.dim_type.in_, k, isl.dim_type.out, k).union(
        same_outer.order_gt(isl.dim_type.in_, k, isl.dim_type.out, k))


class DependenceIndex:
    """A region's dependences split into one map per pair of accesses (once), and which
    depths carry each of them in the nest as written (found on first use).

    Loop k of the nest as written carries a dependence when some of its pairs agree on
    the k loops outside and differ in loop k. Asking that level after level, equating one
    more dimension each time, costs a few isl operations per level; asking it afresh for
    every loop cost k equations each, which made deep nests cubic.
    """

    def __init__(self, region: Region):
        self.region = region
        self.maps = {kind: maps_of(region.dependences[kind]) for kind in ("flow", "anti", "output", "no_source")}
        self._depths: dict[tuple[str, int], set[int]] = {}
        self.exit_reads = exit_value_reads(region)  # asked by every verdict: found once

    def carries(self, nest: Nest, kind: str, index: int) -> bool:
        """Whether the loop, placed as `nest` says, carries the `index`th dependence of `kind`."""
        dep = self.maps[kind][index]
        k = self.region.loops[nest.loop].depth
        if sorted(self.region.loops[o].depth for o in nest.outer) != list(range(k)):
            return not carried_by(self.region, nest, dep).is_empty()
        if (kind, index) not in self._depths:
            self._depths[(kind, index)] = _carrying_depths(dep)
        return k in self._depths[(kind, index)]


def _carrying_depths(dep: isl.Map) -> set[int]:
    """The depths k at which some pair of `dep` agrees on dimensions 0..k-1 and differs in k."""
    ins, outs = isl.dim_type.in_, isl.dim_type.out
    depths, same = set(), dep
    for k in range(min(dep.dim(ins), dep.dim(outs))):
        if same.is_empty():
            break
        if not same.order_lt(ins, k, outs, k).is_empty() or not same.order_gt(ins, k, outs, k).is_empty():
            depths.add(k)
        same = same.equate(ins, k, outs, k)
    return depths


def compute_verdicts(region: Region, live_after) -> dict[str, LoopVerdict]:
    index = DependenceIndex(region)
    out = {}
    for loop_id in region.loops:
        nest = original_nest(region, loop_id)
        v = verdict(region, nest, live_after, index)
        out[loop_id] = v if v.parallel else \
            value_verdict(region, nest, live_after) or shared_scratch_verdict(region, nest, live_after, index) or v
    return out


def shared_scratch_verdict(region: Region, nest: Nest, live_after, index: DependenceIndex) -> LoopVerdict | None:
    """The loop's verdict when buffers that outlive it may be each thread's own copy, the last
    iteration working on the buffer itself (`shared_scratch.py`); None unless that proves it
    parallel. For the nest as written only: the emitted code depends on its last iteration."""
    if not any(candidate(c) for c in region.containers.values()):
        return None  # spare the region a second verdict
    try:
        with isl_budget():
            v = _verdict(region, nest, live_after, index, shared_ok=True)
    except (BudgetExceeded, isl.Error):
        return None
    return v if v.parallel and v.shared_scratch else None


def value_verdict(region: Region, nest: Nest, live_after) -> LoopVerdict | None:
    """The loop's verdict with the no-op instances of min-plus updates out of the problem (see
    `minplus.py`), carrying the condition that makes them no-ops; None unless that proves it parallel."""
    try:
        with isl_budget():
            return _value_verdict(region, nest, live_after)
    except (BudgetExceeded, isl.Error):
        return None


def _value_verdict(region: Region, nest: Nest, live_after) -> LoopVerdict | None:
    updates = [u for s in sorted(nest.inside) if (u := path_update(region, region.statements[s])) is not None]
    if not updates:
        return None
    statements, guards = dict(region.statements), []
    for u in updates:
        removed = _no_op_instances(region, nest, u)
        if removed is None:
            return None
        stmt = statements[u.statement]
        keep = stmt.domain.subtract(removed)
        accesses = [replace(a, relation=a.relation.intersect_domain(keep.set_tuple_name(a.id)))
                    if a in u.writes else a for a in stmt.accesses]
        statements[u.statement] = replace(stmt, accesses=accesses)
        guards.append(u.guard())
    relaxed = replace(region, statements=statements, dependences={}, verdicts={})
    relaxed.dependences = compute_dependences(relaxed)
    v = _verdict(relaxed, nest, live_after, DependenceIndex(relaxed))
    if not v.parallel:
        return None
    v.condition = " && ".join(dict.fromkeys(([v.condition] if v.condition else []) + guards))
    v.reason = (f"parallel when {v.condition} as it starts: the min-plus updates' iterations on that row "
                f"and column then change nothing (tested in C before the loop)" + (f"; {v.reason}" if v.reason else ""))
    return v


def _no_op_instances(region: Region, nest: Nest, u: PathUpdate) -> isl.Set | None:
    """The update's instances with a == c or b == c, if removing them is exact under its guard.

    That needs: no other statement in the loop writes W (or unknown memory), c is
    the same in every iteration of the loop (a function of the outer loops), the
    guard's names mean outside the loop what they mean in it, and every time the
    guard is tested some instance reads W[c][c] (so that element exists).
    """
    for sid in nest.inside:
        for a in region.statements[sid].accesses:
            if a.is_write and sid != u.statement and (
                    a.container == u.container or region.containers[a.container].name in (WORLD, MEMORY)):
                return None
    loop = region.loops[nest.loop]
    outer = [region.loops[o] for o in nest.outer]
    used = {n.name for n in walk(u.c) if isinstance(n, c_ast.ID)}
    if not used <= {l.var for l in outer} | set(region.params) or (used | {u.name}) & declared_names(loop.node):
        return None
    k = len(outer)
    if [l.depth for l in outer] != list(range(k)):
        return None
    c_of = u.elements.project_out(isl.dim_type.out, 0, 2)
    dom = u.elements.domain()
    same_outer = isl.Map.from_domain_and_range(dom, dom)
    for d in range(k):
        same_outer = same_outer.equate(isl.dim_type.in_, d, isl.dim_type.out, d)
    if not same_outer.is_subset(c_of.apply_range(c_of.reverse())):
        return None
    params = ", ".join(u.elements.get_space().get_var_names(isl.dim_type.param))
    removed = u.elements.intersect_range(isl.Set(f"[{params}] -> {{ [a, b, c] : a = c or b = c }}")).domain()
    tested = _entries(region, outer)
    if not tested.is_subset(removed.project_out(isl.dim_type.set, k, removed.dim(isl.dim_type.set) - k)
                            .reset_tuple_id()):
        return None
    return removed


def _entries(region: Region, outer) -> isl.Set:
    """The iterations of the outer loops (a superset of those where the loop is reached)."""
    names = ", ".join(isl_name(l.var) for l in outer)
    bounds = " and ".join(f"{l.lower} <= {isl_name(l.var)} <= {l.upper}" for l in outer) or "true"
    params = ", ".join(isl_name(p) for p in region.params)
    return isl.Set(f"[{params}] -> {{ [{names}] : {bounds} }}").intersect_params(region.context)


def verdict(region: Region, nest: Nest, live_after, index: DependenceIndex | None = None) -> LoopVerdict:
    """Whether the loop, placed as `nest` says, is parallel (and with which reductions, privates).

    Within the analysis budget only: past it, the loop is not proved parallel."""
    try:
        with isl_budget():
            return _verdict(region, nest, live_after, index or DependenceIndex(region))
    except BudgetExceeded as exc:
        return LoopVerdict(False, reason=exc.reason, code="budget")


def _verdict(region: Region, nest: Nest, live_after, index: DependenceIndex, shared_ok: bool = False) -> LoopVerdict:
    access_of = {a.id: a for s in region.statements.values() for a in s.accesses}
    loop_id, inside = nest.loop, nest.inside
    shared = _shared_access(region, inside)
    if shared:
        return LoopVerdict(False, reason=shared, code="volatile-or-atomic")
    loop = region.loops[loop_id]
    inner_loops = set(region.loops_inside(loop_id))
    exit_value = _inner_loop_variable_read(region, loop_id, inside, index.exit_reads)
    if exit_value:
        return LoopVerdict(False, reason=exit_value, code="live-after")
    carried: list[CarriedDependence] = []
    for kind in ("flow", "anti", "output"):
        for i, dep in enumerate(index.maps[kind]):
            src = access_of[dep.get_tuple_name(isl.dim_type.in_)]
            dst = access_of[dep.get_tuple_name(isl.dim_type.out)]
            if src.statement not in inside or dst.statement not in inside:
                continue
            if index.carries(nest, kind, i):
                carried.append(CarriedDependence(kind, src, dst))
    reductions, private, lastprivate, shared, conditions = [], [], [], [], []
    blocking = None
    for container in _ordered({d.source.container for d in carried}, carried):
        info = region.containers[container]
        # Storage declared inside the loop is each iteration's own; a pointer declared there
        # is too, but not what it points to (`double *out = buf;` names buf in every iteration).
        if info.declared_in in inner_loops and info.kind != Kind.POINTER:
            continue
        mine = [d for d in carried if d.source.container == container]
        red = _reduction(region, nest, container, mine)
        if red is not None:
            reductions.append((info.name, red))
            continue
        # A struct field (`g->last`, `s.last`) is memory that outlives the loop, and no OpenMP
        # clause can name it: never private.
        if info.kind == Kind.SCALAR and info.name.isidentifier() and _privatizable(region, nest, container, index):
            if container in live_after or _read_later_in_region(region, inside, container, index):
                if _written_last(region, loop_id, inside, container):
                    lastprivate.append(info.name)
                    continue
                blocking = blocking or (mine[0], f"scalar '{info.name}' is used after the loop but not "
                                                  f"written in every iteration", "live-after")
                continue
            private.append(info.name)
            continue
        if _scratch_candidate(info) and _read_inside(region, inside, container) \
                and _privatizable(region, nest, container, index):
            if _read_later_in_region(region, inside, container, index):
                blocking = blocking or (mine[0], f"scratch array '{info.name}' is written in every iteration "
                                                  f"before it is read, but read after the loop", "live-after")
                continue
            private.append(info.name)
            continue
        if shared_ok and blocking is None:
            condition = shared_scratch_condition(region, nest, container,
                                                 uncovered_params(region, nest, container, index))
            if condition is not None:
                private.append(info.name)
                shared.append(info.name)
                conditions.append(condition)
                continue
        blocking = blocking or (mine[0], None, None)
    if blocking is not None:
        dep, message, code = blocking
        return LoopVerdict(False, reason=message or describe(region, loop, dep),
                           code=code or dependence_code(region, dep))
    opaque = [region.statements[s] for s in inside if region.statements[s].opaque_reason]
    reason = ""
    if opaque:
        reason = f"contains code modelled conservatively ({opaque[0].opaque_reason}, line {opaque[0].line})"
    assumed = [t for s in sorted(inside) for t in region.statements[s].assumed]
    condition = " && ".join(dict.fromkeys(c for c in assumed + conditions if c))
    if shared:
        reason = (f"each thread fills its own copy of {', '.join(repr(n) for n in shared)}, the last iteration "
                  f"the buffer itself" + (" (where the sizes tested before the loop let every read find a write "
                                          "of the same iteration)" if condition else "") + (f"; {reason}" if reason else ""))
    return LoopVerdict(True, sorted(set(reductions)), sorted(set(private)), sorted(set(lastprivate)), reason,
                       condition=condition, shared_scratch=shared)


def _inner_loop_variable_read(region: Region, loop_id: str, inside, exit_reads) -> str:
    """Why an inner loop's variable cannot be private to each iteration, or ''.

    The model has no statement for a loop header, so the value a header leaves in its variable
    reaches a read outside that loop unseen by the dependences. Each iteration may have its own
    copy only where every such read inside the loop comes after the inner loop, which runs
    unconditionally in the same body, and no read outside the loop (elsewhere in the nest)
    wants the value the last iteration left (`D[i] += k; for (k = ...)` reads the k of the
    iteration before)."""
    below = set(region.loops_inside(loop_id)) - {loop_id}
    for inner, stmt in exit_reads:
        if inner.id not in below:
            continue
        if stmt.id not in inside:
            return (f"the value loop variable '{inner.var}' has after the loop at line {inner.line} is "
                    f"read at line {stmt.line}, after this loop")
        if not _sets_before(region, inner, stmt):
            return (f"loop variable '{inner.var}' is read at line {stmt.line} before the loop at line "
                    f"{inner.line} sets it in the same iteration")
    return ""


def exit_value_reads(region: Region) -> list:
    """(loop, statement) where the statement reads the loop's variable outside the loop: the
    value a header left, which no dependence records. Reordering passes leave such a nest as it
    is (`legality.reorder_guard`); parallelization asks `_inner_loop_variable_read`."""
    out = []
    for loop in region.loops.values():
        if loop.var_declared_in_header:
            continue
        for stmt in region.statements.values():
            if loop.id not in stmt.loops and any(region.containers[a.container].name == loop.var and not a.is_write
                                                 for a in stmt.accesses):
                out.append((loop, stmt))
    return out


def _sets_before(region: Region, inner, stmt) -> bool:
    """The loop `inner` runs, unconditionally, before `stmt` in the body they share."""
    if inner.conditions or inner.parent is None or inner.parent not in stmt.loops:
        return False
    depth = region.loops[inner.parent].depth + 1
    return inner.position < stmt.beta[depth]


def _shared_access(region: Region, inside) -> str:
    """Why the loop must keep its order because of a `volatile` or `_Atomic` object, or ''.

    An `_Atomic` object may be read in parallel, but a write to it is either a race the
    dependences do not show (the analysis treats it as a plain scalar) or a reduction, and
    OpenMP forbids `_Atomic` variables in data-sharing clauses.
    """
    volatile = volatile_access(region, inside)
    if volatile:
        return volatile
    for sid in inside:
        for a in region.statements[sid].accesses:
            container = region.containers[a.container]
            if "_Atomic" in container.qualifiers and a.is_write:
                return f"it writes _Atomic '{container.name}' (line {a.line}), which no OpenMP clause may privatize or reduce"
    return ""


def volatile_access(region: Region, inside=None) -> str:
    """Why no instance of the statements `inside` (all by default) may move, or '': each access
    to a volatile object is an observable event, in program order (C11 5.1.2.3), which the
    dependences do not record. Parallelization asks it of a loop, reordering passes of the nest."""
    for sid in region.statements if inside is None else inside:
        for a in region.statements[sid].accesses:
            container = region.containers[a.container]
            if "volatile" in container.qualifiers:
                return f"it accesses volatile '{container.name}' (line {a.line}), whose accesses keep their order"
    return ""


def _ordered(containers, carried):
    order = []
    for d in carried:
        if d.source.container in containers and d.source.container not in order:
            order.append(d.source.container)
    return order


def _reduction(region: Region, nest: Nest, container, carried: list[CarriedDependence]) -> str | None:
    """The operator if the loop's carried dependences on `container` are those of one reduction.

    The updates (`A[i][j] -= ...`: the read and write of the reduced element)
    must share one operator (not one subscript: a pair force scatters into both
    particles, `f[i] -= d; f[j] += d`, and reduced copies sum every update alike),
    every carried dependence must join two updates, and no other access in the loop (the right-hand side's
    `A[i][k]`, other statements) may touch an element the loop reduces into
    during the same iterations of the enclosing loops: isl proves that the two
    sets of elements are disjoint.
    """
    ops, updates, others = set(), [], []
    for sid in nest.inside:
        stmt = region.statements[sid]
        for a in stmt.accesses:
            if a.container != container:
                continue
            if a.reduces:
                ops.add(stmt.reduction[1] if stmt.reduction else stmt.updates[a.container])
                updates.append(a)
            else:
                others.append(a)
    if len(ops) != 1:
        return None
    if not all(d.source.reduces and d.sink.reduces for d in carried):
        return None
    if others and not _elements(region, nest, updates).intersect(_elements(region, nest, others)).is_empty():
        return None
    return ops.pop()


def _elements(region: Region, nest: Nest, accesses: list[Access]) -> isl.UnionMap:
    """{ iteration of the enclosing loops -> element } that the accesses touch inside the loop."""
    depths = [region.loops[o].depth for o in nest.outer]
    out = None
    for a in accesses:
        n = a.relation.dim(isl.dim_type.in_)
        proj = isl.Map(f"{{ {a.id}[{', '.join(f'i{j}' for j in range(n))}] -> "
                       f"[{', '.join(f'i{d}' for d in depths)}] }}")
        touched = isl.UnionMap.from_map(a.relation.apply_domain(proj))
        out = touched if out is None else out.union(touched)
    return out


def _privatizable(region: Region, nest: Nest, container, index: DependenceIndex) -> bool:
    """Every read of the container (a scalar, or every element of a scratch array) in the loop
    gets its value from a write in the same iteration, and none reads a value from before it."""
    return uncovered_params(region, nest, container, index).is_empty()


def uncovered_params(region: Region, nest: Nest, container, index: DependenceIndex) -> isl.Set:
    """The parameter values for which some read of the container in the loop does not get its
    value from a write of the same iteration (it has no source, or one before the loop or in
    another iteration): empty when the container is privatizable for all of them."""
    inside = nest.inside
    reads = [a for s in inside for a in region.statements[s].accesses
             if a.container == container and not a.is_write]
    read_ids = {a.id for a in reads}
    bad = isl.Set.empty(region.context.get_space())
    for m in index.maps["no_source"]:
        if m.get_tuple_name(isl.dim_type.in_) in read_ids and not m.is_empty():
            bad = bad.union(m.params())
    for i, dep in enumerate(index.maps["flow"]):
        if dep.get_tuple_name(isl.dim_type.out) not in read_ids:
            continue
        src = dep.get_tuple_name(isl.dim_type.in_)
        src_stmt = src.rsplit("_a", 1)[0]
        if src_stmt not in inside:
            bad = bad.union(dep.params())
        elif index.carries(nest, "flow", i):
            bad = bad.union(carried_by(region, nest, dep).params())
    return bad.coalesce()


def _scratch_candidate(info) -> bool:
    """A local array, or a local pointer declared with a fresh allocation, or a global array, named
    directly (no struct field, no rows of pointers): the kinds a private per-thread copy can stand
    for. Whether it is dead after the loop, or else kept with `lastprivate`, is decided from the
    function's text when the loop is planned (`transform/scratch.py`)."""
    owned = info.kind == Kind.ARRAY and info.storage in ("local", "global") \
        or info.kind == Kind.POINTER and info.allocated and info.storage == "local"
    return owned and not info.indirect and not info.field and info.element not in ("", "?")


def _read_inside(region: Region, inside, container) -> bool:
    """The loop reads the container (a buffer it only writes is an output, not a scratch row)."""
    return any(a.container == container and not a.is_write for s in inside for a in region.statements[s].accesses)


def _read_later_in_region(region: Region, inside, container, index: DependenceIndex) -> bool:
    """A write of `container` in the loop flows to a read of it after the loop, elsewhere in the
    region (a flow dependence on another container into a statement that also touches this one,
    `b[i] = sum` to `sum += b[i]` after `sum = 0`, says nothing about it)."""
    mine = {a.id for s in region.statements.values() for a in s.accesses if a.container == container}
    for dep in index.maps["flow"]:
        src, dst = dep.get_tuple_name(isl.dim_type.in_), dep.get_tuple_name(isl.dim_type.out)
        if src in mine and dst in mine and src.rsplit("_a", 1)[0] in inside and dst.rsplit("_a", 1)[0] not in inside:
            return True
    return False


def _written_last(region: Region, loop_id: str, inside, container) -> bool:
    """Every write is an unconditional statement directly in the loop's body."""
    for sid in inside:
        stmt = region.statements[sid]
        for a in stmt.accesses:
            if a.container == container and a.is_write:
                if not a.must or stmt.loops[-1] != loop_id:
                    return False
    return True


def dependence_code(region: Region, dep: CarriedDependence) -> str:
    """The report's reason_code for a carried dependence (the same cases as `describe`)."""
    name = region.containers[dep.source.container].name
    if name == "<world>":
        return "call-effects"
    if name == "<memory>":
        return "may-alias"
    if any(a.is_write and not a.relation.is_single_valued() for a in (dep.source, dep.sink)):
        return "non-affine-subscript"  # a write to "any index" (o[p[i]]): which element is not known
    return f"{dep.kind}-dependence"


def _may(dep: CarriedDependence) -> bool:
    """The dependence is one that may exist: a write to an element not known exactly (a
    subscript read from memory, `o[p[i]]`, or code that may not run) takes part in it."""
    return any(a.is_write and not a.must for a in (dep.source, dep.sink))


def describe(region: Region, loop, dep: CarriedDependence) -> str:
    """A sentence naming the dependence: container, both accesses and their lines."""
    name = region.containers[dep.source.container].name
    src, dst = dep.source, dep.sink
    var = loop.var
    when = f"an earlier iteration of '{var}'"
    if name == "<world>" and src.text == GENERIC:
        return f"the {GENERIC} selection (line {src.line}) is analysed as an unknown call: it may have side effects"
    if name == "<world>":
        return f"call {src.text} (line {src.line}) may have side effects that later iterations see"
    if name == "<memory>":
        return f"{dst.text} (line {dst.line}) accesses memory through a pointer expression that cannot be analysed"
    may = "may " if _may(dep) else ""
    if dep.kind == "flow":
        reads = "may read" if may else "reads"
        if (src.text, src.line) == (dst.text, dst.line):  # one access: say it once
            return f"{may}flow dependence on {name}: {dst.text} (line {dst.line}) {reads} the value it wrote in {when}"
        return (f"{may}flow dependence on {name}: {dst.text} (line {dst.line}) {reads} the value written to "
                f"{src.text} (line {src.line}) in {when}")
    if dep.kind == "anti":
        overwrites = "may overwrite" if may else "overwrites"
        return (f"{may}anti dependence on {name}: {dst.text} (line {dst.line}) {overwrites} what {src.text} "
                f"(line {src.line}) read in {when}")
    return (f"{may}output dependence on {name}: {dst.text} (line {dst.line}) and {src.text} (line {src.line}) "
            f"{may}write the same element in different iterations of '{var}'")


__all__ = ["Nest", "compute_verdicts", "carried_by", "describe", "original_nest", "verdict", "volatile_access"]
