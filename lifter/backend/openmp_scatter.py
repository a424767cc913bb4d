"""The OpenMP text of a bucket scatter (`transform/bucket_scatter.py`): count, offsets, scatter.

Inside `#ifdef _OPENMP` (the output must still build without OpenMP, where the loop runs as
written), in one parallel region: each thread counts the buckets of its share of the iterations
into a row of its own; one thread turns the rows into each thread's starting offsets (a prefix
sum over the threads, bucket by bucket), checks the buckets' ranges and the written part of the
target against what the loop reads (`bucket_scatter`'s run-time conditions) and, where they
hold, leaves the offsets the loop as written ends with in a last row; then each thread runs its
share's store on its own row (`lift_own[b - lift_lo]`, lift_lo the least bucket: 0 for an array
of the function, else found by a first pass, `_pays` deciding whether the rows pay), and the last
row is copied into `C`. Where a check fails nothing has been written and the loop runs as written
after the region; also where the work is too small, the items are fewer than `ITEMS_PER_OFFSET`
per offset, or no memory is left.
"""
from __future__ import annotations

from lifter.graph.nodes import MapScope
from lifter.transform.bucket_scatter import LOWEST, OWN

MARK = "/* lift */"
HEADERS = ("#ifdef _OPENMP\n#include <omp.h> /* lift: thread numbers for bucket scatters */\n#endif\n"
           "#include <stdlib.h> /* lift: malloc and free for the bucket scatters' counts */\n")
NAME = "lift_rows"  # the allocation whose presence in the output asks for `HEADERS`
# Fewer items than this per offset and the threads' rows of counts (zeroed, summed by one thread)
# cost about what the items do: the loop runs as written.
ITEMS_PER_OFFSET = 8


def scatter_text(text: str, m: MapScope, indent: str) -> str:
    """The loop at `m.span` replaced by the parallel scatter, with the loop as written behind it;
    `indent` is the loop's (its lines after the first get it)."""
    s = m.scatter
    start, end = m.span
    loop = text[start:end]
    var, kind, first = m.var, m.var_type, f"({m.begin})"
    up = s.bump == "p++"  # else `--`: each item takes the offset below, the threads' rows count down
    lowest = "lift_lowest" if up else "lift_at"
    counts = (f"&{s.counts}[{LOWEST}]", f"&{s.counts}[{LOWEST} + lift_nb - 1] + 1")
    reads = [(f"&{a}[{first}]", f"&{a}[{first} + lift_n - 1] + 1") for a in s.reads]
    apart = " && ".join([_apart(f"&{s.target}[lift_lowest]", f"&{s.target}[lift_end - 1] + 1", lo, hi)
                         for lo, hi in [counts] + reads] + [_apart(*counts, lo, hi) for lo, hi in reads])
    share = [f"            {kind} lift_from = ({kind})({first} + lift_n * lift_t / lift_nt);",
             f"            {kind} lift_to = ({kind})({first} + lift_n * (lift_t + 1) / lift_nt);"]
    if s.sized:
        sizes = [f"    long lift_n = (long)({m.trip_count}), lift_nb = (long)(sizeof {s.counts} / sizeof {s.counts}[0]);",
                 f"    long {LOWEST} = 0;", "    int lift_teams = omp_get_max_threads(), lift_bad = 0;"]
        worth = f"lift_n >= {ITEMS_PER_OFFSET} * lift_nb"
    else:  # the buckets' range, from a pass of its own
        sizes = [f"    long lift_n = (long)({m.trip_count}), {LOWEST} = 0, lift_hi = -1, lift_nb;",
                 "    int lift_teams = omp_get_max_threads(), lift_bad = 0;",
                 f"    if (lift_n > 0) {{ {kind} {var} = ({kind}){first}; {s.declaration} {LOWEST} = lift_hi = {s.bucket}; }}",
                 f"    #pragma omp parallel for reduction(min: {LOWEST}) reduction(max: lift_hi) {MARK}",
                 f"    for ({kind} {var} = ({kind}){first}; {var} < ({kind})({first} + lift_n); {var}++) {{",
                 f"        {s.declaration}",
                 f"        if ({s.bucket} < {LOWEST}) {LOWEST} = {s.bucket};",
                 f"        if ({s.bucket} > lift_hi) lift_hi = {s.bucket};",
                 "    }",
                 "    /* (a range wider than the items: none, and no difference that overflows) */",
                 f"    lift_nb = (unsigned long)lift_hi - (unsigned long){LOWEST} < (unsigned long)lift_n"
                 f" ? lift_hi - {LOWEST} + 1 : 0;"]
        worth = f"lift_nb > 0 && lift_n >= {ITEMS_PER_OFFSET} * lift_nb && {_pays(s.element)}"
    lines = [
        f"{{ int lift_done = 0; {MARK}",
        "#ifdef _OPENMP",
        f"if ({s.work}) {{ /* lift: a bucket scatter: each thread its share of '{var}', at offsets counted first */",
        *sizes,
        f"    {s.element} *lift_rows = {worth}"
        f" ? malloc(sizeof(*lift_rows) * (size_t)lift_nb * (size_t)(lift_teams + 1)) : 0;",
        "    if (lift_rows) {",
        f"        #pragma omp parallel num_threads(lift_teams) {MARK}",
        "        {",
        "            int lift_t = omp_get_thread_num(), lift_nt = omp_get_num_threads();",
        *share,
        f"            {s.element} *lift_row = lift_rows + (long)lift_t * lift_nb;",
        "            for (long lift_b = 0; lift_b < lift_nb; lift_b++) lift_row[lift_b] = 0;",
        f"            for ({kind} {var} = lift_from; {var} < lift_to; {var}++) {{",
        f"                {s.declaration}",
        f"                if ({s.bucket} >= {LOWEST} && {s.bucket} - {LOWEST} < lift_nb) lift_row[{s.bucket} - {LOWEST}]{'++' if s.places == 1 else f' += {s.places}'};",
        f"                else {{ {_atomic('lift_bad = 1;')} }}",
        "            }",
        f"            #pragma omp barrier {MARK}",
        f"            #pragma omp single {MARK}",
        "            {",
        "                long lift_lowest = 0, lift_end = 0; int lift_any = 0;",
        "                for (long lift_b = 0; lift_b < lift_nb && !lift_bad; lift_b++) {",
        f"                    long lift_at = (long){s.counts}[{LOWEST} + lift_b], lift_c;",
        "                    for (int lift_u = 0; lift_u < lift_nt; lift_u++) {",
        "                        lift_c = (long)lift_rows[lift_u * lift_nb + lift_b];",
        f"                        lift_rows[lift_u * lift_nb + lift_b] = ({s.element})lift_at;",
        f"                        lift_at {'+' if up else '-'}= lift_c;",
        "                    }",
        f"                    lift_rows[(long)lift_teams * lift_nb + lift_b] = ({s.element})lift_at;",
        f"                    if (lift_at == (long){s.counts}[{LOWEST} + lift_b]) continue; /* empty */",
        *_range_checks(s, up),
        f"                    if (!lift_any) lift_lowest = {lowest};",
        f"                    lift_any = 1, lift_end = {'lift_at' if up else f'(long){s.counts}[{LOWEST} + lift_b]'};",
        "                }",
        f"                if (lift_any && !lift_bad && !({apart})) lift_bad = 1;",
        "            }",
        "            if (!lift_bad) {",
        f"                {s.element} *const {OWN} = lift_rows + (long)lift_t * lift_nb;",
        f"                for ({kind} {var} = lift_from; {var} < lift_to; {var}++) {{",
        f"                    {s.declaration}",
        f"                    {s.store}",
        "                }",
        "            }",
        "        }",
        "        if (!lift_bad) {",
        "            for (long lift_b = 0; lift_b < lift_nb; lift_b++)",
        f"                {s.counts}[{LOWEST} + lift_b] = lift_rows[(long)lift_teams * lift_nb + lift_b];",
        "            lift_done = 1;",
        "        }",
        "        free(lift_rows);",
        "    }",
        "}",
        "#endif",
        "if (!lift_done)",
        f"    {loop}",
        "}",
    ]
    return f"\n{indent}".join(lines)


def _range_checks(s, up: bool) -> list[str]:
    """The test of one bucket's range of positions, [its offset, lift_at) counting up or [lift_at,
    its offset) counting down: after the one before it, and its far end in the offsets' type."""
    low, edge = (f"(long){s.counts}[{LOWEST} + lift_b]", "lift_at - 1") if up else ("lift_at", "lift_at")
    # (offsets of type long hold every position the sum reaches: no test, which gcc would call a
    # self-comparison)
    wraps = "" if s.element in ("long", "long int") else f" || (long)({s.element})({edge}) != {edge}"
    return [f"                    if ((lift_any && {low} < lift_end){wraps}) lift_bad = 1;"]


def _pays(element: str) -> str:
    """The cost model of a scatter whose buckets' range is known only at run time (it may be as
    large as the items: NPB IS's final placement ranks 2^24 keys over 2^20 offsets). In eighths
    of the loop as written's work per item, each thread's share: the pass finding the range 1 (a
    read of the items, vectorized), counting 2 where a thread's row fits in 256 KiB and 4 where it
    does not (an increment at a random place of the row), storing 8; each thread clears its row,
    one thread sums all rows and the last row is copied back, 1 per element (lift_nb * (threads +
    2)). In parallel when that is below the loop's own: with `ITEMS_PER_OFFSET` items per offset
    or more, from 2 threads to about 60, where one thread's sum over all rows costs more.
    Measured on NPB IS's placement (perf cpu-clock, main thread, 2 threads, rows of 4 MiB): 0.74
    of the loop as written's; the model says 0.84."""
    count = f"(lift_nb * (long)sizeof({element}) <= 262144L ? 2 : 4)"
    return f"lift_teams > 1 && lift_n / lift_teams * (9 + {count}) + lift_nb * (lift_teams + 2) < 8 * lift_n"


def _apart(a_lo: str, a_hi: str, b_lo: str, b_hi: str) -> str:
    """The two byte ranges [a_lo, a_hi) and [b_lo, b_hi) do not overlap."""
    return (f"((const char *)({a_hi}) <= (const char *)({b_lo}) "
            f"|| (const char *)({b_hi}) <= (const char *)({a_lo}))")


def _atomic(statement: str) -> str:
    return f"_Pragma(\"omp atomic write\") {statement}"
