"""Parallel regions around sequential loops: start the threads once, not once per time step.

A map that stays sequential (a time-step loop) and has planned parallel maps
among its direct children gets an `OmpRegion`: `#pragma omp parallel` before
it, `omp for` on those children and `omp single` around every other child.
Every thread then runs the loop's own control, so a region is formed only
where that provably does what one thread did before:

- the loop's variable is private to the region, so it must not be read after
  it; nothing inside writes a name that its bounds or the children's
  conditions use (a thread still testing the loop must see what the others see);
- every other child (a statement, or a loop with no planned map inside) runs on
  one thread in `omp single`: a statement run by every thread could race with
  itself (`err = 0.0;` against a reduction another thread already finished, or a
  pointer swap done twice). `omp single` and `omp for` both end in a barrier,
  so each child sees everything the one before it wrote (a single followed by an
  `omp for` that touches none of its data drops its own: `nowait`);
- the body declares nothing (each thread would have its own copy, and a single
  would set only one of them), and no statement inside jumps (`break`,
  `continue`, `return`, `goto`: every thread must run the same iterations) or
  writes memory the analysis cannot name (an unknown call);
- no child is lastprivate (its variable is only defined after a non-empty loop);
- no child allocates scratch buffers per thread (it opens an `omp parallel` of its own);
- no child is parallel only under a test of values (`MapScope.condition`): the
  values change inside the loop, so the test cannot move before it.

A small child loop costs a barrier inside a region, not a thread start, so the
region runs in parallel when any child is worth it: the children's work
conditions, or-ed, decide whether it does. Their correctness
conditions (pointer disjointness) hold for the whole loop when nothing inside
writes the names they use; otherwise (`&fict[t]`) the loop's own ranges, which
contain every iteration's, are checked instead. Both are tested once, in C,
before the loop, with a sequential copy of it as the other branch.
"""
from __future__ import annotations

import re


from lifter.analysis.model import Kind
from lifter.frontend.spans import word_tokens
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE
from lifter.graph.nodes import AccessNode, MapScope, Memlet, OmpRegion, Tasklet, scope_children, scope_descendants
from lifter.transform.loop_vars import read_after
from lifter.transform.alias_test import alias_check
from lifter.transform.team_start import work_condition

_JUMP = re.compile(r"\b(break|continue|return|goto|longjmp)\b")


def plan_parallel_regions(g: DataflowGraph) -> None:
    """Give the outermost suitable sequential maps a parallel region (after `plan_openmp`)."""
    for child in scope_children(g, STATE):
        _visit(g, child)


def _visit(g: DataflowGraph, node_id: str) -> None:
    node = g.nodes[node_id]["node"]
    if not isinstance(node, MapScope) or node.plan is not None:
        return
    if _form(g, node):
        return
    for child in scope_children(g, node_id):
        _visit(g, child)


def _form(g: DataflowGraph, s: MapScope) -> bool:
    """Attach an OmpRegion to the unplanned map `s` when that is safe and useful."""
    if s.offset is None or s.span is None or s.declares or not g.nest.reemittable:
        return False  # re-emittable: the body's items are exactly the children (no `if` around one)
    kids = [(k, g.nodes[k]["node"]) for k in scope_children(g, s.id)]
    planned = [n for _, n in kids if isinstance(n, MapScope) and n.plan is not None]
    if not planned or any(n.plan.lastprivate or n.condition or n.plan.scratch for n in planned):
        return False
    if any(n.plan.guarded for n in planned):
        return False  # its copies and second run (backend/openmp.py `_rerun`) are made outside any region
    inside = [g.nodes[n]["node"] for n in scope_descendants(g, s.id)]
    if any(isinstance(n, Tasklet) and _JUMP.search(n.code) for n in inside):
        return False
    written = _written_scalars(g, s, inside)
    if written is None:
        return False
    tested = [word_tokens(f"{n.plan.work} {n.plan.team_work}") for n in planned]  # (their work tests)
    if word_tokens(f"{s.begin} {s.end}") & written or any(w & written for w in tested):
        return False
    guards = [n.plan.guard for n in planned if n.plan.guard and not word_tokens(n.plan.guard) & written]
    varying = [n for n in planned if word_tokens(n.plan.guard) & written]
    if varying:
        # A child's disjointness test names a variable of the loop (`&fict[t]`): the
        # whole loop's ranges being disjoint implies it for every iteration.
        if any(n.plan.sections for n in varying):
            return False
        alias = alias_check(g, s)
        if alias.startswith("!"):
            return False
        guards.append(alias)
    if not s.var_declared_in_header and read_after(g, s.id, s.var):
        return False
    singles, run = [], []
    for k, n in kids:
        if n in planned:
            if run:
                singles.append(run)
            run = []
            continue
        if n.span is None:
            return False
        if isinstance(n, MapScope) and any(getattr(g.nodes[d]["node"], "plan", None) for d in scope_descendants(g, k)):
            return False  # a planned map below a sequential child would start threads inside the region
        run.append(k)
    if run:
        singles.append(run)
    for run in singles:
        first, last = g.nodes[run[0]]["node"].span[0], g.nodes[run[-1]]["node"].span[1]
        if any(first <= n.offset < last for n in planned):
            return False  # an `omp for` inside an `omp single` is a closely nested worksharing region
    # The region starts the threads once for every run of `s`: its team test counts the work of all
    # of `s`'s iterations (team_start.py), where the loop's own test counted one run of the child.
    trips = s.trip_count
    works = [work_condition(n.plan.work, n.plan.team_work, trips or "", n.plan.team_copies) for n in planned]
    condition = " || ".join(dict.fromkeys(f"({w})" for w in works)) if all(works) else ""
    # The work condition is tested in C, with the loop as written in the `else` branch, not as
    # an `if` clause: a region whose `if` is false still runs the outlined body, with its
    # worksharing set-up and barriers per iteration of the sequential loop (jacobi_1d at
    # n = 4000: 0.80x of the serial time with the clause, 1.0x with the plain copy).
    work = f"({condition})" if " || " in condition else condition
    when = " && ".join(dict.fromkeys(c for c in [work] + guards if c))
    private = [] if s.var_declared_in_header else [s.var]
    nowait = [_nowait(g, s, run) for run in singles]
    s.parallel_region = OmpRegion(private, singles, when, nowait)
    for n in planned:
        n.plan.worksharing = True
        n.plan.versioned = False
        n.plan.condition = when  # when it runs in parallel, for the report
    return True


def _written_scalars(g: DataflowGraph, s: MapScope, inside: list) -> set[str] | None:
    """Scalars and loop variables written inside `s`; None if something writes unknown memory."""
    written = {s.var} | {n.var for n in inside if isinstance(n, MapScope)}
    for n in inside:
        if not isinstance(n, Tasklet):
            continue
        for _, v, d in g.out_edges(n.id, data=True):
            if not isinstance(d["edge"], Memlet):
                continue
            data = g.nodes[v]["node"]
            if isinstance(data, AccessNode) and (data.kind == Kind.MEMORY or data.name.startswith("<")):
                return None
            if isinstance(data, AccessNode) and data.kind == Kind.SCALAR:
                written.add(data.name)
    return written


def _nowait(g: DataflowGraph, s: MapScope, run: list[str]) -> bool:
    """A single may skip its barrier when the next child is an `omp for` that touches nothing it does.

    Threads then start that loop while one thread still runs the single; the
    loop's own barrier orders both before anything after them. Containers that
    may be the same memory (a pointer and anything not a scalar) count as touched.
    """
    kids = scope_children(g, s.id)
    after = kids.index(run[-1]) + 1
    if after == len(kids):
        return False  # the next thing is the loop's next iteration
    loop = g.nodes[kids[after]]["node"]
    if not isinstance(loop, MapScope) or loop.plan is None:
        return False
    reads, writes = _touched(g, run)
    loop_reads, loop_writes = _touched(g, [loop.id])
    return not any(_may_alias(a, b) for a in writes for b in loop_reads + loop_writes) \
        and not any(_may_alias(a, b) for a in loop_writes for b in reads)


def _touched(g: DataflowGraph, ids: list[str]) -> tuple[list, list]:
    """The access nodes that the memlets of these maps or tasklets read and write."""
    reads, writes = set(), set()
    for n in ids:
        reads |= {u for u, _, d in g.in_edges(n, data=True) if isinstance(d["edge"], Memlet)}
        writes |= {v for _, v, d in g.out_edges(n, data=True) if isinstance(d["edge"], Memlet)}
    return [g.nodes[x]["node"] for x in reads], [g.nodes[x]["node"] for x in writes]


def _may_alias(a: AccessNode, b: AccessNode) -> bool:
    if a.name == b.name:
        return True
    if a.kind == Kind.SCALAR or b.kind == Kind.SCALAR:
        return False
    return a.kind in (Kind.POINTER, Kind.MEMORY) or b.kind in (Kind.POINTER, Kind.MEMORY)
