"""Register blocking by unroll-and-jam of the loops around a vectorizable innermost loop.

In gemm's tiled `for i for k for j C[i][j] += a * A[i][k] * B[k][j]` every
iteration of j loads C[i][j] and B[k][j] and stores C[i][j]. Unrolling k by 4
and i by 2 and jamming the copies into j's body (`C[i][j] += ... B[k][j];
C[i][j] += ... B[k + 1][j]; ... C[i + 1][j] += ... B[k][j]; ...`) lets the C
compiler keep C[i][j] in a register across the four k copies and reuse each
B[k + d][j] for both i copies: eight multiply-adds per vector for six loads,
where the nest as written does two for three (gcc's own unroll-and-jam of k by
2 included). Measured on gemm's tiled nest (1600^3, one thread): 0.62 s of CPU
as tiled, 0.50 s unrolled so.

Where: an innermost map J with statements only, whose every access is
unit-stride or invariant along J (it stays vectorizable, and is never unrolled
itself); the maps directly around it, each the only child of the one above
(tile loops end the chain), are unrolled when some array access of the body is
invariant along them (that value is what the copies share in a register): the
nearest by 4, the next by the largest of OUTER_FACTORS whose jammed body fits
REGISTERS (`registers` states the rule). A map is left alone when it declares
variables, has a parallel plan or region, or its header is not `for ([T] v = lb;
v < ub (or <=); v++)` with bounds free of calls, assignments and the variables
of the loops inside it (the copies substitute `v + d` in statements only), J's
bounds excepted: there the copies' runs of J differ, and `_split_runs` runs J's
common range jammed and each copy's head and tail alone (the loop outside such a
loop is not unrolled).

Legality: unroll-and-jam of L by u is strip-mining L by u and moving the point
loop inside every loop below L; the main loop runs whole strips and the
remainder loop the last, partial one. That tree (a tile map of size u at L's
place, L's point loop directly above the statements) is checked against every
dependence of the region with `legality.legal_tree`; where it fails the
outermost candidate is dropped and the check repeated. A point loop of a tile
is unrolled only by a factor that divides the tile size, so that the strips
start where the checked schedule says.

The rewrite: L's header becomes `for (v = lb; v + u - 1 < ub; v += u)`; a copy
of L's subtree follows it as the remainder, `for (; v < ub; v++)` (for a
variable declared in the header: `for (T v = ub > lb ? lb + (ub - lb) / u * u :
lb; ...)`, exact for unsigned types too); every statement under the main loop
is followed by its u - 1 copies with `v` replaced by `(v + d)`, on whole
identifiers only (`source_text.rename_identifiers`); a statement whose text
names `v` a different number of times than its syntax tree does (a macro using
it) is never copied. `v + u - 1 < ub` overflows only where `ub` is within u - 1
of its type's largest value. The copies are new tasklets and maps of the graph
(with their memlets) that the region's model does not know, so this pass runs
last, after parallelization and `simd` marking, which the copies inherit.
"""
from __future__ import annotations

import dataclasses
import math
import re

import islpy as isl
from pycparser import c_ast

from lifter.analysis.affine import isl_name
from lifter.analysis.model import Kind, Region
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE
from lifter.graph.nodes import MapScope, Memlet, Scope, Tasklet, guards_updates, scope_children, scope_descendants, scope_parent
from lifter.transform.checkpoint import checkpoint, rollback
from lifter.transform.legality import legal_tree
from lifter.transform.locality import stride_kind
from lifter.transform.rewrite import copy_map, fresh_name, move_child, origins_above, renamed_memlet, shift_orders
from lifter.transform.loop_vars import escaping
from lifter.transform.source_text import identifier_count, rename_identifiers
from lifter.transform.tiling import header_clauses, nest_names, unrolled_whole
from lifter.transform.vectorize import qualifies

NEAREST = 4  # the factor of the loop just outside the innermost one
OUTER_FACTORS = (4, 2)  # the loop outside it: the first whose jammed body fits REGISTERS
REGISTERS = 32  # vector registers of x86-64 with AVX-512 and of AArch64 (AVX2 has 16)

# Bounds the copies may repeat: names, numbers, arithmetic, comparisons, `?:`, subscripts;
# no calls, increments or assignments.
_PLAIN_BOUND = re.compile(r"[\w\s+\-*/%()\[\].<>=!?:]+")
_SIDE_EFFECT = re.compile(r"\w\s*\(|\+\+|--|(?<![<>=!])=(?!=)")


def innermost_maps(g: DataflowGraph) -> list[str]:
    """The maps with no map inside: where unroll-and-jam and register accumulators start."""
    return [n for n, d in g.nodes(data=True) if isinstance(d["node"], MapScope)
            and not any(isinstance(g.nodes[k]["node"], MapScope) for k in scope_children(g, n))]


def unroll_and_jam(g: DataflowGraph, region: Region) -> bool:
    """Unroll and jam the loops around every qualifying innermost map of the graph; True if any."""
    if not g.nest.reemittable or escaping(g):
        return False  # a jammed copy would leave a loop variable read after its loop at another value
    if guards_updates(g):
        return False  # guarded updates are placed at the user's text offsets, gone from a re-emitted nest
    taken = nest_names(g)
    changed = False
    for j in innermost_maps(g):
        plan = _candidates(g, region, j)
        try:
            while plan and not _legal(g, region, j, plan):
                plan = plan[1:]
        except isl.Error:
            continue
        if plan:
            g.nodes[j]["node"].simd = True
            shifts = {t: (t, {}) for t in scope_children(g, j)}
            for loop, factor in reversed(plan):  # innermost first: its copies are jammed in turn
                jam_rewrite(g, region, loop, factor, shifts, taken)
            _hoist_invariants(g, region, j, shifts, taken)
            _registers_for_writes(g, region, j, plan, shifts, taken)
            g.nest.restructured = True
            changed = True
    return changed


# -- where ------------------------------------------------------------------------------------
def _candidates(g, region: Region, j: str) -> list[tuple[str, int]]:
    """[(map, factor)], outermost first, for the chain of maps around innermost map `j`."""
    inner = g.nodes[j]["node"]
    tasklets = scope_children(g, j)
    if inner.declares or inner.declarations or inner.tile or not tasklets or unrolled_whole(inner):
        return []
    stmts = [region.statements.get(t) for t in tasklets]
    if any(s is None or s.opaque_reason or re.search(r"[\"'#]", g.nodes[t]["node"].text)
           for s, t in zip(stmts, tasklets)):
        return []
    if not (inner.simd or qualifies(g, region, inner, restructured=True)):
        return []  # the innermost loop must stay vectorizable whatever the compiler knows of aliasing
    plan, child = [], j
    for nearest in (True, False):
        loop = scope_parent(g, child)
        if loop == STATE or scope_children(g, loop) != [child] or not unrollable(g, region, loop, stmts, j):
            break
        factor = fitting(g, loop, NEAREST) if nearest else next(
            (f for f in (fitting(g, loop, c) for c in OUTER_FACTORS)
             if f and registers(g, region, [(loop, f)] + plan, j, stmts) <= REGISTERS), 0)
        if factor and _reused(region, g.nodes[loop]["node"], stmts):
            plan.insert(0, (loop, factor))
        if peeled(g, loop, j):
            break  # one loop's copies split the innermost loop's runs: no loop outside it is unrolled
        child = loop
    return plan


def peeled(g, loop: str, j: str) -> bool:
    """The bounds of innermost map `j` name the variable of `loop`: its jammed copies run `j` over
    different ranges (`_split_runs`)."""
    return identifier_count(g.nodes[j]["node"].header, g.nodes[loop]["node"].var) > 0


def unrollable(g, region: Region, loop: str, stmts, inner: str | None = None) -> bool:
    """`loop` may be unrolled and jammed around the statements `stmts`. Only `inner`, the
    innermost map, may use its variable in its bounds, and only in a header `_split_runs` can
    rewrite (`v < ub`)."""
    m = g.nodes[loop]["node"]
    if m.tile or m.declares or m.declarations or m.plan is not None or m.parallel_region is not None:
        return False
    parent = scope_parent(g, loop)
    if parent != STATE and g.nodes[parent]["node"].parallel_region is not None:
        return False  # the region's `omp single` runs name its children: no new sibling there
    if collapsed_above(g, loop):
        return False
    if header_parts(m) is None:
        return False
    below = [g.nodes[d]["node"] for d in scope_descendants(g, loop) if isinstance(g.nodes[d]["node"], MapScope)]
    if any(b.plan is not None for b in below):
        return False  # copies of other iterations inside a parallel loop could race
    name = isl_name(m.var)
    parts = header_parts(g.nodes[inner]["node"]) if inner is not None else None
    splits = parts is not None and parts["op"] == "<" and peeled(g, loop, inner)
    # Rectangular but for `inner`: the loops inside do not use v in their bounds, in the model nor
    # as the nest now runs them (a rotated solve's `for (i = j + 1; ...)`, which the model's bounds
    # do not say).
    for b in below:
        bounds = region.loops[b.origin].lower + " " + region.loops[b.origin].upper
        if (re.search(rf"\b{re.escape(name)}\b", bounds) or identifier_count(b.header, m.var)) \
                and not (splits and b.id == inner):
            return False
    # Every use of v in a statement is visible in its text (no macro hides one).
    return all(statement_uses(s.node, m.var) == identifier_count(g.nodes[s.id]["node"].text, m.var) for s in stmts)


def collapsed_above(g, node_id: str) -> bool:
    """A map around `node_id` collapses loops with its plan: they must stay perfectly nested (no
    new sibling, no block around a loop)."""
    return any(g.nodes[a]["node"].plan is not None and g.nodes[a]["node"].plan.collapse > 1 for a in _above(g, node_id))


def header_parts(m: MapScope) -> dict | None:
    """The header's type, variable, bounds and test, if the rewrite can repeat them exactly."""
    if m.step != 1 or m.decreasing:
        return None
    match = header_clauses(m.header)
    if match is None or match["var"] != m.var:
        return None
    lb, ub = match["lb"], match["ub"]
    for bound in (lb, ub):
        if not _PLAIN_BOUND.fullmatch(bound) or _SIDE_EFFECT.search(bound) or re.search(rf"\b{m.var}\b", bound):
            return None
    return {"type": match["type"].strip(), "var": m.var, "lb": lb, "op": match["op"], "ub": ub}


def fitting(g, loop: str, factor: int) -> int:
    """The factor, halved until it divides the size of the tile whose point loop this is (0: none)."""
    m = g.nodes[loop]["node"]
    tile = next((g.nodes[a]["node"].tile for a in _above(g, loop)
                 if g.nodes[a]["node"].tile and g.nodes[a]["node"].origin == m.origin), 0)
    while factor > 1 and tile and tile % factor:
        factor //= 2
    trips = (m.trip_count or "").rstrip("L")
    if factor < 2 or trips.isdigit() and int(trips) < 2 * factor:
        return 0
    return factor


def registers(g, region: Region, plan: list[tuple[str, int]], j: str, stmts) -> int:
    """Vector registers the body jammed by `plan` keeps live across one iteration of innermost
    map `j`: one per copy of each element read unchanged along `j` (`_hoist_invariants`) and of
    each written element (`_registers_for_writes`), one for the element streamed in.

    The profitability rule behind OUTER_FACTORS: each streamed element (correlation's
    `data[k][j]`, from L2 in the tiled nest) is shared by the copies of the loops along which it
    is invariant, so the jammed body loads 1/u_o as many per multiply-add as the nest unrolled
    only along its nearest loop; the larger factor pays while the body's registers fit (past
    them the compiler reloads the invariants from the stack). Copies of an access are counted
    per plan loop it varies along, whatever its text (an over-count where copies coincide)."""
    depths = [(region.loops[g.nodes[loop]["node"].origin].depth, u) for loop, u in plan]
    lane = region.loops[g.nodes[j]["node"].origin].depth
    kept = {}
    for s in stmts:
        for a in s.accesses:
            ndims = len(s.loops)
            if a.relation.range().dim(isl.dim_type.set) and (a.is_write or stride_kind(a.relation, lane, ndims) == 1):
                kept[a.text] = math.prod(u for d, u in depths if stride_kind(a.relation, d, ndims) != 1)
    return 1 + sum(kept.values())


def _reused(region: Region, m: MapScope, stmts) -> bool:
    """Some array access of the body is the same for every iteration of `m`: the copies share it."""
    depth = region.loops[m.origin].depth
    return any(a.relation.range().dim(isl.dim_type.set) > 0 and stride_kind(a.relation, depth, len(s.loops)) == 1
               for s in stmts for a in s.accesses)


def statement_uses(node: c_ast.Node, name: str) -> int:
    """Uses of variable `name` in a statement's syntax tree (member names `s.name` are not uses)."""
    count, todo = 0, [node]
    while todo:
        n = todo.pop()
        if isinstance(n, c_ast.ID) and n.name == name:
            count += 1
        todo.extend(child for field, child in n.children() if not (isinstance(n, c_ast.StructRef) and field == "field"))
    return count


def _above(g, node_id: str) -> list[str]:
    out, parent = [], scope_parent(g, node_id)
    while parent != STATE:
        out.append(parent)
        parent = scope_parent(g, parent)
    return out


# -- legality ---------------------------------------------------------------------------------
def _legal(g, region: Region, j: str, plan: list[tuple[str, int]]) -> bool:
    """Unroll-and-jam by `plan` around innermost map `j` keeps every dependence, and `j` stays
    free of dependences between its iterations within one strip (its `omp simd`).

    A loop whose copies split `j`'s runs (`peeled`; the outermost of the plan) reorders its
    copies' instances otherwise than the strip-mined tree says (`_split_runs`); it is legal when
    no dependence joins two of its copies in one strip, whatever the loops inside them: then
    any interleaving of the copies is, and each copy runs its own instances in the order the
    rest of the plan gives them, which `strip_legal` checks."""
    rest = [(loop, u) for loop, u in plan if not peeled(g, loop, j)]
    split = [(loop, u) for loop, u in plan if peeled(g, loop, j)]
    if split:
        loop, u = split[0]
        inside = {t for t in scope_descendants(g, loop) if isinstance(g.nodes[t]["node"], Tasklet)}
        depth = region.loops[g.nodes[loop]["node"].origin].depth
        if not _independent(region, inside, [region.loops[o].depth for o in origins_above(g, loop)], [(depth, u)],
                            depth):
            return False
    return (not rest or strip_legal(g, region, j, rest)) and _lanes_independent(g, region, j, plan)


def strip_legal(g, region: Region, j: str, plan: list[tuple[str, int]]) -> bool:
    """The strip-mined tree with the plan's point loops directly above the statements (the
    children of innermost map `j`) is legal: unroll-and-jam by the plan's factors is."""
    saved = checkpoint(g)
    try:
        tasklets = scope_children(g, j)
        for loop, factor in plan:
            parent = scope_parent(g, loop)
            order = _order(g, parent, loop)
            strip = dataclasses.replace(copy_map(g.nodes[loop]["node"], f"{loop}.strip"), tile=factor, step=factor)
            g.add_node(strip.id, node=strip)
            move_child(g, loop, strip.id, 0)  # drop the edge from parent: re-added below
            g.remove_edge(strip.id, loop)
            g.add_edge(parent, strip.id, edge=Scope(order))
            for position, child in enumerate(scope_children(g, loop)):
                move_child(g, child, strip.id, position)
        above = j
        for loop, _ in plan:
            g.add_edge(above, loop, edge=Scope(len(tasklets)))
            above = loop
        for position, t in enumerate(tasklets):
            move_child(g, t, above, position)
        return legal_tree(g, region)
    finally:
        rollback(g, saved)


def _lanes_independent(g, region: Region, j: str, plan: list[tuple[str, int]]) -> bool:
    """No dependence joins two iterations of `j` within one strip of the unrolled loops, so
    `omp simd` stays true of the jammed body (strips over-approximated by distances below u)."""
    outer = [region.loops[o].depth for o in origins_above(g, plan[0][0])]
    near = [(region.loops[g.nodes[loop]["node"].origin].depth, u) for loop, u in plan]
    return _independent(region, set(scope_children(g, j)), outer, near, region.loops[g.nodes[j]["node"].origin].depth)


def _independent(region: Region, inside: set[str], outer: list[int], near: list[tuple[int, int]], apart: int) -> bool:
    """No dependence between two instances of the statements `inside` at the same values of the
    loops at depths `outer`, less than u apart in each loop (depth, u) of `near`, and at different
    values of the loop at depth `apart` (the other loops free)."""
    for kind in ("flow", "anti", "output"):
        deps = []
        region.dependences[kind].foreach_map(deps.append)
        for dep in deps:
            src, dst = dep.get_tuple_name(isl.dim_type.in_), dep.get_tuple_name(isl.dim_type.out)
            if src.rsplit("_a", 1)[0] not in inside or dst.rsplit("_a", 1)[0] not in inside:
                continue
            ins = [f"i{k}" for k in range(dep.dim(isl.dim_type.in_))]
            outs = [f"o{k}" for k in range(dep.dim(isl.dim_type.out))]
            cond = [f"o{d} = i{d}" for d in outer] + [f"-{u} < o{d} - i{d} < {u}" for d, u in near]
            cond.append(f"o{apart} != i{apart}")
            same = isl.Map(f"{{ {src}[{', '.join(ins)}] -> {dst}[{', '.join(outs)}] : {' and '.join(cond)} }}")
            if not dep.intersect(same).is_empty():
                return False
    return True


def _order(g, parent: str, child: str) -> int:
    return next(d["edge"].order for d in g.get_edge_data(parent, child).values() if isinstance(d["edge"], Scope))


# -- the rewrite ------------------------------------------------------------------------------
def jam_rewrite(g, region: Region, loop: str, factor: int, shifts: dict, taken: set[str] | None = None) -> None:
    """Make `loop` step by `factor` over whole strips, jam the copies, add the remainder loop.

    `shifts`: tasklet -> (the statement it copies, {loop variable: offset}), kept up to date;
    `taken`: the names in use, where a body's bounds name `loop`'s variable (`_split_runs`)."""
    m = g.nodes[loop]["node"]
    h = header_parts(m)
    parent = scope_parent(g, loop)
    order = _order(g, parent, loop)
    shift_orders(g, parent, [s for s in scope_children(g, parent) if s != loop], order, 1)
    rest = _copy_subtree(g, loop, parent, order + 1, f".{m.var}_rest", shifts)
    lb, ub, op, v = h["lb"], h["ub"], h["op"], h["var"]
    if h["type"]:
        start = f"({ub}) {'>' if op == '<' else '>='} ({lb}) ? ({lb}) + (({ub}) - ({lb}){' + 1' if op == '<=' else ''})" \
                f" / {factor} * {factor} : ({lb})"
        g.nodes[rest]["node"].header = f"for ({h['type']} {v} = {start}; {v} {op} {ub}; {v}++)"
    else:
        g.nodes[rest]["node"].header = f"for (; {v} {op} {ub}; {v}++)"
    g.nodes[rest]["node"].transformations.append("unroll-and-jam")
    bound = f"({ub})" if re.search(r"[<>=!?:]", ub) else ub  # the test must not change how ub parses
    m.header = f"for ({h['type'] + ' ' if h['type'] else ''}{v} = {lb}; {v} + {factor - 1} {op} {bound}; {v} += {factor})"
    m.step = factor
    m.transformations.append("unroll-and-jam")
    limits: dict[str, tuple[str, str]] = {}  # a split body's header: its `lo` and `hi` (`_split_runs`)
    for body in {scope_parent(g, t) for t in scope_descendants(g, loop) if isinstance(g.nodes[t]["node"], Tasklet)}:
        _jam(g, body, v, factor, shifts)
        if identifier_count(g.nodes[body]["node"].header, v):
            _split_runs(g, loop, body, factor, shifts, limits.setdefault(g.nodes[body]["node"].header, (
                fresh_name(f"{g.nodes[body]['node'].var}_lo", taken), fresh_name(f"{g.nodes[body]['node'].var}_hi", taken))))


def _split_runs(g, loop: str, body: str, factor: int, shifts: dict, limits: tuple[str, str]) -> None:
    """Run the jammed copies of `body`, whose bounds name the variable v of `loop`, over the
    range common to all of them, and each copy alone over the rest of its own range.

    Copy e of correlation's `for (j = max(j_t, i + 1); j < ub; j++)` runs from
    `max(j_t, i + e + 1)`: the copies' ranges differ. With lb_e, ub_e the bounds of copy e (v
    replaced by `(v + e)`), `lo` the largest lb_e and `hi` the larger of `lo` and the least
    ub_e, every copy e runs exactly its own range [lb_e, ub_e), in order, as three loops:
    [lb_e, min(lo, ub_e)) alone before, [lo, hi) jammed with the other copies in `body`, and
    [hi, ub_e) alone after. (Where [lo, hi) is not empty every ub_e >= hi and lb_e <= lo; where
    it is, hi = lo and the copy's range is split at lo.) `lo` and `hi` are locals of `loop`'s
    body (they name v and the loops above `body`, not the loops between). `unroll._legal` proves
    that copies may run in any interleaving."""
    m, around = g.nodes[body]["node"], g.nodes[loop]["node"]
    h, var = header_parts(m), around.var
    bounds = [(rename_identifiers(h["lb"], {var: f"({var} + {e})"} if e else {}),
               rename_identifiers(h["ub"], {var: f"({var} + {e})"} if e else {})) for e in range(factor)]
    lo, hi = limits
    if not any(re.search(rf"\b{lo} = ", d) for d in around.declarations):  # not by a copy with the same bounds
        kind = f"__typeof__(({h['type']})0 + 0L)" if h["type"] else f"__typeof__({m.var} + 0L)"
        around.declarations += [f"{kind} {lo} = {bounds[0][0]}, {hi} = {bounds[0][1]};"] \
            + [f"{lo} = {lo} < {lb} ? {lb} : {lo};" for lb, _ in bounds[1:]] \
            + [f"{hi} = {hi} > {ub} ? {ub} : {hi};" for _, ub in bounds[1:]] + [f"{hi} = {hi} < {lo} ? {lo} : {hi};"]
        around.declares = True
    declared = f"{h['type']} " if h["type"] else ""
    parent, order = scope_parent(g, body), _order(g, scope_parent(g, body), body)
    copies = {e: [t for t in scope_children(g, body) if shifts[t][1].get(var, 0) == e] for e in range(factor)}
    runs = [(f"{m.var}_head{e}", f"for ({declared}{m.var} = {lb}; {m.var} < ({lo} < {ub} ? {lo} : {ub}); {m.var}++)", e)
            for e, (lb, ub) in enumerate(bounds)]
    tails = [(f"{m.var}_tail{e}", f"for ({declared}{m.var} = {hi}; {m.var} < {ub}; {m.var}++)", e)
             for e, (_, ub) in enumerate(bounds)]
    siblings = [s for s in scope_children(g, parent) if s != body]
    shift_orders(g, parent, siblings, order, 2 * factor)
    shift_orders(g, parent, [body], order - 1, factor)
    firsts = [rename_identifiers(m.begin, {var: f"({var} + {e})"} if e else {}) for e in range(factor)]
    lasts = [rename_identifiers(m.end, {var: f"({var} + {e})"} if e else {}) for e in range(factor)]
    first, last = _fold("max", firsts), _fold("min", lasts)  # the same runs as inclusive bounds (exporters)
    ranges = [(b, f"min({first} - 1, {e})") for b, e in zip(firsts, lasts)] \
        + [(f"max({first}, {last} + 1)", e) for e in lasts]
    for position, (suffix, header, e) in enumerate(runs + tails):
        run = copy_map(m, f"{body}.{var}_{suffix}")
        run.header = header
        run.begin, run.end = ranges[position]
        g.add_node(run.id, node=run)
        _copy_memlets(g, body, run.id, {})
        g.add_edge(parent, run.id, edge=Scope(order + position + (position >= factor)))
        for index, t in enumerate(copies[e]):  # left out of `shifts`: short runs, their loads not hoisted
            g.add_edge(run.id, copy_tasklet(g, t, f"{t}.{suffix}", {}), edge=Scope(index))
    m.header = f"for ({declared}{m.var} = {lo}; {m.var} < {hi}; {m.var}++)"
    m.begin, m.end = first, last


def _fold(function: str, texts: list[str]) -> str:
    """`max(max(a, b), c)`: a binary function over several texts (the bounds' readable form)."""
    out = texts[0]
    for text in texts[1:]:
        out = f"{function}({out}, {text})"
    return out


def _jam(g, body: str, var: str, factor: int, shifts: dict) -> None:
    """Follow the statements of `body` by their copies for `var + 1` ... `var + factor - 1`."""
    tasklets = scope_children(g, body)
    for index, t in enumerate(tasklets):
        move_child(g, t, body, index)
    for d in range(1, factor):
        for index, t in enumerate(tasklets):
            stmt, offsets = shifts[t]
            copy = copy_tasklet(g, t, f"{t}.{var}{d}", {var: f"({var} + {d})"})
            shifts[copy] = (stmt, {**offsets, var: d})
            g.add_edge(body, copy, edge=Scope(len(tasklets) * d + index))


def _copy_subtree(g, node_id: str, parent: str, order: int, suffix: str, shifts: dict) -> str:
    """Copy a map and everything below it (memlets included) under `parent` at `order`."""
    node = g.nodes[node_id]["node"]
    new_id = f"{node_id}{suffix}"
    if isinstance(node, MapScope):
        copy = copy_map(node, new_id)
        copy.simd = node.simd
        g.add_node(new_id, node=copy)
        _copy_memlets(g, node_id, new_id, {})
        for child in scope_children(g, node_id):
            _copy_subtree(g, child, new_id, _order(g, node_id, child), suffix, shifts)
    else:
        copy_tasklet(g, node_id, new_id, {})
        shifts[new_id] = shifts[node_id]
    g.add_edge(parent, new_id, edge=Scope(order))
    return new_id


def copy_tasklet(g, node_id: str, new_id: str, names: dict[str, str]) -> str:
    """A copy of a tasklet with the variables `names` maps replaced (memlets included)."""
    t = g.nodes[node_id]["node"]
    g.add_node(new_id, node=dataclasses.replace(t, id=new_id, text=rename_identifiers(t.text, names),
                                                code=rename_identifiers(t.code, names)))
    _copy_memlets(g, node_id, new_id, names)
    return new_id


# -- scalar replacement -----------------------------------------------------------------------
_SCALAR_WORDS = {"double", "float", "int", "long", "short", "char", "unsigned", "signed"}


def in_register(region: Region, a) -> bool:
    """Access `a` is to one element of a scalar array, spelled out: a local can stand for it."""
    c = region.containers[a.container]
    return (bool(a.text) and not c.indirect and c.kind in (Kind.ARRAY, Kind.POINTER)
            and set(c.element.split()) - {"const"} <= _SCALAR_WORDS and a.relation.range().dim(isl.dim_type.set) > 0)


def local_type(c) -> str:
    """The type of a local holding one element of container `c` (its element type, not const)."""
    return " ".join(w for w in c.element.split() if w != "const")


def shifted_text(text: str, offsets: dict[str, int]) -> str:
    """`text` in a jammed copy whose loop variables are `offsets` ahead (`A[i][k]` -> `A[i][(k + 1)]`)."""
    return rename_identifiers(text, {v: f"({v} + {d})" for v, d in offsets.items()})


def _hoist_invariants(g, region: Region, j: str, shifts: dict, taken: set[str]) -> None:
    """Read each array element the jammed body uses unchanged across the innermost loop once,
    into a `const` local declared in the loop around it: the copies then share it in a register.

    The C compiler would do this itself if it knew the element is not written in the loop;
    after outlining for OpenMP it does not (the nest is re-emitted only where its pointers are
    disjoint, and no statement of the body writes the container). The local is read only
    when the innermost loop runs at least once (`lb < ub ? A[i][k] : 0`): the original reads
    the element only then."""
    depth = region.loops[g.nodes[j]["node"].origin].depth
    stmts = {stmt for stmt, _ in shifts.values()}
    written = {a.container for s in stmts for a in region.statements[s].accesses if a.is_write}
    invariant = {s: [a for a in region.statements[s].accesses if _hoistable(region, a, written, depth, len(
        region.statements[s].loops))] for s in stmts}
    for body in {scope_parent(g, t) for t in shifts}:
        parts, around = header_parts(g.nodes[body]["node"]), scope_parent(g, body)
        if parts is None or around == STATE:
            continue
        names: dict[str, str] = {}
        local = set(taken)
        for t in scope_children(g, body):
            stmt, offsets = shifts[t]
            node = g.nodes[t]["node"]
            for a in invariant[stmt]:
                key = shifted_text(a.text, offsets)
                pattern = element_pattern(key)
                if not pattern.search(node.text):
                    continue
                if key not in names:
                    c = region.containers[a.container]
                    names[key] = fresh_name(f"{c.name}_{len(names)}", local)
                    g.nodes[around]["node"].declarations.append(
                        f"const {local_type(c)} {names[key]} = {parts['lb']} {parts['op']} {parts['ub']} ? {key} : 0;")
                node.text = pattern.sub(names[key], node.text)
        if names:
            g.nodes[around]["node"].declares = True


def _registers_for_writes(g, region: Region, j: str, plan: list[tuple[str, int]], shifts: dict, taken: set[str]) -> None:
    """Keep each array element the jammed body writes in a local for one iteration of the
    innermost loop: read once at the top of the body, written back once at its end.

    gemm's jammed body adds four terms to C[i][j] and four to C[i + 1][j]; not knowing C from B,
    the C compiler stores C[i][j] after each addition (the next load of B might read it): eight
    stores per vector instead of two. It knows when the function is inlined where the arrays
    are allocated, but not in OpenMP's outlined copy of the loop (2mm's nest ran at 9 GF/s
    there, at 17 GF/s with the locals, one thread). Exact where nothing else in the body touches
    those elements: every statement is an assignment (no condition skips one), every access to a
    written container is one of the written elements' texts, two copies whose texts differ never
    write the same element (checked with isl over the strips of the unrolled loops), every other
    access to a written container never meets a written element in one iteration of the body
    (trmm's `B[k][j]` beside `B[i][j]`, k > i: `_apart`), and the nest runs only where its
    pointers are disjoint (`_hoist_invariants`)."""
    near = [(region.loops[g.nodes[loop]["node"].origin].depth, u, g.nodes[loop]["node"].var) for loop, u in plan]
    outer = [region.loops[o].depth for o in origins_above(g, plan[0][0])]
    lane = region.loops[g.nodes[j]["node"].origin].depth
    for body in {scope_parent(g, t) for t in shifts}:
        m = g.nodes[body]["node"]
        tasklets = scope_children(g, body)
        if m.declarations or any(not isinstance(g.nodes[t]["node"], Tasklet) or t not in shifts for t in tasklets):
            continue
        keys, apart = _written_elements(g, region, tasklets, shifts, near, outer, lane)
        if not keys or len(keys) == len(tasklets):
            continue  # nothing to keep, or no element written twice: no store saved
        local = set(taken)
        names = {key: fresh_name(f"{region.containers[c].name}_r{n}", local) for n, (key, c) in enumerate(keys.items())}
        texts = {}
        for t in tasklets:
            text = g.nodes[t]["node"].text
            for key, name in names.items():
                text = element_pattern(key).sub(name, text)
            texts[t] = text
        if any(re.search(rf"\b{re.escape(region.containers[c].name)}\b", _without(text, apart))
               for text in texts.values() for c in keys.values()):
            continue  # a spelling of a written element the keys miss
        for t, text in texts.items():
            g.nodes[t]["node"].text = text
        for key, name in names.items():
            m.declarations.append(f"{local_type(region.containers[keys[key]])} {name} = {key};")
        m.declares = True
        m.closing.append(" ".join(f"{key} = {name};" for key, name in names.items()))


def _written_elements(g, region: Region, tasklets: list[str], shifts: dict, near, outer,
                      lane: int) -> tuple[dict[str, str], set[str]]:
    """({text of a written element in the jammed body: its container}, {texts of the other
    accesses to those containers}), or ({}, set()) where keeping them in locals could change a
    result (see `_registers_for_writes`)."""
    keys: dict[str, str] = {}
    none: tuple[dict[str, str], set[str]] = ({}, set())
    stmts = {shifts[t][0] for t in tasklets}
    for sid in stmts:
        stmt = region.statements[sid]
        if not isinstance(stmt.node, c_ast.Assignment) or stmt.conditions:
            return none
        for a in stmt.accesses:
            if a.is_write and not (in_register(region, a) and _copies_apart(a, near, outer, len(stmt.loops))):
                return none
    for t in tasklets:
        stmt, offsets = shifts[t]
        for a in region.statements[stmt].accesses:
            if a.is_write:
                key = shifted_text(a.text, offsets)
                if not element_pattern(key).search(g.nodes[t]["node"].text):
                    return none  # the statement spells the element otherwise (a rewritten buffer)
                keys[key] = a.container
    apart: set[str] = set()
    writes = [(a, region.statements[sid]) for sid in stmts for a in region.statements[sid].accesses if a.is_write]
    for t in tasklets:
        stmt, offsets = shifts[t]
        for a in region.statements[stmt].accesses:
            key = shifted_text(a.text, offsets) if a.text else ""
            if a.container in keys.values() and key not in keys:
                if not key or not element_pattern(key).search(g.nodes[t]["node"].text) or not all(
                        _apart(a, w, near, outer, lane, len(s.loops)) for w, s in writes if w.container == a.container):
                    return none  # the container is read elsewhere, maybe at a written element
                apart.add(key)
    return keys, apart


def _copies_apart(a, near: list[tuple[int, int, str]], outer: list[int], ndims: int) -> bool:
    """Two instances of write `a` in one strip of the unrolled loops (the loops around them at the
    same values) whose texts differ (they differ in an unrolled variable the text names) never
    write the same element. `near`: (depth, factor, variable) of each unrolled loop."""
    named = [d for d, _, v in near if re.search(rf"\b{re.escape(v)}\b", a.text)]
    if not named:
        return True  # every copy has the same text: one local
    same = a.relation.apply_range(a.relation.reverse())
    name = a.relation.get_tuple_name(isl.dim_type.in_)
    ins, outs = [f"i{k}" for k in range(ndims)], [f"o{k}" for k in range(ndims)]
    depths = {d for d, _, _ in near}
    cond = [f"o{d} = i{d}" for d in outer] + [f"-{u} < o{d} - i{d} < {u}" for d, u, _ in near]
    cond.append("(" + " or ".join(f"o{d} != i{d}" for d in named) + ")")
    inner = [f"o{d} = i{d}" for d in range(ndims) if d not in depths and d not in outer]
    strip = isl.Map(f"{{ {name}[{', '.join(ins)}] -> {name}[{', '.join(outs)}] : {' and '.join(cond + inner)} }}")
    return same.intersect(strip.align_params(same.get_space())).is_empty()


def _apart(a, w, near: list[tuple[int, int, str]], outer: list[int], lane: int, ndims: int) -> bool:
    """Access `a` never touches an element write `w` writes at the same iteration of the
    innermost loop (depth `lane`) within one strip of the unrolled loops (`near`)."""
    meet = a.relation.apply_range(w.relation.reverse())
    src, dst = meet.get_tuple_name(isl.dim_type.in_), meet.get_tuple_name(isl.dim_type.out)
    ins, outs = [f"i{k}" for k in range(ndims)], [f"o{k}" for k in range(ndims)]
    cond = [f"o{d} = i{d}" for d in [*outer, lane]] + [f"-{u} < o{d} - i{d} < {u}" for d, u, _ in near]
    strip = isl.Map(f"{{ {src}[{', '.join(ins)}] -> {dst}[{', '.join(outs)}] : {' and '.join(cond)} }}")
    return meet.intersect(strip.align_params(meet.get_space())).is_empty()


def _without(text: str, keys: set[str]) -> str:
    """`text` with the element accesses `keys` taken out."""
    for key in keys:
        text = element_pattern(key).sub("", text)
    return text


def element_pattern(key: str) -> re.Pattern:
    """Where the text of element access `key` (`A[i][(k + 1)]`) stands whole in a statement: not
    a part of a longer name or member access, not the row of a deeper subscript."""
    return re.compile(rf"(?<![\w.])(?<!->){re.escape(key)}(?![\w\[]|\s+\[)")


def _hoistable(region: Region, a, written: set[str], depth: int, ndims: int) -> bool:
    return (not a.is_write and a.container not in written and in_register(region, a)
            and stride_kind(a.relation, depth, ndims) == 1)


def _copy_memlets(g, old: str, new: str, names: dict[str, str]) -> None:
    """The memlets of `old`, for `new`, with the variables `names` maps replaced."""
    for u, _, d in list(g.in_edges(old, data=True)):
        if isinstance(d["edge"], Memlet):
            g.add_edge(u, new, edge=renamed_memlet(d["edge"], names))
    for _, v, d in list(g.out_edges(old, data=True)):
        if isinstance(d["edge"], Memlet):
            g.add_edge(new, v, edge=renamed_memlet(d["edge"], names))


__all__ = ["collapsed_above", "copy_tasklet", "element_pattern", "fitting", "header_parts", "in_register", "innermost_maps",
           "jam_rewrite", "local_type", "shifted_text", "statement_uses", "strip_legal", "unroll_and_jam",
           "unrollable"]
