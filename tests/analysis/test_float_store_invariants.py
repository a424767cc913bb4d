"""A store through a `double *` that a loop body declares from memory no name bounds
(`double *out = h->r[l]`, mgrid's sweep) cannot change the `int` bound `size[l]` of the loop
inside it (C's aliasing rules, effects.py `Ref.element`, invariants.py `_float_store`): the
sweep over rows is parallel again (it went sequential when such stores became any memory). The
same store through an `int *` may change the bound: that loop stays sequential. The lifted
program computes what the original does at 1, 2 and 8 threads."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import compile_c, have_gcc, loops_by_function, outputs_match, run

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>

typedef struct { int *size; double **u, **r; int **c; } Levels;

static void row(int n, const double *up, const double *mid, double *out)
{
    for (int j = 1; j < n - 1; j++)
        out[j] = 0.25 * (up[j] + 2.0 * mid[j] + up[j - 1]);
}

void sweep(Levels *h, int l, int sweeps)
{
    int *size = h->size;
    int n = size[l];
    for (int s = 0; s < sweeps; s++) {
        double *u = h->u[l], *out = h->r[l];
        for (int i = 1; i <= size[l] - 2; i++)
            row(n, &u[(i - 1) * n], &u[i * n], &out[i * n]);
        h->r[l] = u;
        h->u[l] = out;
    }
}

void count(Levels *h, int l, int sweeps)
{
    int *size = h->size;
    for (int s = 0; s < sweeps; s++) {
        int *c = h->c[l];
        for (int i = 1; i <= size[l] - 2; i++)
            c[i] += i;
    }
}

int main(void)
{
    int n = 300, size[2] = {300, 0};
    double *a = calloc((size_t)(n * n), sizeof(double)), *b = calloc((size_t)(n * n), sizeof(double));
    int *c = calloc((size_t)n, sizeof(int));
    double *u[1] = {a}, *r[1] = {b};
    int *cs[1] = {c};
    Levels h = {size, u, r, cs};
    for (int k = 0; k < n * n; k++)
        a[k] = (k % 7) * 0.5;
    sweep(&h, 0, 3);
    count(&h, 0, 2);
    double s = 0.0;
    for (int k = 0; k < n * n; k++)
        s += h.u[0][k] * (k % 5);
    printf("%.6f %d\n", s, c[n - 2]);
    return 0;
}
"""


def test_double_store_keeps_the_int_bound_invariant():
    loops = loops_by_function(PROGRAM)
    rows = next(e for e in loops["sweep"] if e["depth"] == 1)
    assert rows["parallelized"], rows["remark"]
    counted = next(e for e in loops["count"] if e["depth"] == 1)
    assert not counted["parallelized"] and "not provably invariant" in counted["remark"], counted["remark"]


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_rows_run_like_the_original(tmp_path):
    original, lifted = tmp_path / "orig.c", tmp_path / "lifted.c"
    original.write_text(PROGRAM)
    lifted.write_text(lift_source(PROGRAM, "l.c", LiftOptions(min_parallel_work=0)).output)
    compile_c(original, tmp_path / "orig", ["-O2"])
    compile_c(lifted, tmp_path / "lifted", ["-O2", "-fopenmp"])
    want = run(tmp_path / "orig")
    for threads in (1, 2, 8):
        assert outputs_match(want, run(tmp_path / "lifted", threads), 0.0)
