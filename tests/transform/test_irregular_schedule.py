"""Loops whose iterations do data-dependent work (a `while` in a helper, a `for` bounded by an
array element) get `schedule(dynamic, 64)` (analysis/irregular.py); loops of even work, a field
bound and a CSR row loop keep `schedule(static)`. The dynamic ones run like the original at 1, 2
and 8 threads."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import compile_c, have_gcc, outputs_match, run

EVENTS = r"""#include <stdio.h>
#include <stdlib.h>

/* steps of the Collatz walk from v: a trip count only the data decides */
static long steps(unsigned long v)
{
    long n = 0;
    while (v > 1) {
        v = v % 2 ? 3 * v + 1 : v / 2;
        n++;
    }
    return n;
}

void events(long count, long *out)
{
    for (long i = 0; i < count; i++)
        out[i] = steps((unsigned long)i + 1);
}

static double w[600];

void bins(int n, const int *key, const int *len, double *out)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < len[key[i]]; j++)
            s += w[j] * (i + 1);
        out[i] = s;
    }
}

int main(void)
{
    long count = 200000;
    long *out = malloc(sizeof(long) * (size_t)count);
    int n = 50000, key[50000], len[8];
    double *acc = malloc(sizeof(double) * (size_t)n);
    for (int k = 0; k < 8; k++)
        len[k] = k * k * 9;
    for (int k = 0; k < 600; k++)
        w[k] = 1.0 / (k + 1);
    for (int i = 0; i < n; i++)
        key[i] = (i * 7919) % 8;
    events(count, out);
    bins(n, key, len, acc);
    long total = 0;
    double sum = 0.0;
    for (long i = 0; i < count; i++)
        total += out[i] * (i % 13);
    for (int i = 0; i < n; i++)
        sum += acc[i] * (i % 7);
    printf("%ld %.6f\n", total, sum);
    free(out);
    free(acc);
    return 0;
}
"""

EVEN = r"""typedef struct { int n; double *v; } Vec;

static double total(const Vec *s)
{
    double t = 0.0;
    for (int k = 0; k < s->n; k++)
        t += s->v[k];
    return t;
}

void scale(int m, const Vec *s, double *out)
{
    for (int i = 0; i < m; i++)
        out[i] = total(s) * i;
}

void spmv(int n, const int *rowptr, const int *col, const double *val, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double sum = 0.0;
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
            sum += val[k] * x[col[k]];
        y[i] = sum;
    }
}
"""


def lift(text: str) -> str:
    return lift_source(text, "t.c", LiftOptions(min_parallel_work=0)).output


def directive_of(out: str, function: str) -> str:
    body = out[out.index(f" {function}("):]
    return next(line.strip() for line in body.splitlines() if "#pragma omp parallel for" in line)


def test_data_dependent_work_gets_a_dynamic_schedule():
    out = lift(EVENTS)
    assert "schedule(dynamic, 64)" in directive_of(out, "events")  # a `while` in a helper
    assert "schedule(dynamic, 64)" in directive_of(out, "bins")  # `j < len[key[i]]`


def test_even_work_and_row_loops_stay_static():
    out = lift(EVEN)
    assert "schedule(static)" in directive_of(out, "scale")  # `k < s->n`: the same for every i
    assert "schedule(static)" in directive_of(out, "spmv")  # a CSR row loop: contiguous slices


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_dynamic_schedule_runs_like_the_original(tmp_path):
    original, lifted = tmp_path / "orig.c", tmp_path / "lifted.c"
    original.write_text(EVENTS)
    lifted.write_text(lift(EVENTS))
    compile_c(original, tmp_path / "orig", ["-O2"])
    compile_c(lifted, tmp_path / "lifted", ["-O2", "-fopenmp"])
    want = run(tmp_path / "orig")
    for threads in (1, 2, 8):  # main's sum is a parallel reduction: rounding may differ
        assert outputs_match(want, run(tmp_path / "lifted", threads), 1e-12)
