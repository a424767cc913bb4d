"""Loops whose rows scatter into a range each iteration owns: parallel when a pass over the data says so.

NPB IS ranks the keys of each bucket with a counting sort of the bucket's own key range:

    for (int b = 0; b < NBINS; b++) {
        for (int k = b << SHIFT; k < (b + 1) << SHIFT; k++) key_rank[k] = 0;
        for (int k = start[b]; k < start[b + 1]; k++) key_rank[buf[k]]++;
        ...prefix sum over key_rank[b << SHIFT .. ((b + 1) << SHIFT) - 1]...
    }

`key_rank[buf[k]]` may be any element, so the analysis finds a dependence between iterations
and keeps the loop sequential. The loop is parallel all the same when every `buf[k]` of
iteration `b` lies in the range iteration `b` owns, `[b << SHIFT, (b + 1) << SHIFT)`: a fact
of the data (the scatter before it put the keys there), not of the code. So it is tested at run
time, by a pass over what the loop reads (an inspector): every `X[k] + d` of each row, for `k`
from `rows[v + c]` to `rows[v + c + 1] - 1` (analysis/row_ranges.py's `RowRange`), lies between
the least and greatest element of `A` that the iteration's affine accesses touch. Under that
test the gathers touch nothing outside that interval, so they are replaced by the interval in
the dependence problem, and the verdict is recomputed: when it is parallel, it carries the test
as its condition (like minplus.py's, tested in C before the loop, with the loop as written
behind it).

The test reads exactly what the loop as written reads (the offsets of every row and the index
array at every `k` of each row, which row_ranges.py requires the row loop to read in every run);
it is exact (it fails only where some gather falls outside its iteration's interval, where the
recomputed problem would not hold) and costs one pass over the index array's part the loop
reads, on the threads when it is long. Cheaper tests were considered: a guard on each gathered
write inside the parallel loop avoids the pass, but where one fails the loop must run again as
written from the state before it, which needs a copy of every element the loop may write (all of
`key_rank`, as large as the index array's part in NPB IS); the inspector needs nothing restored.

Taken only where: the row loop is a statement directly in the loop (no `if` around it); every
other access of `A` inside the loop is affine (a function of the iteration, in a modelled
statement); nothing inside the loop writes the index array, the offsets or unknown memory;
the interval's ends are single affine expressions of the loop's variable with integer
coefficients. That the arrays do not overlap is the alias test's (parallelize.py), as for any
loop; the gathered range it compares comes from row_spans.py.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from lifter.analysis.budget import BudgetExceeded, isl_budget
from lifter.analysis.dependences import compute_dependences
from lifter.analysis.effects import MEMORY, WORLD
from lifter.analysis.model import Region
from lifter.analysis.verdicts import original_nest, verdict
from lifter.analysis.ranges import access_range, isl_text, pw_to_c

PREFIX = "lift_owned_rows_"


@dataclass(frozen=True)
class OwnedGather:
    """The gathers `A[X[k] + d]` of one row loop, and the interval of `A` each iteration owns."""

    statement: str  # the row loop's statement id
    container: str  # A's container key
    index: str  # X's C name
    index_type: str
    rows: str  # the offsets' C name
    rows_type: str
    shift: int  # c of `rows[v + c]`
    dlo: int  # least and greatest d
    dhi: int
    lower: isl.PwAff  # the least and greatest element the iteration's affine accesses touch,
    upper: isl.PwAff  # over the loop's variable and those outside it (as isl parameters)


def owned_verdicts(region: Region) -> None:
    """Give each sequential loop of `region` with such gathers the verdict under the test, where
    that verdict is parallel (the nest as written only)."""
    for loop_id, old in list(region.verdicts.items()):
        if old.parallel:
            continue
        try:
            with isl_budget():
                found = _owned_verdict(region, loop_id)
        except (BudgetExceeded, isl.Error):
            found = None
        if found is not None:
            region.verdicts[loop_id], region.owned[loop_id] = found


def _owned_verdict(region: Region, loop_id: str):
    nest = original_nest(region, loop_id)
    gathers = [g for sid in sorted(nest.inside) for g in _gathers(region, loop_id, nest.inside, sid)]
    if not gathers:
        return None
    statements = dict(region.statements)
    for g in gathers:
        stmt = statements[g.statement]
        statements[g.statement] = replace(stmt, accesses=[
            replace(a, relation=interval(a.relation, g)) if a.container == g.container else a
            for a in stmt.accesses])
    relaxed = replace(region, statements=statements, dependences={}, verdicts={})
    relaxed.dependences = compute_dependences(relaxed)
    v = verdict(relaxed, nest, region.live_after)
    if not v.parallel or v.condition or v.shared_scratch:
        return None
    tests = [_test(region, g) for g in gathers]
    if any(t is None for t in tests):
        return None
    v.condition = " && ".join(dict.fromkeys(tests))
    names = ", ".join(dict.fromkeys(f"'{region.containers[g.container].name}'" for g in gathers))
    v.reason = (f"parallel when {v.condition} as it starts: a pass over the rows finds every gathered element "
                f"of {names} inside the range its iteration owns (tested in C before the loop)"
                + (f"; {v.reason}" if v.reason else ""))
    return v, gathers


def _gathers(region: Region, loop_id: str, inside: set[str], sid: str) -> list[OwnedGather]:
    """The `OwnedGather`s of statement `sid`, a row loop directly in the loop, that it writes."""
    rr, stmt = region.row_ranges.get(sid), region.statements[sid]
    if rr is None or stmt.loops[-1] != loop_id or stmt.conditions:
        return []
    depth = len(stmt.loops)
    writes = [(s, a) for s in inside for a in region.statements[s].accesses if a.is_write]
    if any(region.containers[a.container].name in (WORLD, MEMORY) for _, a in writes):
        return []
    shift = _shift(next(a for a in stmt.accesses if a.id == rr.lower).relation, depth)
    if shift is None:
        return []
    out = []
    for key, (index, index_type, dlo, dhi) in rr.gathers.items():
        if not any(a.is_write and a.container == key for a in stmt.accesses) \
                or any(a.container in (index, rr.rows) for _, a in writes):
            continue
        owned = [a for s in inside if s != sid for a in region.statements[s].accesses if a.container == key]
        if not owned or not all(region.statements[a.statement].opaque_reason is None
                                and a.relation.is_single_valued() for a in owned):
            continue
        touched = access_range(owned[0].relation, depth)
        for a in owned[1:]:
            touched = touched.union(access_range(a.relation, depth))
        touched = touched.coalesce()
        lower, upper = touched.dim_min(0), touched.dim_max(0)
        if pw_to_c(lower) is None or pw_to_c(upper) is None:
            continue
        out.append(OwnedGather(sid, key, region.containers[index].name, index_type, region.containers[rr.rows].name,
                               rr.rows_type, shift, dlo, dhi, lower, upper))
    return out


def _shift(relation: isl.Map, depth: int) -> int | None:
    """c of the access `rows[v + c]` (v the innermost of its `depth` loops), else None."""
    var = relation.get_dim_name(isl.dim_type.in_, depth - 1)
    split = _split(access_range(relation, depth).dim_min(0), var)
    if split is None or split[0] != 1 or not split[1].lstrip("-").rstrip("L").isdigit():
        return None
    return int(split[1].rstrip("L"))


def _split(pw: isl.PwAff, var: str) -> tuple[int, str] | None:
    """(a, C text of e) where `pw` is `a * var + e`, one affine piece, `var` an isl parameter."""
    pieces = []
    pw.foreach_piece(lambda dom, aff: pieces.append(aff))
    if len(pieces) != 1:
        return None
    aff = pieces[0]
    at = aff.find_dim_by_name(isl.dim_type.param, var)
    if at < 0:
        return None
    a = aff.get_coefficient_val(isl.dim_type.param, at).to_python()
    rest = pw_to_c(isl.PwAff.from_aff(aff.set_coefficient_val(isl.dim_type.param, at, isl.Val.zero(aff.get_ctx()))))
    return None if rest is None else (a, rest)


def interval(relation: isl.Map, g: OwnedGather) -> isl.Map:
    """`relation` (a gather's: any element) narrowed to the interval the iteration owns."""
    names = [relation.get_dim_name(isl.dim_type.in_, i) for i in range(relation.dim(isl.dim_type.in_))]
    params = [relation.get_dim_name(isl.dim_type.param, i) for i in range(relation.dim(isl.dim_type.param))]
    space = relation.get_tuple_name(isl.dim_type.in_)
    target = relation.get_tuple_name(isl.dim_type.out)
    interval = isl.Map(f"[{', '.join(params)}] -> {{ {space}[{', '.join(names)}] -> {target}[o] : "
                       f"{isl_text(g.lower)} <= o <= {isl_text(g.upper)} }}")
    return relation.intersect(interval)


def _test(region: Region, g: OwnedGather) -> str | None:
    """The C call of the inspector over every row the loop runs, or None."""
    stmt = region.statements[g.statement]
    depth = len(stmt.loops)
    var = stmt.domain.get_dim_name(isl.dim_type.set, depth - 1)
    rows = stmt.domain.move_dims(isl.dim_type.param, stmt.domain.dim(isl.dim_type.param), isl.dim_type.set, 0, depth - 1)
    first, last = pw_to_c(rows.dim_min(0)), pw_to_c(rows.dim_max(0))
    lower, upper = _split(g.lower, var), _split(g.upper, var)
    if first is None or last is None or lower is None or upper is None:
        return None
    return (f"{PREFIX}{_suffix(g.index_type)}__{_suffix(g.rows_type)}((const {g.index_type} *)({g.index}), "
            f"(const {g.rows_type} *)({g.rows}), {g.shift}L, {first}, {last}, "
            f"{lower[0]}L, {lower[1]}, {upper[0]}L, {upper[1]}, {g.dlo}L, {g.dhi}L)")


def _suffix(c_type: str) -> str:
    return "_".join(c_type.split())


__all__ = ["OwnedGather", "PREFIX", "interval", "owned_verdicts"]
