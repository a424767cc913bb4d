"""A few-iteration loop around one long parallel loop: jam its iterations into one pass.

NPB IS's partial verification counts, for each of five probed keys, the keys below it:

    for (int t = 0; t < 5; t++) {
        long idx = probe[t] % n; int key = keys[idx]; long below = 0;
        for (long i = 0; i < n; i++) below += keys[i] < key;
        if (key > 0 && rank[key - 1] != below) bad++;
    }

`uneven.py` runs each count in parallel (five iterations share two threads badly), but every
count still reads the whole array: five passes over memory where one would do. Unrolling t
completely and jamming the copies into one loop over i reads each `keys[i]` once for all five:

    {
        long idx_0 = probe[0] % n; int key_0 = keys[idx_0]; long below_0 = 0;  ... (t = 1 .. 4)
        #pragma omp parallel for reduction(+: below_0, ..., below_4)
        for (long i = 0; i < n; i++) { below_0 += keys[i] < key_0; ... below_4 += keys[i] < key_4; }
        if (key_0 > 0 && rank[key_0 - 1] != below_0) bad++;  ... (t = 1 .. 4)
    }

isort's verification went from five passes of 64 MiB to one per ranking (user CPU of the whole
run 0.72 of the unjammed build's, two threads).

Legality: the analysis proved t parallel, with every scalar it privatizes declared in its body:
no dependence joins two iterations of t but through its reductions. The rewrite keeps the order
of each iteration's own statement instances (its statements before the inner loop, the inner
loop's iterations in order, its statements after) and only interleaves different iterations,
which no dependence orders; each copy gets its own copy of the body's scalars (renamed, as
privatization would), and the updates of t's reductions after the loop keep their order. The
inner loop's own plan (proved for one iteration of t: its reductions the body's scalars, its
bounds free of t and of them) holds for every copy alike, so the jammed loop reduces each copy's
scalars.

Where: the map t of a constant trip count up to `MAX_COPIES` from an integer literal, its variable
declared in its header, proved parallel, unplanned,
whose body is statements around exactly one map, a parallel-planned loop I of statements only
(uneven.py's choice), with nothing else in the plan (no section, scratch buffer, guarded update,
collapse or lastprivate), and every reduction and private of I and every private of t a scalar
declared in t's body. Every statement's text must name t and those scalars as often as its
syntax tree does (no macro hides a use). t becomes a block of one iteration (`MapScope.block`)
holding the copies; the nest is then re-emitted from the graph (`restructured`).
"""
from __future__ import annotations

import re

from pycparser import c_ast

from lifter.analysis.model import Kind, Region
from lifter.transform.parallelize import Refusal
from lifter.graph.attributes import DataflowGraph
from lifter.graph.nodes import MapScope, Schedule, Scope, Tasklet, guards_updates, scope_children
from lifter.transform.legality import reorder_guard
from lifter.transform.loop_vars import escaping
from lifter.transform.rewrite import fresh_name, move_child
from lifter.transform.source_text import identifier_count
from lifter.transform.tiling import nest_names
from lifter.transform.unroll import copy_tasklet, header_parts, statement_uses

MAX_COPIES = 8  # beyond this many copies of the body the jammed loop spills registers


def jam_outer_loops(g: DataflowGraph, region: Region) -> bool:
    """Jam every qualifying few-iteration map into the parallel loop inside it; True if any."""
    if not g.nest.whole_texts or escaping(g) or guards_updates(g) or reorder_guard(g).startswith("!"):
        return False  # a volatile access must keep its place (`reorder_guard`)
    taken = nest_names(g)
    changed = False
    for m_id in [n for n, d in g.nodes(data=True) if isinstance(d["node"], MapScope)]:
        found = _candidate(g, region, m_id)
        if found is not None:
            _rewrite(g, m_id, *found, taken)
            changed = True
    if changed:
        g.nest.restructured = True
    return changed


def _candidate(g, region: Region, m_id: str) -> tuple[str, int, dict, set[str]] | None:
    """(inner map, trip count, header parts, scalars declared in the body) where `m_id` qualifies."""
    m = g.nodes[m_id]["node"]
    trips = (m.trip_count or "").rstrip("L")
    if not trips.isdigit() or not 2 <= int(trips) <= MAX_COPIES or m.schedule != Schedule.PARALLEL:
        return None
    if m.plan or m.condition or m.shared_scratch or m.tile or m.parallel_region or m.declarations or m.block \
            or m.lastprivate or m.conditions:
        return None
    parts = header_parts(m)
    kids = scope_children(g, m_id)
    inner = [k for k in kids if isinstance(g.nodes[k]["node"], MapScope)]
    if parts is None or not parts["type"] or not parts["lb"].strip().isdigit() or len(inner) != 1:
        return None
    declared = {c.name for c in region.containers.values() if c.declared_in == m.origin}
    if any(c.declared_in == m.origin and (c.kind != Kind.SCALAR or c.ndim) for c in region.containers.values()):
        return None
    if not set(m.private) <= declared or not _inner_qualifies(g, inner[0], declared, m.var):
        return None
    tasklets = [k for k in kids if k != inner[0]] + scope_children(g, inner[0])
    names = declared | {m.var}
    if not all(_spelled_out(g, region, t, names) for t in tasklets):
        return None
    return inner[0], int(trips), parts, declared


def _inner_qualifies(g, i_id: str, declared: set[str], var: str) -> bool:
    """The inner map is a planned parallel loop of statements whose plan only reduces or
    privatizes the body's scalars (`declared`) and whose header names none of them nor `var`."""
    i = g.nodes[i_id]["node"]
    plan = i.plan
    if plan is None or i.schedule != Schedule.PARALLEL or i.declarations or i.prologue or i.epilogue or i.conditions:
        return False
    if plan.collapse != 1 or plan.lastprivate or plan.sections or plan.scratch or plan.guarded or plan.worksharing \
            or i.parallel_region or i.tile:
        return False
    if any(not isinstance(g.nodes[k]["node"], Tasklet) for k in scope_children(g, i_id)):
        return False
    used = {n for n, _ in plan.reductions} | set(plan.private) | {n for n, _ in i.reductions}
    header = re.findall(r"[A-Za-z_]\w*", i.header + " " + plan.condition)
    return used <= declared and not (declared | {var}) & set(header)


def _spelled_out(g, region: Region, t: str, names: set[str]) -> bool:
    """The statement's text names each of `names` as often as its syntax tree and its `if`s do
    (renaming the text then renames every use), and holds no literal a rename could reach into."""
    node = g.nodes[t]["node"]
    stmt = region.statements.get(t)
    if stmt is None or not node.text or re.search(r"[\"'#]", node.text):
        return False
    conditions = stmt.conditions if node.guarded_text else []
    declares = stmt.node.name if isinstance(stmt.node, c_ast.Decl) else None  # `long idx = ...` names idx
    return all(statement_uses(stmt.node, n) + sum(identifier_count(c.text, n) for c in conditions) + (n == declares)
               == identifier_count(node.text, n) for n in names)


def _rewrite(g, m_id: str, i_id: str, copies: int, parts: dict, declared: set[str], taken: set[str]) -> None:
    """Make `m_id` a block of copies, its statements before and after the inner map and the inner
    map's statements repeated for each value of its variable (see the module's docstring).

    The variable becomes a constant of its own type (`((long)3)`: `t * 1000000000` must not turn
    into an `int` product), bare for `int`, the type of a plain literal."""
    m, i = g.nodes[m_id]["node"], g.nodes[i_id]["node"]
    lb, kind = int(parts["lb"]), parts["type"]
    renames = []
    for d in range(copies):
        value = str(lb + d) if kind == "int" else f"(({kind}){lb + d})"
        renames.append({m.var: value, **{n: fresh_name(f"{n}_{d}", taken) for n in sorted(declared)}})
    kids = scope_children(g, m_id)
    at = kids.index(i_id)
    before, after, body = kids[:at], kids[at + 1:], scope_children(g, i_id)
    order = 0
    for group in (before, [i_id], after):
        if group == [i_id]:
            move_child(g, i_id, m_id, order)
            order += 1
            continue
        for d, names in enumerate(renames):
            for t in group:
                g.add_edge(m_id, copy_tasklet(g, t, f"{t}.jam{d}", names), edge=Scope(order))
                order += 1
    for d, names in enumerate(renames):
        for k, t in enumerate(body):
            g.add_edge(i_id, copy_tasklet(g, t, f"{t}.jam{d}", names), edge=Scope(d * len(body) + k))
    g.remove_nodes_from(before + after + body)
    i.plan.reductions = _expanded(i.plan.reductions, renames)
    i.reductions = _expanded(i.reductions, renames)
    i.plan.private = [r[n] for n in i.plan.private for r in renames]
    i.transformations.append("unroll-and-jam")
    m.begin = m.end = parts["lb"]
    m.trip_count = m.max_trip_count = "1"
    m.block = True
    m.transformations.append("unroll-and-jam")
    m.not_parallelized = Refusal(f"not profitable: its {copies} iterations would share the threads unevenly; "
                                 f"they were jammed into one loop over '{i.var}', which runs in parallel "
                                 f"(one pass instead of {copies})", "not-profitable")
    m.not_parallelized_code = m.not_parallelized.code


def _expanded(reductions: list[tuple[str, str]], renames: list[dict[str, str]]) -> list[tuple[str, str]]:
    """Each reduction of a body scalar, once for every copy's name of it."""
    return [(r[name], op) for name, op in reductions for r in renames]


__all__ = ["MAX_COPIES", "jam_outer_loops"]
