"""A parallel loop of a few constant iterations over long parallel loops (NPB IS's five probes,
each counting over every key) gets its inner loops parallelized instead (transform/uneven.py):
5 iterations on 2 threads would run as 3 + 2. Where the outer body does work outside its inner
loops (a `while` in a statement), or an inner loop is not parallel, or the nest collapses, the
outer loop is planned as before. The lifted program computes what the original does at 1, 2 and
8 threads. (At -O2 the probes' iterations are then jammed into one pass, transform/outer_jam.py,
tests/transform/test_outer_jam.py; here that is off, `unroll=False`, to see uneven.py's choice.)"""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import compile_c, have_gcc, loops_by_function, outputs_match, run

PROBES = r"""#include <stdio.h>
#include <stdlib.h>

int probes(long n, const int *keys, const long *rank)
{
    static const long probe[5] = {48427, 17148, 23627, 62548, 4431};
    int bad = 0;
    for (int t = 0; t < 5; t++) {
        long idx = probe[t] % n;
        int key = keys[idx];
        long below = 0;
        for (long i = 0; i < n; i++)
            below += keys[i] < key;
        if (rank[key] != below)
            bad++;
    }
    return bad;
}

/* work outside the inner loop (a `while` in a statement): the outer loop stays the parallel one */
long walks(long n, const int *keys)
{
    long total = 0;
    for (int t = 0; t < 5; t++) {
        long v = keys[t] + 7, steps = 0;
        while (v > 1) { v = v % 2 ? 3 * v + 1 : v / 2; steps++; }
        long below = 0;
        for (long i = 0; i < n; i++)
            below += keys[i] < steps;
        total += below;
    }
    return total;
}

/* the inner loop is a recurrence: the outer loop stays the parallel one */
void prefix(long n, double out[3][200000])
{
    for (int t = 0; t < 3; t++)
        for (long i = 1; i < n; i++)
            out[t][i] += out[t][i - 1] * 0.5;
}

static double rows[3][200000];

int main(void)
{
    long n = 200000;
    int *keys = malloc(sizeof(int) * (size_t)n);
    long *rank = calloc(1 << 16, sizeof(long));
    for (long i = 0; i < n; i++)
        keys[i] = (int)((i * 2654435761u) % 65536u);
    for (long i = 0; i < n; i++)
        rank[keys[i]]++;
    long before = 0;
    for (long k = 0; k < 65536; k++) {
        long c = rank[k];
        rank[k] = before;
        before += c;
    }
    for (int t = 0; t < 3; t++)
        for (long i = 0; i < n; i++)
            rows[t][i] = (i % 11) * 0.25 + t;
    prefix(n, rows);
    printf("%d %ld %.6f\n", probes(n, keys, rank), walks(n, keys), rows[2][n - 1] + rows[0][777]);
    free(keys);
    free(rank);
    return 0;
}
"""


def lift(text: str) -> str:
    return lift_source(text, "p.c", LiftOptions(min_parallel_work=0, unroll=False)).output


def test_few_probes_parallelize_the_count_inside():
    loops = {}
    for e in lift_source(PROBES, "p.c", LiftOptions(min_parallel_work=0, unroll=False)).loops:
        loops.setdefault(e["function"], []).append(e)
    outer, inner = sorted(loops["probes"], key=lambda e: e["depth"])
    assert not outer["parallelized"] and outer["reason_code"] == "not-profitable"
    assert "its 5 iterations would share the threads unevenly" in outer["remark"]
    assert inner["parallelized"] and "reduction(+: below)" in inner["remark"]
    out = lift(PROBES)
    body = out[out.index(" probes("):out.index(" walks(")]
    directive = next(line for line in body.splitlines() if "#pragma omp parallel for" in line)
    assert "reduction(+: below)" in directive and "reduction(+: bad)" not in body


def test_work_outside_or_a_sequential_inner_loop_keeps_the_outer_loop():
    loops = loops_by_function(PROBES)
    for function in ("walks", "prefix"):
        outer = min(loops[function], key=lambda e: e["depth"])
        assert outer["parallelized"], (function, outer["remark"])


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_inner_loops_run_like_the_original(tmp_path):
    original, lifted = tmp_path / "orig.c", tmp_path / "lifted.c"
    original.write_text(PROBES)
    lifted.write_text(lift(PROBES))
    compile_c(original, tmp_path / "orig", ["-O2"])
    compile_c(lifted, tmp_path / "lifted", ["-O2", "-fopenmp"])
    want = run(tmp_path / "orig")
    for threads in (1, 2, 8):
        assert outputs_match(want, run(tmp_path / "lifted", threads), 0.0)
