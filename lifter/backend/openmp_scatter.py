"""The OpenMP text of a bucket scatter (`transform/bucket_scatter.py`): count, offsets, scatter.

Inside `#ifdef _OPENMP` (the output must still build without OpenMP, where the loop runs as
written), in one parallel region: each thread counts the buckets of its share of the iterations
into a row of its own; one thread turns the rows into each thread's starting offsets (a prefix
sum over the threads, bucket by bucket), checks the buckets' ranges and the written part of the
target against what the loop reads (`bucket_scatter`'s run-time conditions) and, where they
hold, leaves the offsets the loop as written ends with in a last row; then each thread runs its
share as written, the statement's `C` a pointer to its own row (a declaration that hides the
array), and the last row is copied into `C`. Where a check fails nothing has been written and
the loop runs as written after the region; also where the work is too small, the items are fewer
than `ITEMS_PER_OFFSET` per offset, or no memory is left.
"""
from __future__ import annotations

from lifter.graph.nodes import MapScope

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
    apart = " && ".join(_apart(f"&{s.target}[lift_lowest]", f"&{s.target}[lift_end - 1] + 1", lo, hi)
                        for lo, hi in [(f"&{s.counts}[0]", f"&{s.counts}[lift_nb - 1] + 1")]
                        + [(f"&{a}[{first}]", f"&{a}[{first} + lift_n - 1] + 1") for a in s.reads])
    own = f"{s.element} *const {s.counts} = lift_rows + (long)lift_t * lift_nb;"
    lines = [
        f"{{ int lift_done = 0; {MARK}",
        "#ifdef _OPENMP",
        f"if ({s.work}) {{ /* lift: a bucket scatter: each thread its share of '{var}', at offsets counted first */",
        f"    long lift_n = (long)({m.trip_count}), lift_nb = (long)(sizeof {s.counts} / sizeof {s.counts}[0]);",
        "    int lift_teams = omp_get_max_threads(), lift_bad = 0;",
        f"    {s.element} *lift_rows = lift_n >= {ITEMS_PER_OFFSET} * lift_nb"
        f" ? malloc(sizeof(*lift_rows) * (size_t)lift_nb * (size_t)(lift_teams + 1)) : 0;",
        "    if (lift_rows) {",
        f"        #pragma omp parallel num_threads(lift_teams) {MARK}",
        "        {",
        "            int lift_t = omp_get_thread_num(), lift_nt = omp_get_num_threads();",
        f"            {kind} lift_from = ({kind})({first} + lift_n * lift_t / lift_nt);",
        f"            {kind} lift_to = ({kind})({first} + lift_n * (lift_t + 1) / lift_nt);",
        f"            {s.element} *lift_row = lift_rows + (long)lift_t * lift_nb;",
        "            for (long lift_b = 0; lift_b < lift_nb; lift_b++) lift_row[lift_b] = 0;",
        f"            for ({kind} {var} = lift_from; {var} < lift_to; {var}++) {{",
        f"                {s.declaration}",
        f"                if ({s.bucket} >= 0 && {s.bucket} < lift_nb) lift_row[{s.bucket}]++;",
        f"                else {{ {_atomic('lift_bad = 1;')} }}",
        "            }",
        f"            #pragma omp barrier {MARK}",
        f"            #pragma omp single {MARK}",
        "            {",
        "                long lift_lowest = 0, lift_end = 0; int lift_any = 0;",
        "                for (long lift_b = 0; lift_b < lift_nb && !lift_bad; lift_b++) {",
        f"                    long lift_at = (long){s.counts}[lift_b], lift_c;",
        "                    for (int lift_u = 0; lift_u < lift_nt; lift_u++) {",
        "                        lift_c = (long)lift_rows[lift_u * lift_nb + lift_b];",
        f"                        lift_rows[lift_u * lift_nb + lift_b] = ({s.element})lift_at;",
        "                        lift_at += lift_c;",
        "                    }",
        f"                    lift_rows[(long)lift_teams * lift_nb + lift_b] = ({s.element})lift_at;",
        f"                    if (lift_at == (long){s.counts}[lift_b]) continue; /* empty */",
        f"                    if ((lift_any && (long){s.counts}[lift_b] < lift_end)"
        f" || (long)({s.element})(lift_at - 1) != lift_at - 1) lift_bad = 1;",
        f"                    if (!lift_any) lift_lowest = (long){s.counts}[lift_b];",
        "                    lift_any = 1, lift_end = lift_at;",
        "                }",
        f"                if (lift_any && !lift_bad && !({apart})) lift_bad = 1;",
        "            }",
        "            if (!lift_bad) {",
        f"                for ({kind} {var} = lift_from; {var} < lift_to; {var}++) {{",
        f"                    {own}",
        f"                    {s.declaration}",
        f"                    {s.store}",
        "                }",
        "            }",
        "        }",
        "        if (!lift_bad) {",
        "            for (long lift_b = 0; lift_b < lift_nb; lift_b++)",
        f"                {s.counts}[lift_b] = lift_rows[(long)lift_teams * lift_nb + lift_b];",
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


def _apart(a_lo: str, a_hi: str, b_lo: str, b_hi: str) -> str:
    """The two byte ranges [a_lo, a_hi) and [b_lo, b_hi) do not overlap."""
    return (f"((const char *)({a_hi}) <= (const char *)({b_lo}) "
            f"|| (const char *)({b_hi}) <= (const char *)({a_lo}))")


def _atomic(statement: str) -> str:
    return f"_Pragma(\"omp atomic write\") {statement}"
