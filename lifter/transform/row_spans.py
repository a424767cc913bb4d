"""Run-time address ranges of what row loops touch (analysis/row_ranges.py), and their C tests.

A map over rows `v` whose body runs `for (k = rows[v + c]; k < rows[v + c + 1]; k++)` with
`P[k + d]` and `Q[C[k] + d]` inside touches, over rows lo..hi, when the offsets
`rows[lo + c] .. rows[hi + c + 1]` never decrease:

- of `P`, the elements `rows[lo + c] + d .. rows[hi + c + 1] - 1 + d` (a plain range);
- of `Q`, the elements from the least to the greatest `C[k]` for k in that range, shifted by d
  (a gathered range).

So the alias test before the map (parallelize.py) can compare them with what the map writes:
`lift_nondecreasing_T(rows, lo + c, hi + c + 1)` first (the loop reads all those offsets
itself; a decreasing step fails the test and the loop runs as written), then the plain range
like any pointer's, then `lift_gather_apart_T(C, rows[lo + c], rows[hi + c + 1], Q, ...)`,
which finds the least and greatest index and compares the elements between them with one
written range. Their cost: one pass over the hi - lo + 2 offsets, and, where a gathered
container needs a test, one over the index array's part the loop reads (as many elements as
the loop runs iterations of `k`), both simple enough for the compiler to vectorize, and made
only where no cheaper test settled the question first (they come last in the `&&`); both run
on the threads of an OpenMP loop when they are long (the second reads a quarter or so of the
memory the loop itself reads in a CSR product, and is most of the tests' cost). The tests
are static functions, one per integer type, emitted once at the top of an output file that
calls them (C89, clean under -Wall -Wextra -Werror), like rows_check.py's.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


from lifter.analysis.owned_rows import interval
from lifter.graph.attributes import DataflowGraph
from lifter.graph.build import data_id
from lifter.graph.nodes import Tasklet, scope_descendants
from lifter.analysis.ranges import access_range, bound_c
from lifter.transform.owned_check import helper_definitions as owned_helpers
from lifter.transform.rows_check import helper_definitions as rows_helpers

NONDECREASING = "lift_nondecreasing_"
GATHER = "lift_gather_apart_"
GATHERS = "lift_gathers_apart_"  # several ranges through one index range, one pass over it (`apart_all`)
# Index elements from which the pass over them is shared by the threads (like the loop it guards).
PARALLEL_SCAN = 100_000
_CALL = re.compile(rf"\b({NONDECREASING}|{GATHER}|{GATHERS})(\w+)\(")


@dataclass(frozen=True, eq=False)
class Gathered:
    """The elements of `base` from the least to the greatest `index[k]` (k0 <= k < k1), shifted
    by dlo .. dhi: a range known only after a pass over the index array."""

    index: str
    index_type: str
    k0: str
    k1: str
    base: str
    dlo: int
    dhi: int

    @property
    def scan(self) -> tuple[str, str, str, str]:
        """What the pass over the index array reads: the same for every range through it."""
        return self.index, self.index_type, self.k0, self.k1

    def apart(self, lo: str, hi: str) -> str:
        """The C test that these elements overlap no byte of lo .. hi - 1."""
        return f"{GATHER}{_suffix(self.index_type)}({self._index_args()}, {self._range_args(lo, hi)})"

    def _index_args(self) -> str:
        return f"(const {self.index_type} *)({self.index}), {self.k0}, {self.k1}"

    def _range_args(self, lo: str, hi: str) -> str:
        return f"(const char *)({self.base}), (long)sizeof *({self.base}), {self.dlo}L, {self.dhi}L, {lo}, {hi}"


def apart_all(tests: list[tuple[Gathered, str, str]]) -> str:
    """The C test that each gathered range overlaps no byte of its lo .. hi - 1, for ranges read
    through one index range (`Gathered.scan`): one pass over the index array for all of them,
    where `Gathered.apart` would make one each (a mesh loop reading x and y through its
    connectivity and writing two arrays: four passes over it)."""
    first = tests[0][0]
    ranges = ", ".join(g._range_args(lo, hi) for g, lo, hi in tests)
    return f"{GATHERS}{_suffix(first.index_type)}({first._index_args()}, {len(tests)}, {ranges})"


def row_spans(g: DataflowGraph, m) -> dict[str, tuple[str, tuple[str, str] | Gathered, list]]:
    """{container key: (the offsets' test, '' where none is needed, its range over the map `m`,
    the isl ranges of its other accesses in `m`)} for the containers one row loop directly in `m`
    touches, and those read through an index array at an affine subscript (affine_gathers.py);
    the range is (first byte, one past the last) in C, a `Gathered` range, or None where the
    other accesses' ranges are all (gathers kept in owned ranges by the map's condition)."""
    region = g.nest.scop
    lid = m.origin or m.id
    if m.tile or m.step != 1 or lid not in region.loops or m.depth != region.loops[lid].depth:
        return {}
    leaves = [n for n in scope_descendants(g, m.id)
              if isinstance(g.nodes[n]["node"], Tasklet) and n in region.statements]
    # Gathers the map's condition keeps inside the range each iteration owns (owned_rows.py):
    # that range is theirs, and the container is compared like any other.
    owned = {(o.statement, o.container): o for o in region.owned.get(lid, ())
             if m.condition and m.condition == region.verdicts[lid].condition}
    others, found, affine = {}, {}, {}
    for sid in leaves:
        stmt, rr = region.statements[sid], region.row_ranges.get(sid)
        ours = set(rr.plain) | set(rr.gathers) if rr is not None and stmt.loops[-1] == lid else set()
        ours -= {key for s, key in owned if s == sid}
        gathers = {}
        for gather in region.gathers.get(sid, ()):
            gathers.setdefault(gather.access, []).append(gather)
        accesses = {a.id: a for a in stmt.accesses}
        for a in stmt.accesses:
            if a.id in gathers:
                affine.setdefault(a.container, []).extend((gather, accesses[gather.index]) for gather in gathers[a.id])
            elif (sid, a.container) in owned:
                relation = interval(a.relation, owned[sid, a.container])
                others.setdefault(a.container, []).append(access_range(relation, m.depth))
            elif a.container not in ours:
                others.setdefault(a.container, []).append(access_range(a.relation, m.depth))
        for key in ours:
            found.setdefault(key, []).append((stmt, rr))
    written = {a.container for sid in leaves for a in region.statements[sid].accesses if a.is_write}
    out = {}
    for key, uses in found.items():
        node = g.nodes[data_id(key)]["node"] if data_id(key) in g else None
        if len(uses) != 1 or node is None or node.ndim != 1 or node.strides or node.field:
            continue
        stmt, rr = uses[0]
        if rr.rows in written or key in rr.gathers and rr.gathers[key][0] in written:
            continue
        test, k0, k1 = _offsets(region, m, stmt, rr)
        if test is None:
            continue
        if key in rr.plain:
            dlo, dhi = rr.plain[key]
            span = (f"(const char *)&{node.name}[{k0} + {dlo}]", f"(const char *)&{node.name}[{k1} + {dhi}]")
        else:
            index, index_type, dlo, dhi = rr.gathers[key]
            span = Gathered(region.containers[index].name, index_type, k0, k1, node.name, dlo, dhi)
        out[key] = test, span, others.get(key, [])
    for _, key in owned:
        out.setdefault(key, ("", None, others[key]))
    for key, uses in affine.items():
        node = g.nodes[data_id(key)]["node"] if data_id(key) in g else None
        if key in out or node is None or node.ndim != 1 or node.strides or node.field:
            continue
        span = _affine_gather(region, m, node.name, uses, written)
        if span is not None:
            out[key] = "", span, others.get(key, [])
    return out


def _affine_gather(region, m, base: str, uses: list, written: set) -> Gathered | None:
    """The range of `base` that its reads `base[C[e] + d]` (affine_gathers.py: (gather, the
    access C[e]) pairs) touch over the map `m`: the pass runs over C's accessed range, from the
    least to the greatest index the map reads, which nothing in the map may write."""
    indices = {gather.index_container for gather, _ in uses}
    types = {gather.index_type for gather, _ in uses}
    if len(indices) != 1 or len(types) != 1 or indices & written:
        return None
    touched = access_range(uses[0][1].relation, m.depth)
    for _, index in uses[1:]:
        touched = touched.union(access_range(index.relation, m.depth))
    touched = touched.coalesce()
    first, last = bound_c(touched, 0, False), bound_c(touched, 0, True)
    if first is None or last is None:
        return None
    shifts = [gather.shift for gather, _ in uses]
    return Gathered(region.containers[indices.pop()].name, types.pop(), first, f"{last} + 1", base,
                    min(shifts), max(shifts))


def _offsets(region, m, stmt, rr) -> tuple[str | None, str, str]:
    """The test that the offsets never decrease over the map's rows, and the first and last
    offset (C text), or None where the rows' bounds have no C form."""
    accesses = {a.id: a for a in stmt.accesses}
    first = bound_c(access_range(accesses[rr.lower].relation, m.depth), 0, False)
    last = bound_c(access_range(accesses[rr.upper].relation, m.depth), 0, True)
    if first is None or last is None:
        return None, "", ""
    rows = region.containers[rr.rows].name
    test = f"{NONDECREASING}{_suffix(rr.rows_type)}((const {rr.rows_type} *)({rows}), {first}, {last})"
    return test, f"{rows}[{first}]", f"{rows}[{last}]"


def _suffix(c_type: str) -> str:
    return "_".join(c_type.split())



# The least and greatest index[k] for k0 <= k < k1 (k0 < k1), read from k1 down, on the threads
# when the range is long: the pass every gather test makes over its index range.
_INDEX_RANGE = (
    "    least = most = index[k1 - 1];\n"
    f"    #pragma omp parallel for reduction(min: least) reduction(max: most) if (k1 - k0 > {PARALLEL_SCAN}L)\n"
    "    for (k = k1 - 2; k >= k0; k--) {\n"
    "        least = index[k] < least ? index[k] : least;\n"
    "        most = index[k] > most ? index[k] : most;\n"
    "    }\n")


def helper_definitions(text: str) -> str:
    """Definitions of the tests `text` calls (empty if none), to go before it."""
    out = []
    for kind, suffix in sorted(set(_CALL.findall(text))):
        element = suffix.replace("_", " ")
        if kind == NONDECREASING:
            out.append(
                f"/* lift: offsets[first] <= offsets[first + 1] <= ... <= offsets[last] (false if first > last) */\n"
                f"static int {NONDECREASING}{suffix}(const {element} *offsets, long first, long last)\n"
                "{\n"
                "    long r;\n"
                "    int ok = first <= last;\n"
                f"    #pragma omp parallel for reduction(&: ok) if (last - first > {PARALLEL_SCAN}L)\n"
                "    for (r = first; r < last; r++)\n"
                "        ok &= offsets[r] <= offsets[r + 1];\n"
                "    return ok;\n"
                "}\n")
        elif kind == GATHERS:
            out.append(
                f"/* lift: {GATHER}{suffix}'s test for each of `count` ranges (base, size, dlo, dhi, lo, hi: a\n"
                f"   const char *, four longs, two const char *) through the same index range, in one pass over it */\n"
                "#include <stdarg.h>\n"
                f"static int {GATHERS}{suffix}(const {element} *index, long k0, long k1, int count, ...)\n"
                "{\n"
                "    long k;\n"
                f"    {element} least, most;\n"
                "    int ok = 1;\n"
                "    va_list ranges;\n"
                "    if (k0 >= k1)\n"
                "        return 1;\n"
                + _INDEX_RANGE +
                "    va_start(ranges, count);\n"
                "    for (; count > 0; count--) {\n"
                "        const char *base = va_arg(ranges, const char *);\n"
                "        long size = va_arg(ranges, long);\n"
                "        long dlo = va_arg(ranges, long);\n"
                "        long dhi = va_arg(ranges, long);\n"
                "        const char *lo = va_arg(ranges, const char *);\n"
                "        const char *hi = va_arg(ranges, const char *);\n"
                "        ok = ok && (base + ((long)most + dhi + 1) * size <= lo || hi <= base + ((long)least + dlo) * size);\n"
                "    }\n"
                "    va_end(ranges);\n"
                "    return ok;\n"
                "}\n")
        else:
            out.append(
                f"/* lift: no byte of the elements of size `size` at base from index min + dlo to index max + dhi,\n"
                f"   min and max the least and greatest index[k] for k0 <= k < k1, lies in lo .. hi - 1 (read from\n"
                f"   k1 down: the loop after the test reads index from k0 up, and finds that part still cached) */\n"
                f"static int {GATHER}{suffix}(const {element} *index, long k0, long k1, const char *base, long size,\n"
                f"    long dlo, long dhi, const char *lo, const char *hi)\n"
                "{\n"
                "    long k;\n"
                f"    {element} least, most;\n"
                "    if (k0 >= k1)\n"
                "        return 1;\n"
                + _INDEX_RANGE +
                "    return base + ((long)most + dhi + 1) * size <= lo || hi <= base + ((long)least + dlo) * size;\n"
                "}\n")
    return "".join(out)


def runtime_helpers(text: str) -> str:
    """Definitions of every run-time test `text` calls (row-pointer rows, offset rows, gathers and
    owned_check.py's rows), to go before it: one call for each backend that emits such tests."""
    return rows_helpers(text) + helper_definitions(text) + owned_helpers(text, PARALLEL_SCAN)
