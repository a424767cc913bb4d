"""Innermost parallel maps with unit-stride accesses get `#pragma omp simd`.

The C compiler vectorizes most such loops by itself; the directive matters where
it cannot prove what lift has proved: no aliasing between pointers, and
floating-point reductions, which `simd reduction(...)` lets it reorder. So a
map qualifies only when it has no inner maps, every access is unit-stride or
invariant along it, it needs no private scalars, its pointers need no run-time
alias check, and no enclosing map is versioned (the sequential copy of a
versioned loop is emitted as written, without directives). A variable declared
outside the loop and read after it must see a non-empty loop: `omp simd` makes it
linear, which sets it after the last iteration but leaves it alone when there is
none (the loop as written sets it to its start).
"""
from __future__ import annotations


from lifter.analysis.model import Kind, Region
from lifter.frontend.loop_form import canonical
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE
from lifter.graph.nodes import MapScope, Schedule, Tasklet, scope_children, scope_descendants, scope_parent
from lifter.transform.locality import stride_kind
from lifter.transform.loop_vars import read_after
from lifter.transform.alias_test import alias_check


def plan_simd(g: DataflowGraph) -> bool:
    """Mark every map that qualifies for `omp simd`; True if any."""
    region: Region = g.nest.scop
    changed = False
    for n, d in g.nodes(data=True):
        m = d["node"]
        if isinstance(m, MapScope) and qualifies(g, region, m):
            m.simd = changed = True
    return changed


def _runs(m: MapScope) -> bool:
    """The loop runs at least once whenever it is reached (a positive constant trip count)."""
    try:
        return int((m.trip_count or "0").rstrip("L")) > 0
    except ValueError:
        return False


def qualifies(g, region: Region, m: MapScope, restructured: bool = False) -> bool:
    """`m` may get `omp simd`. `restructured`: the nest will be re-emitted from the graph, only
    where its reorder guard holds (unroll-and-jam asks so): that test of the whole nest's
    pointers covers the loop's, and a versioned loop's sequential copy is then re-emitted too,
    without directives."""
    if m.schedule != Schedule.PARALLEL or m.offset is None or m.private or m.lastprivate or not canonical(m.header, m.var):
        return False
    kids = scope_children(g, m.id)
    if any(isinstance(g.nodes[k]["node"], MapScope) for k in kids):
        return False
    if not m.var_declared_in_header and not _runs(m) and read_after(g, m.id, m.var):
        return False
    if any(region.containers_by_name(name).ndim > 0 or not name.isidentifier() for name, _ in m.reductions):
        return False
    parent = scope_parent(g, m.id)
    if parent != STATE and g.nodes[parent]["node"].plan is not None and g.nodes[parent]["node"].plan.collapse > 1:
        return False  # collapsed into its parent's parallel loop: no directive may come between
    while parent != STATE and not restructured:
        plan = g.nodes[parent]["node"].plan
        if plan is not None and plan.versioned:
            return False
        parent = scope_parent(g, parent)
    if m.plan is not None and m.plan.versioned:
        return False
    depth = region.loops[m.origin].depth
    for t in scope_descendants(g, m.id):
        if not isinstance(g.nodes[t]["node"], Tasklet):
            continue
        stmt = region.statements[t]
        if stmt.opaque_reason:
            return False
        for acc in stmt.accesses:
            if stride_kind(acc.relation, depth, len(stmt.loops)) not in (1, 3):
                return False
            if _loaded_base(region.containers.get(acc.container)):
                return False
    return alias_check(g, m) == "" or restructured


def _loaded_base(c) -> bool:
    """The container is the target of a pointer held in a struct (`sim->u[c]`, `g.v[i]`): under
    `omp simd` GCC 12 loads that pointer again for every lane and gathers through it instead of
    loading a vector (stencil3d's `sum += sim->u[c]`: 3.4x the time of the loop without the
    directive, measured at 1 thread, -O3 -march=native), where without the directive it hoists the
    load and vectorizes as it can. Such a loop keeps the plain `parallel for`."""
    return c is not None and c.kind == Kind.POINTER and ("->" in c.name or "." in c.name)
