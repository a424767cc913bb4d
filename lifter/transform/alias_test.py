"""The run-time alias test of a parallel map: a C condition that the containers it touches through
pointers do not overlap, built from its memlets' ranges (`alias_condition`).

Pairs of pointers need no test where the analysis proved them apart (distinct parameters at every
call, C's type rules, the user's `--assume-no-alias`: `pairs_apart`); the others are compared as
byte spans of what the map touches (first and one-past-last element, piecewise where the range is),
or, for containers that row loops touch, through the tests of values in memory `row_spans.py` gives.
The planner (`parallelize.py`) puts the test in the plan's `if` clause; region fusion, legality of
reordering and vectorization ask it of a whole region or one map (`alias_check`, `region_alias_check`).
"""
from __future__ import annotations

from collections import Counter

import islpy as isl

from lifter.analysis.model import Kind
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import STATE
from lifter.graph.nodes import AccessNode, MapScope, Memlet, scope_children
from lifter.analysis.ranges import bound_c, params_c, pw_to_c, rounded_upper_c
from lifter.transform.elementwise import equal_pointers
from lifter.transform.row_spans import Gathered, apart_all
from lifter.transform.rows_check import rows_test


def map_memlets(g, m: MapScope):
    """(container node, written?, scope range) for the memlets on the map."""
    out = []
    for u, v, d in g.in_edges(m.id, data=True):
        if isinstance(d["edge"], Memlet):
            out.append((g.nodes[u]["node"], False, d["edge"].range))
    for u, v, d in g.out_edges(m.id, data=True):
        if isinstance(d["edge"], Memlet):
            out.append((g.nodes[v]["node"], True, d["edge"].range))
    return out


def alias_check(g: DataflowGraph, m: MapScope) -> str:
    """'' if no aliasing is possible, a C condition for disjointness, or '!reason' to give up."""
    touched = map_memlets(g, m)
    return alias_condition(touched, apart=pairs_apart(g, touched)[0], inside=declared_inside(g, m), typed=typed_apart(g))[0]


def region_alias_check(g: DataflowGraph) -> str:
    """`alias_check` over everything the region's outermost maps touch."""
    touched = [t for child in scope_children(g, STATE)
               if isinstance(m := g.nodes[child]["node"], MapScope) for t in map_memlets(g, m)]
    inside = frozenset(k for k, c in g.nest.scop.containers.items() if c.declared_in is not None)
    return alias_condition(touched, apart=pairs_apart(g, touched)[0], inside=inside, typed=typed_apart(g))[0]


def declared_inside(g: DataflowGraph, m: MapScope) -> frozenset[str]:
    """Containers declared in `m`'s loop or in a loop inside it. A pointer among them gets its
    value only inside the loop, so no test before the loop can read where it points."""
    region = g.nest.scop
    lid = m.origin or m.id
    if lid not in region.loops:  # (not a loop of the region: every local is inside, conservatively)
        return frozenset(k for k, c in region.containers.items() if c.declared_in is not None)
    loops = set(region.loops_inside(lid))
    return frozenset(k for k, c in region.containers.items() if c.declared_in in loops)


def pairs_apart(g: DataflowGraph, touched: list) -> tuple[set[frozenset], set[frozenset]]:
    """Pairs of pointers that need no test, and those of them only the user's promise keeps apart.

    No test: parameters proved distinct at every call (`Region.apart`), pointers whose element
    types C's aliasing rules keep apart unless the user turned those rules off
    (`Region.type_apart`), or, under `--assume-no-alias` (the promised pairs), all pointers that
    are parameters or fields reached through them (`a->col`, `Region.from_params`), unless both
    hold one caller's pointer."""
    region = g.nest.scop
    apart = set(region.apart)
    if g.nest.strict_aliasing:
        apart |= region.type_apart
    promised = set()
    if g.nest.assume_no_alias:
        origin = region.from_params  # two names of one caller's pointer (`q = a; r = a;`) are no pair
        params = sorted({node.name for node, _, _ in touched if node.name in origin})
        promised = {frozenset((p, q)) for i, p in enumerate(params) for q in params[i + 1:]
                    if origin[p] != origin[q]} - apart
    return apart | promised, promised


def typed_apart(g: DataflowGraph) -> set[frozenset]:
    """The pointer pairs C's aliasing rules keep apart, unless the user turned them off."""
    return g.nest.scop.type_apart if g.nest.strict_aliasing else set()


def alias_condition(touched: list, identical_ok=None, apart=frozenset(), from_params=frozenset(),
                     inside=frozenset(), rows_of=None, typed=frozenset(), promised=frozenset()) -> tuple[str, bool]:
    """The disjointness test for the containers a scope touches: [(node, written?, range)], and
    whether a pair of `promised` (those of `apart` only `--assume-no-alias` keeps apart) went
    untested: without the promise the test would have been longer, or a refusal.

    `rows_of` (`row_spans.row_spans`) gives ranges that tests of values in memory bound, for
    containers that row loops touch (a CSR product's `val[k]`, `x[col[k]]`): used where the
    ranges have no bounds of their own, after the tests above and the plain ranges.

    `identical_ok(p, q)` (nodes) says that the scope is also correct when the two pointers
    are equal (`elementwise.py`): that pair then tests "disjoint, or the same pointer".
    `apart` holds the pairs of pointers that need no test (`pairs_apart`), `typed` those of them that C's
    type rules keep apart whatever the pointers' storage (`typed_apart`); a pair of `from_params`
    (pointers the caller hands in) that cannot be tested names the flag that would spare it.
    A local array or scalar of the region is storage of its own; a local pointer is not, and one
    declared `inside` the tested scope cannot be tested before it."""
    written = {node.container for node, w, _ in touched if w}
    shared = {}
    for node, w, rng in touched:
        if node.kind == Kind.SCALAR or node.transient and node.kind != Kind.POINTER:
            continue
        shared.setdefault(node.container, (node, []))[1].append(rng)
    pointers = [c for c, (node, _) in shared.items() if node.kind in (Kind.POINTER, Kind.MEMORY) and not node.restrict]
    # Rows of a `double **` read as a 2-D array (analysis/rows.py): tested disjoint first, so
    # that the spans after it may read their first and last row pointers.
    rows = [c for c, (node, _) in shared.items() if node.indirect and (c in written or c in pointers)]
    if not pointers:
        return "", False
    pairs, assumed = [], False
    for p in pointers:
        for q, (qnode, _) in shared.items():
            if q == p or qnode.restrict or qnode.kind == Kind.ARRAY and qnode.storage != "global" and not qnode.indirect:
                continue
            if qnode.name == shared[p][0].name:
                continue  # two fields of one array of structs never overlap
            pair = frozenset((qnode.name, shared[p][0].name))
            if pair in typed:
                continue  # C's type rules hold for any pointer, a local one (`double *f = s->f;`) too
            if p not in written and q not in written:
                continue
            if pair in apart and all(x.storage == "param" or not x.name.isidentifier() or x.name in from_params
                                     for x in (qnode, shared[p][0])):
                assumed = assumed or pair in promised
                continue  # (a local of the same name as a parameter is another pointer, but for a copy of one)
            if qnode.kind in (Kind.POINTER, Kind.MEMORY) and (q, p) in pairs:
                continue
            if p in inside or q in inside:
                local = p if p in inside else q
                return (f"!'{p}' and '{q}' may overlap, and '{local}' is set inside the loop, so no test before it "
                        "can tell", assumed)
            pairs.append((p, q))
    tests = []
    for c in rows:
        node, ranges = shared[c]
        bounds = index_bounds(node, ranges)
        if bounds is None:
            return f"!the rows of '{c}' may overlap and their accessed ranges cannot be bounded at run time", assumed
        (lo, first), (hi, last) = bounds
        tests.append(rows_test(node.element, node.name, lo, hi, first, last))
    if not pairs:
        return " && ".join(tests), assumed
    spans = {}
    checks, gathered, entries = [], [], []
    for p, q in pairs:
        for c in (p, q):
            if c not in spans:
                spans[c] = _pieces(*shared[c], (rows_of or {}).get(c), tests)
            if spans[c] is None:
                hint = " (--assume-no-alias promises that pointer parameters never overlap)" \
                    if {shared[p][0].name, shared[q][0].name} <= set(from_params) else ""
                return (f"!'{p}' and '{q}' may overlap and their accessed ranges cannot be bounded at run time{hint}",
                        assumed)
        same = ""
        if identical_ok is not None and identical_ok(shared[p][0], shared[q][0]):
            same = f" || {equal_pointers(shared[p][0], shared[q][0])}"
        parts, passes = [], []  # (tests of bounds, then those that pass over an index array)
        for a in spans[p]:
            for b in spans[q]:
                if isinstance(a, Gathered) and isinstance(b, Gathered):
                    return f"!'{p}' and '{q}' may overlap and both are read through index arrays", assumed
                if isinstance(a, Gathered) or isinstance(b, Gathered):
                    far, (lo, hi) = (a, b) if isinstance(a, Gathered) else (b, a)
                    passes.append((far, lo, hi))
                else:
                    parts.append(f"{a[1]} <= {b[0]} || {b[1]} <= {a[0]}")
        entries.append((parts, passes, same, any(isinstance(x, Gathered) for x in spans[p] + spans[q])))
    # Ranges read through one index range, in pairs tested "disjoint" only (a conjunction, in
    # any order), share one pass over the index array, made last (row_spans.apart_all).
    scans = Counter(far.scan for _, passes, same, _ in entries if not same for far, _, _ in passes)
    merged: dict[tuple, list] = {}
    for parts, passes, same, mixed in entries:
        for test in passes:
            if not same and scans[test[0].scan] > 1:
                merged.setdefault(test[0].scan, []).append(test)
        own = parts + [far.apart(lo, hi) for far, lo, hi in passes if same or scans[far.scan] == 1]
        if not own:
            continue
        text = own[0] if len(own) == 1 else " && ".join(f"({t})" for t in own)
        (gathered if mixed and len(own) > len(parts) else checks).append(f"({text}{same})")
    gathered += [apart_all(tests) for tests in merged.values()]
    return " && ".join(tests + checks + gathered), assumed


def _pieces(node: AccessNode, ranges, row, tests: list) -> list | None:
    """The ranges to test of one container: its span, or, where it has none, the range row loops
    give it (`row_spans.row_spans`: its test joins `tests`) and the span of its other accesses."""
    whole = _span(node, ranges)
    if whole is not None:
        return [whole]
    if row is None:
        return None
    test, span, others = row
    rest = [_span(node, others)] if others else []
    if None in rest:
        return None
    if test and test not in tests:
        tests.append(test)
    return ([span] if span is not None else []) + rest


def _span(node: AccessNode, ranges) -> tuple[str, str] | None:
    """C expressions for the first and one-past-last byte the map touches in a container
    (for rows of pointers, valid only where their `rows_test` holds)."""
    bounds = index_bounds(node, ranges, grow=True)
    if bounds is None:
        return None
    first, last = bounds
    return f"(const char *)&{_element(node, first)}", f"(const char *)(&{_element(node, last)} + 1)"


def index_bounds(node: AccessNode, ranges, grow: bool = False) -> tuple[list[str], list[str]] | None:
    """C expressions for the first and last index in each dimension the map touches; `grow`
    lets a last index be larger where the exact one floors a division (`ranges.rounded_upper_c`:
    spans the alias tests compare, sizes of private copies)."""
    if node.kind == Kind.MEMORY or node.ndim == 0:
        return None
    rng = ranges[0]
    for r in ranges[1:]:
        rng = rng.union(r)
    rng = rng.coalesce()
    first, last = [], []
    for d in range(node.ndim):
        lo, hi = piecewise_bound(rng, d, False), piecewise_bound(rng, d, True)
        if hi is None and grow:
            hi = rounded_upper_c(rng, d)
        if (lo is None or hi is None) and node.kind == Kind.ARRAY and d < len(node.dims) and node.dims[d]:
            lo, hi = "0", f"({node.dims[d]}) - 1"  # an array's own extent bounds any index into it
        if lo is None or hi is None:
            return None
        first.append(lo)
        last.append(hi)
    return first, last


# Pieces of a bound beyond which the C test gets too long to be worth it.
MAX_BOUND_PIECES = 4


def piecewise_bound(rng, d: int, upper: bool) -> str | None:
    """C text of the first or last index of dimension `d`, also where it is piecewise: a time
    loop's union of skewed ranges (`2 - nx + i <= j`) starts at 0 when nx >= 2, else at 2 - nx;
    that becomes `(nx - 2L >= 0L ? 0L : -1L*nx + 2L)`. Where the parameters are in no piece
    the scope touches nothing, and any value will do."""
    text = bound_c(rng, d, upper)
    if text is not None:
        return text
    try:
        pw = rng.dim_max(d) if upper else rng.dim_min(d)
    except isl.Error:
        return None
    pieces, touched = [], rng.params()
    pw.foreach_piece(lambda dom, aff: pieces.append((params_c(dom.gist(touched)), pw_to_c(isl.PwAff.from_aff(aff)))))
    if not pieces or len(pieces) > MAX_BOUND_PIECES or any(c is None or v is None for c, v in pieces):
        return None
    out = pieces[-1][1]
    for cond, value in reversed(pieces[:-1]):
        out = f"({cond} ? {value} : {out})"
    return out


def _element(node: AccessNode, index: list[str]) -> str:
    """C for one element: `A[i][j]`, or `A[(i)*(m) + (j)*(1)]` for a delinearized flat buffer."""
    if node.strides:
        flat = " + ".join(f"({x})*({s})" for x, s in zip(index, node.strides))
        return f"{node.name}[{flat}]"
    return node.name + "".join(f"[{x}]" for x in index) + node.field
