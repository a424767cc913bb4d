"""Loop-to-parallel-map: choose which parallel maps run in parallel, and how.

For each nest, the outermost map that the analysis proved parallel gets an
OpenMP plan, unless one of these holds (each is recorded for the report):

- its `for` keyword is not in the user's file (it comes from a macro);
- it reduces into an array section it cannot bound, or into an array whose other
  elements it also accesses (OpenMP's private copy of the section would hide them);
- a privatized variable's value is read after the loop, or a privatized scratch array
  is named elsewhere in the function (`scratch.py`);
- pointers it writes through may alias other data and no run-time check can
  be formed from the memlets;
- its work is provably tiny (profitability): a parallel region costs a few
  microseconds, more than a few thousand cheap iterations take;
- it only fills memory with one value (a memset: memory-bound, and the
  region's captured addresses would escape and slow the code around it).

A map that is parallel only under a condition on values (`MapScope.condition`,
from `analysis.verdicts.value_verdict`) is planned like the others with that
condition added to its guard, tested in C before a sequential copy; backends
that cannot test it (`value_guards` false: CUDA) leave it sequential.

Parametric work and pointer disjointness become the plan's run-time
`condition` (OpenMP's `if` clause): when it is false the loop runs on one
thread, in its original order, which is always correct.
"""
from __future__ import annotations

import re

import islpy as isl
from pycparser import c_ast

from lifter.analysis.affine import c_text, isl_name
from lifter.analysis.count import Poly, add_polys, constant, count_points, largest, poly_to_c, same_value
from lifter.analysis.model import Kind
from lifter.analysis.symbols import substitute
from lifter.conditions import parse_expression, readable
from lifter.frontend.loop_form import canonical
from lifter.frontend.spans import CExpr, Spans, c_expr, word_tokens
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE
from lifter.graph.nodes import (AccessNode, MapScope, Memlet, OmpPlan, Schedule, Tasklet, scope_children,
                                scope_descendants)
from lifter.analysis.ranges import bound_c
from lifter.transform.alias_test import (alias_condition, declared_inside, index_bounds, map_memlets, pairs_apart,
                                         typed_apart)
from lifter.transform.loop_vars import read_after
from lifter.transform.rewrite import ancestors
from lifter.transform.elementwise import identical_is_safe
from lifter.transform.guarded_updates import guarded_section, saved_reductions
from lifter.transform.row_spans import row_spans
from lifter.transform.scratch import scratch_buffers, scratch_containers, scratch_refusal
from lifter.transform.team_start import work_condition, work_parts
from lifter.transform.uneven import inner_maps

# Iterations x statements below which a parallel region costs more than it saves.
MIN_PARALLEL_WORK = 40_000
# Array reductions give each thread a private copy of the section, on its stack.
MAX_REDUCTION_ELEMENTS = 65_536
# Reduction operators with an `x binop= e` update: the form an unbounded update is guarded in.
_GUARDED_OPS = {"+", "*", "&", "|", "^"}


class Refusal(str):
    """Why a parallel map stays sequential: the sentence, and its stable reason_code (docs/report.md)."""

    def __new__(cls, text: str, code: str = ""):
        made = super().__new__(cls, text)
        made.code = code
        return made


def plan_openmp(g: DataflowGraph, min_work: int = MIN_PARALLEL_WORK, value_guards: bool = True,
                spans: Spans | None = None, assume_no_alias: bool = False, identical_pointers: bool = False,
                strict_aliasing: bool = True) -> None:
    """Plan the outermost parallel maps; `min_work` 0 turns the profitability guard off;
    `value_guards` false leaves maps that are parallel only under a test of values sequential;
    `spans` (the file's tokens) lets maps privatize scratch arrays the function names nowhere else;
    `assume_no_alias` (the user's promise) takes every pair of pointer parameters as apart;
    `identical_pointers` lets alias tests accept equal pointers where that is safe (OpenMP only:
    the CUDA target copies each pointer to a device buffer of its own, so equal is not one array);
    `strict_aliasing` false (cc's -fno-strict-aliasing: the program may access an object through
    another type) drops the pairs only C's type rules keep apart (`Region.type_apart`)."""
    g.nest.assume_no_alias = assume_no_alias
    g.nest.strict_aliasing = strict_aliasing
    g.nest.identical_pointers = identical_pointers
    g.nest.profitability = min_work > 0
    for child in scope_children(g, STATE):
        _visit(g, child, min_work, value_guards, spans)


def _visit(g: DataflowGraph, node_id: str, min_work: int, value_guards: bool, spans: Spans | None) -> None:
    node = g.nodes[node_id]["node"]
    if not isinstance(node, MapScope):
        return
    if node.schedule == Schedule.PARALLEL or node.condition or node.shared_scratch:
        if _inner_instead(g, node, min_work, value_guards, spans):
            return
        why = _plan(g, node, min_work, value_guards, spans)
        if not why:
            node.schedule = Schedule.PARALLEL
            return
        node.not_parallelized, node.not_parallelized_code = why, why.code
    for child in scope_children(g, node_id):
        _visit(g, child, min_work, value_guards, spans)


def _inner_instead(g: DataflowGraph, m: MapScope, min_work: int, value_guards: bool, spans) -> bool:
    """Plan the parallel maps directly inside `m` instead of `m` where its few iterations would
    share the threads unevenly (uneven.py); False (nothing planned) where that does not apply
    or one of them cannot be planned."""
    extent = _extent_text(m, set())
    inner = inner_maps(g, m, extent, _collapse(g, m), COLLAPSE_BELOW)
    if not inner:
        return False
    for k, x in enumerate(inner):
        if _plan(g, x, min_work, value_guards, spans):
            for y in inner[:k]:
                y.plan = None
            return False
    for x in inner:
        x.schedule = Schedule.PARALLEL
    loops = ", ".join(f"'{x.var}'" for x in inner)
    m.not_parallelized = Refusal(f"not profitable: its {extent} iterations would share the threads unevenly; "
                                 f"the loop(s) inside it over {loops} run in parallel instead", "not-profitable")
    m.not_parallelized_code = m.not_parallelized.code
    return True


def _plan(g: DataflowGraph, m: MapScope, min_work: int, value_guards: bool = True,
          spans: Spans | None = None) -> str:
    """Attach an OmpPlan to `m`, or return why it stays sequential."""
    if m.shared_scratch and not value_guards:
        return Refusal(f"parallel with a copy of {', '.join(repr(n) for n in m.shared_scratch)} per thread and the "
                       f"last iteration on the buffer itself, which this backend does not emit", "scratch-array")
    if m.condition and not value_guards:
        return Refusal(f"parallel only when {m.condition}, a test of values this backend does not make",
                       "run-time-condition")
    if m.offset is None:
        return Refusal("the loop comes from a macro expansion, so lift cannot annotate it in place", "macro-expansion")
    if not canonical(m.header, m.var):
        return Refusal("the loop header is not in OpenMP's canonical loop form (OpenMP 5.x, 4.4.1) as written",
                       "non-canonical")
    sections, section_limits, guarded = {}, [], []
    for name, op in m.reductions:
        node = _container(g, name)
        if node.ndim == 0:
            continue
        if _touches_other_elements(g, m, name):
            return Refusal(f"reduction into array '{name}' while the loop also accesses other elements of it: "
                    f"OpenMP's private copy of the reduced section would hide them", "array-reduction")
        section = _reduction_section(g, m, node)
        if section is None:
            section = guarded_section(g, m, node, spans) if op in _GUARDED_OPS \
                else "its operator has no `op=` update to guard"
            if isinstance(section, str):
                return Refusal(f"reduction into array '{name}' whose written range has no bounds in C ({section})",
                               "array-reduction")
            guarded += section[2]
        if node.strides:  # the sections are read from a range's first dimension: rows here
            return Refusal(f"reduction into array '{name}', a flat buffer read in rows: its reduced section "
                           f"is not one range of elements", "array-reduction")
        first, length = section[:2]
        sections[name] = (first, length)
        try:
            elements = int(length.rstrip("L").strip("()"))
            if not 1 <= elements <= MAX_REDUCTION_ELEMENTS:
                return Refusal(f"reduction into array '{name}': each thread would copy {length} elements"
                               if elements > 0 else f"reduction into array '{name}': the section is empty",
                               "array-reduction")
        except ValueError:
            # Each thread gets a private copy on its stack: keep it small. An empty section (a loop
            # with no iterations: `A[j]` for j < i at i = 0) crashes gcc 12's code at run time.
            section_limits.append(f"{length} >= 1L && {length} <= {MAX_REDUCTION_ELEMENTS}L")
    live = g.nest.live_after
    inner = [g.nodes[n]["node"] for n in scope_descendants(g, m.id) if isinstance(g.nodes[n]["node"], MapScope)]
    loop_vars = [x.var for x in [m] + inner if not x.var_declared_in_header]
    for var in loop_vars:
        if read_after(g, m.id, var):
            return Refusal(f"loop variable '{var}' is used after the loop", "live-after")
    scratch = {c.name for _, c in scratch_containers(g, m)}
    for var in m.private:
        if var in live and var not in scratch:
            return Refusal(f"scalar '{var}' is used after the loop", "live-after")
    kept = scratch_refusal(g, m, spans)  # arrays kept with lastprivate, or why not
    if isinstance(kept, str):
        return Refusal(kept, "scratch-array")
    if kept and not value_guards:
        return Refusal(f"parallel with a copy of {', '.join(repr(n) for n in kept)} per thread, kept with "
                       f"lastprivate, which this backend does not emit", "scratch-array")
    buffers = scratch_buffers(g, m, lambda node, ranges: index_bounds(node, ranges, grow=True), spans)
    if isinstance(buffers, str):
        return Refusal(buffers, "scratch-array")
    if guarded and buffers:
        return Refusal("guarded updates of a reduced array beside per-thread scratch buffers", "array-reduction")
    if min_work > 0 and _fills(g, m):
        return Refusal("not profitable: it only fills memory with one value (memory-bound, and GCC makes it a memset)",
                       "not-profitable")
    conditions = list(section_limits)
    # The OpenMP target (the one that tests values) also judges the work at the sizes the calls
    # pass; the CUDA target's launches keep their tests in C (not evaluated at call sizes yet).
    calls = g.nest.scop.call_sizes if value_guards else []
    work = _work(g, m, {x.var for x in [m] + inner}, min_work, calls) if min_work > 0 else None
    if m.depth < 2 and isinstance(work, str) and _calls_loops(g, m):
        # Each call runs a loop of its own, a row's work counted as one statement: a run-time
        # trip count says nothing of the work (a constant one still does, as before).
        work = None
    size = team_work = ""
    copies = bool(sections or buffers or kept)  # each thread's own copy: its team starts later (team_start.py)
    if isinstance(work, int):
        if work < min_work:
            sizes = f" at the sizes its calls pass ({work.sizes})" if isinstance(work, CallSizeWork) else ""
            return Refusal(f"not profitable: about {work} iterations of work{sizes}", "not-profitable")
        size, team_work = work_parts(work, min_work, value_guards)
    elif m.depth >= 2 and min_work > 0:
        # Even with a false `if` clause, entering a parallel region costs about a
        # microsecond; deep inside sequential loops that is paid millions of times.
        return Refusal("inside two or more sequential loops, with a work size known only at run time", "not-profitable")
    elif work:
        # (with a test the OpenMP backend makes in C: whether the threads may start now, team_start.py)
        size, team_work = work_parts(work, min_work, value_guards)
    profitable = work_condition(size, team_work, copies=copies)
    if profitable:
        conditions.append(profitable)
    # A private buffer is each thread's own copy (an array, or a fresh allocation): it overlaps nothing.
    # A shared one (the last iteration's) must overlap nothing else the loop touches; where the loop
    # runs in parallel (the analysis's condition, tested with this one) it reads only what it wrote.
    memlets = map_memlets(g, m)
    touched = [t for t in memlets if t[0].name not in scratch
               or (t[0].name in m.shared_scratch or t[0].name in kept) and t[1]]
    identical = (lambda p, q: identical_is_safe(g, m, p, q)) if g.nest.identical_pointers else None
    apart, promised = pairs_apart(g, touched)
    # `assumed`: whether the user's promise spared a test (or a refusal); the remark then names it.
    alias, assumed = alias_condition(touched, identical, apart, g.nest.scop.from_params, declared_inside(g, m),
                                      row_spans(g, m) if value_guards else {}, typed_apart(g), promised)
    if alias.startswith("!"):
        return Refusal(alias[1:], "may-alias")
    if alias:
        conditions.append(alias)
    if m.condition:
        conditions.append(m.condition)
    conditions += [c for c in kept.values() if c]
    private = _clause_variables(g, m, live)
    if isinstance(private, str):
        return Refusal(private, "clause")
    private = sorted(set(v for v in loop_vars if v != m.var) | set(private) - set(kept))
    lastprivate = list(m.lastprivate) + sorted(kept)
    scalars = [(name, op) for name, op in m.reductions]
    # Guarded updates: the loop runs again as written if one falls outside its section, which
    # needs the copies made in C before the loop (`SavedReduction`), hence a versioned loop.
    saved = saved_reductions([n for n, w, _ in memlets if w], {n.container for n, w, _ in memlets if not w}, scalars,
                             sections, set(private) | set(lastprivate) | set(loop_vars) | {m.var}) if guarded else []
    if isinstance(saved, str):
        return Refusal(saved, "array-reduction")
    # A false `if` clause still privatizes: reductions and lastprivate copies would
    # then be wrong when pointers overlap, and lastprivate leaves its variable
    # undefined when the loop runs no iteration. Such conditions are tested in C
    # before a sequential copy of the loop (a versioned loop).
    must_version = bool(alias or m.condition or guarded)
    if lastprivate:
        trips = _extent_text(m, set())
        if trips is None or trips == 0:
            return Refusal(f"'{lastprivate[0]}', live after the loop, needs lastprivate, but the trip count is unknown",
                           "live-after")
        if not isinstance(trips, int):
            conditions.append(f"({trips}) > 0")
            must_version = True
    if must_version and m.span is None:
        return Refusal("needs a run-time check but the loop's text cannot be copied for a sequential version",
                       "not-versionable")
    # Every condition is tested in C where the loop's text can be copied: a false `if`
    # clause still enters the OpenMP runtime, which costs about a microsecond per run of
    # the loop (measured: 1.0 us against 0.014 us for the same test in C), more than a small
    # loop's whole work and, inside a sequential loop, paid once per outer iteration.
    versioned = (bool(guarded) or bool(conditions)) and m.span is not None
    guard = " && ".join(c for c in conditions if c != profitable)
    m.plan = OmpPlan(_collapse(g, m), private, lastprivate, scalars, " && ".join(conditions),
                     versioned, {name: f"{first}:{length}" for name, (first, length) in sections.items()}, guard,
                     size, _schedule(g, m, inner), scratch=buffers, guarded=guarded, saved=saved,
                     assumed_apart=assumed, team_work=team_work,
                     team_copies=copies)
    return ""


def _clause_variables(g, m: MapScope, live) -> list[str] | str:
    """The variables `private` names for `m`, or why no clause can say what it needs.

    The analysis privatizes struct members one by one (`d.x`), but a clause names
    variables: `private(d)`. That gives each thread an uninitialized `d`, which is
    right when every member of `d` the loop touches is privatized (written before
    it is read in every iteration) and nothing reads `d` after the loop. A member
    reached through a pointer (`p->x`) is not a variable of its own, and neither a
    member nor its struct may be lastprivate or a reduction here: stay sequential.
    """
    members = [name for name in m.private if not name.isidentifier()]
    odd = [name for name in m.lastprivate + [name for name, _ in m.reductions] if not name.isidentifier()]
    if odd:
        return f"'{odd[0]}' is a struct member, which an OpenMP clause cannot name"
    if not members:
        return list(m.private)
    region = g.nest.scop
    touched = {region.containers[a.container].name for t in scope_descendants(g, m.id) if t in region.statements
               for a in region.statements[t].accesses}
    out = [name for name in m.private if name.isidentifier()]
    for name in members:
        base = re.match(r"[A-Za-z_]\w*", name)
        if base is None or not name[base.end():].startswith(".") or base.group() in live:
            return f"'{name}' is privatized, but an OpenMP clause can only name its whole variable"
        siblings = {t for t in touched if re.match(rf"{base.group()}\b(?!\s*\()", t)}
        if not siblings <= set(m.private):
            return f"'{name}' is privatized, but other members of '{base.group()}' are shared in the loop"
        out.append(base.group())
    return sorted(set(out))


def _touches_other_elements(g, m: MapScope, name: str) -> bool:
    """A statement in `m` accesses array `name` other than as the reduction's update.

    OpenMP (GCC at least) gives each thread a private copy of the reduced
    section by rebasing the array's address, so any other element reached
    through the array's name inside the loop would be read from outside that copy.
    """
    region = g.nest.scop
    keys = {k for k, c in region.containers.items() if c.name == name}
    return any(a.container in keys and not a.reduces
               for t in scope_descendants(g, m.id) if t in region.statements
               for a in region.statements[t].accesses)


def _fills(g, m: MapScope) -> bool:
    """Every statement of `m` stores a value that reads no memory and does not depend on `m`'s variable.

    Such a loop runs at memory bandwidth on one thread already. Parallel, it also
    costs more than its run time: the outlined region captures the addresses it
    uses, and once they escape GCC no longer propagates constants through them in
    the code around it (kmeans: the struct holding the dimension, a loop bound of
    the hot loop elsewhere, after inlining), even when the `if` clause is false.
    """
    kids = scope_children(g, m.id)
    for k in kids:
        t = g.nodes[k]["node"]
        if not isinstance(t, Tasklet) or t.opaque_reason or "=" not in t.code:
            return False
        if any(isinstance(d["edge"], Memlet) and g.nodes[u]["node"].kind != Kind.SCALAR
               for u, _, d in g.in_edges(k, data=True)):
            return False
        if m.var in word_tokens(t.code.split("=", 1)[1]):
            return False
    return bool(kids)


def _schedule(g, m: MapScope, inner: list[MapScope]) -> str:
    """DYNAMIC when an iteration's work depends on the data (analysis/irregular.py), 'static, 1'
    when inner loop bounds use `m`'s variable (triangular work), else 'static'.

    Plain static chunks give the first thread all the long (or all the short)
    rows of a triangle; round-robin single iterations balance it at no run-time
    cost, and neighbouring rows still go to different threads' caches only at
    the granularity of one row. Work that only the data decides has no such fixed
    pattern: threads take chunks as they finish.
    """
    region = g.nest.scop
    if any(n in region.irregular and n not in region.row_ranges for n in scope_descendants(g, m.id)):
        return DYNAMIC
    for x in inner:
        if m.var in word_tokens(f"{x.begin} {x.end}"):
            return "static, 1"
    return "static"


# Iterations a thread takes at a time under a dynamic schedule: each take is an atomic update of
# a shared counter, small next to this many iterations that each run a loop of their own.
DYNAMIC = "dynamic, 64"

# An outer loop shorter than this gives two threads too few, or too uneven, chunks.
COLLAPSE_BELOW = 16


def _collapse(g, m: MapScope) -> int:
    """2 when `m` is short, constant and has exactly one parallel rectangular loop inside; else 1."""
    extent = _extent_text(m, set())
    kids = scope_children(g, m.id)
    if not isinstance(extent, int) or extent >= COLLAPSE_BELOW or len(kids) != 1:
        return 1
    inner = g.nodes[kids[0]]["node"]
    if not isinstance(inner, MapScope) or inner.schedule != Schedule.PARALLEL or inner.private \
            or not set(inner.reductions) <= set(m.reductions) or not canonical(inner.header, inner.var):
        return 1
    if m.var in word_tokens(f"{inner.begin} {inner.end}"):
        return 1
    return 2


def _reduction_section(g, m: MapScope, node: AccessNode) -> tuple[str, str] | None:
    """(first, length) in C of the part of a 1-D array the map reduces into."""
    if node.ndim != 1 or node.field:
        return None
    for _, v, d in g.out_edges(m.id, data=True):
        if isinstance(d["edge"], Memlet) and v == f"data:{node.container}":
            lo, hi = bound_c(d["edge"].range, 0, False), bound_c(d["edge"].range, 0, True)
            if lo is not None and hi is not None:
                return lo, f"({hi}) - ({lo}) + 1"
    if node.dims and node.dims[0] and node.kind == Kind.ARRAY:
        return "0", node.dims[0]
    return None


def _container(g, name) -> AccessNode:
    for n, d in g.nodes(data=True):
        node = d["node"]
        if isinstance(node, AccessNode) and node.name == name:
            return node
    raise KeyError(name)


def _work(g: DataflowGraph, m: MapScope, banned: set[str], min_work: int, calls: list[dict] = ()) \
        -> int | str | None:
    """Iterations times statements under the map: an int, a C expression, or None if unknown.

    Counted exactly in the iteration domains where they describe the map (`_counted_work`),
    else estimated from the trip counts (`_estimate`); the estimate's text, in the user's
    factors, where it is the same polynomial (a rectangular nest). A C expression of constants (a
    triangle's longest row of a fixed size) is folded: the work is then known here, and a
    test that is always true or always false is never emitted; so is one at the sizes the
    function's `calls` pass (`_at_call_sizes`).
    """
    work, estimate = _counted_work(g, m, min_work, banned), _estimate(g, m, banned)
    if work is None:
        work = estimate
    elif isinstance(work, dict):
        work = estimate if isinstance(estimate, str) and same_value(estimate, work) else poly_to_c(work)
        if word_tokens(work) & banned:  # a count over loops around `m` that are banned: their longest runs
            work = estimate
    if isinstance(work, str) and re.fullmatch(r"-?\d+", folded := readable(work)):
        return max(0, int(folded))
    at_calls = _at_call_sizes(work, calls, min_work) if isinstance(work, str) else None
    return work if at_calls is None else at_calls


class CallSizeWork(int):
    """A work count that is a constant at the sizes the function's calls pass
    (`Region.call_sizes`), with those sizes for the remark (`sizes`: 'n = 2000')."""

    sizes: str = ""


def _at_call_sizes(work: str, calls: list[dict], min_work: int) -> CallSizeWork | None:
    """`work` (C text) at each call's sizes, where each makes it a constant: that constant where
    all calls agree, their largest where even that is below `min_work` (too small at every call);
    else None. Folded here, the guard of a loop too small at every call is not emitted at all,
    nor the loop's parallel version (a program left with no parallel loop then needs no OpenMP
    runtime)."""
    used = sorted(set().union(*calls) & word_tokens(work)) if calls else []
    expr = parse_expression(work) if used else None
    if expr is None or any(not set(used) <= call.keys() for call in calls):
        return None
    values = []
    for call in calls:
        folded = readable(c_text(substitute(expr, {n: c_ast.Constant("int", f"({call[n]})") for n in used}.get)))
        if not re.fullmatch(r"-?\d+", folded):
            return None
        values.append(max(0, int(folded)))
    if len(set(values)) > 1 and max(values) >= min_work:
        return None
    out = CallSizeWork(max(values))
    out.sizes = ", ".join(f"{n} = {' or '.join(str(v) for v in sorted({call[n] for call in calls}))}" for n in used)
    return out


def launch_work(g: DataflowGraph, m: MapScope, outer: set[str], min_work: int) -> int | CExpr | None:
    """`_work` of one run of `m` inside sequential loops over `outer` (a GPU kernel's launch in a
    host loop), for a test made before those loops: a count that varies with them is bounded over
    their ranges, by isl where the bound is a constant, else by their longest runs (`_estimate`:
    the trip counts' bounds over the parameters, C text over names known before the loops, with
    the words it uses: the backend asks whether they are known there)."""
    inner = [g.nodes[n]["node"] for n in scope_descendants(g, m.id) if isinstance(g.nodes[n]["node"], MapScope)]
    work = _work(g, m, {x.var for x in [m] + inner} | set(outer), min_work)
    return c_expr(work) if isinstance(work, str) else work


# Transformations after which a map no longer runs its loop's iterations, each once, in one run.
_SPLITTING = {"unroll-and-jam", "scalar expansion"}


def _counted_work(g: DataflowGraph, m: MapScope, min_work: int, banned: set[str] = frozenset()) -> int | Poly | None:
    """The statement instances one run of `m` executes, counted in their iteration domains
    (`analysis.count`): each statement under `m` once per point of its domain, the loops around
    `m` fixed at their values there. Only where those are the original loops' instances: `m` and
    the maps around it are the region's loops, in their order, none strip-mined, tiled or
    unrolled (`m` may be the outermost tile loop of a band; inside `m`, reordering keeps the
    instances; a fused map runs the statements of each loop fused into it, all of one header).
    None otherwise, or when a domain is
    not a box of affine bounds (a stride, an `if` that cuts holes). Inside loops, a count whose
    bound over their iterations is below `min_work`, or that names a loop in `banned` (which has
    no value where the work is tested: `launch_work`), is that bound where it is a constant."""
    region = g.nest.scop
    chain = [g.nodes[a]["node"] for a in ancestors(g, m.id)] + [m]
    for x in chain:
        loop = region.loops.get(x.origin)
        # The outermost tile loop of a tiled band runs its loop's whole range, a block at a time.
        whole = x is m and x.tile and "tiling" in x.transformations
        if loop is None or _SPLITTING & set(x.transformations) \
                or not whole and (loop.var != x.var or x.tile or x.step != loop.step):
            return None
    origins, outer = [{x.origin, *x.fused} for x in chain], len(chain) - 1
    total, around = {}, None
    for sid in scope_descendants(g, m.id):
        if not isinstance(g.nodes[sid]["node"], Tasklet):
            continue
        stmt = region.statements.get(sid)
        if stmt is None or len(stmt.loops) < len(chain) or any(l not in o for l, o in zip(stmt.loops, origins)):
            return None
        domain = stmt.domain
        for k, x in enumerate(chain[:-1]):
            domain = domain.set_dim_name(isl.dim_type.set, k, isl_name(x.var))
        points = count_points(domain.move_dims(isl.dim_type.param, domain.dim(isl.dim_type.param),
                                               isl.dim_type.set, 0, outer))
        if points is None:
            return None
        total = add_polys(total, points)
        values = domain.project_out(isl.dim_type.set, outer, domain.dim(isl.dim_type.set) - outer)
        around = values if around is None else around.union(values)
    value = constant(total)
    if value is not None:
        return value
    if outer and (most := largest(total, around)) is not None and \
            (most < min_work or word_tokens(poly_to_c(total)) & banned):
        return most  # the work of the largest run of `m` (below `min_work`: the test would never be true)
    return total


def _estimate(g: DataflowGraph, m: MapScope, banned: set[str]) -> int | str | None:
    """`_work` from the trip counts: a triangular loop counts as its longest run.

    `banned` are the variables of the map and the maps inside it: they have no
    value where the condition is evaluated, so extents that use them are unknown.
    """
    # A point loop's trip count is its tile's size; its longest run is no more than its loop's
    # range too (tiling.py): a loop of 32 tiled by 128 does 32 rows of work, not 128.
    point = not m.tile and any(g.nodes[a]["node"].tile and g.nodes[a]["node"].origin == m.origin
                               for a in ancestors(g, m.id))
    extents = _extent_text(m, banned, longest=point)
    if extents is None:
        return None
    total_const, terms = 0, []
    for child in scope_children(g, m.id):
        node = g.nodes[child]["node"]
        sub = _estimate(g, node, banned) if isinstance(node, MapScope) else 1
        if sub is None:
            sub = 1  # an inner loop of unknown size is at least one iteration
        if isinstance(sub, int):
            total_const += sub
        else:
            terms.append(sub)
    body = " + ".join(terms + ([str(total_const)] if total_const or not terms else []))
    if isinstance(extents, int) and not terms:
        return extents * total_const
    ext = str(extents) if isinstance(extents, int) else f"({extents})"
    return f"{ext} * ({body})"


def _calls_loops(g: DataflowGraph, m: MapScope) -> bool:
    """A statement under `m` calls a function of the file that runs a loop (a row kernel): the
    statement count of `_work` would take a row's work for one statement."""
    calls = g.nest.scop.looping_calls
    return any(n in calls for n in scope_descendants(g, m.id))


def _extent_text(m: MapScope, banned: set[str], longest: bool = False) -> int | str | None:
    """The trip count (`longest`: the longest run's): an int when constant, C text over names
    in scope, else None."""
    text = m.max_trip_count if longest else m.trip_count
    if text is None:
        return None
    try:
        return max(0, int(text.rstrip("L")))
    except ValueError:
        pass
    if word_tokens(text) & banned:
        # A triangular loop: its longest run is a fair estimate of its size.
        return m.max_trip_count
    return text
