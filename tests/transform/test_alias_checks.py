"""Run-time alias checks: "disjoint, or the same pointer" where each iteration reads exactly the
element it writes of the aliased pair (isl proves it), "disjoint" only otherwise (a shift)."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import check_program, have_gcc, loops_by_function

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

PROGRAM = """#include <stdio.h>
#include <stdlib.h>

/* BLAS-like vector updates, called with the output also passed as an input */
static void axpby(int n, double a, const double *x, double b, const double *y, double *z)
{
    for (int i = 0; i < n; i++)
        z[i] = a * x[i] + b * y[i];
}

static void scale_rows(int n, int m, const double *src, double *dst, const double *w)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            dst[i * m + j] = src[i * m + j] * w[j];
}

/* each iteration reads its neighbour: equal pointers would make it a recurrence */
static void shift_left(int n, const double *x, double *z)
{
    for (int i = 0; i < n - 1; i++)
        z[i] = 0.5 * (x[i] + x[i + 1]);
}

int main(void)
{
    int n = 5000, m = 40;
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    double *z = malloc(sizeof(double) * n), *g = malloc(sizeof(double) * n * m);
    double *w = malloc(sizeof(double) * m);
    for (int i = 0; i < n; i++) {
        x[i] = (i % 17) * 0.25;
        y[i] = (i % 5) - 2.0;
    }
    for (int i = 0; i < n * m; i++)
        g[i] = (i % 29) * 0.125;
    for (int j = 0; j < m; j++)
        w[j] = 1.0 + j % 3;
    axpby(n, 2.0, x, 3.0, y, z);     /* disjoint */
    axpby(n, 0.5, x, -1.0, y, x);    /* output identical to the first input */
    axpby(n, 1.5, y, 1.0, y, y);     /* output identical to both inputs */
    axpby(n - 1, 1.0, x + 1, 1.0, y, x);  /* overlap with a shift: must run in order */
    scale_rows(n, m, g, g, w);       /* in place */
    shift_left(n, x, x);             /* in place, reading ahead */
    shift_left(n, y, z);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * (1 + i % 3) + y[i] * (1 + i % 7) + z[i];
    for (int i = 0; i < n * m; i++)
        s += g[i] * (1 + i % 11);
    printf("%.12e\\n", s);
    free(x); free(y); free(z); free(g); free(w);
    return 0;
}
"""


def _condition(function: str) -> str:
    entry = next(e for e in loops_by_function(PROGRAM)[function] if e["depth"] == 0)
    assert entry["parallelized"], entry["reason"]
    return entry["remark"]


def test_element_wise_maps_accept_identical_pointers():
    remark = _condition("axpby")
    assert "(const void *)x == (const void *)z" in remark
    assert "(const void *)y == (const void *)z" in remark
    assert "(const void *)src == (const void *)dst" in _condition("scale_rows")


def test_a_shifted_read_still_needs_disjoint_ranges():
    remark = _condition("shift_left")
    assert "==" not in remark and "&x[" in remark and "&z[" in remark


def test_the_identical_case_runs_the_parallel_branch():
    out = lift_source(PROGRAM, "a.c", LiftOptions(min_parallel_work=0)).output
    axpby = out[out.index("static void axpby"):out.index("static void scale_rows")]
    condition = axpby[axpby.index("if ("):axpby.index("{ /* lift */")]
    assert "(const void *)x == (const void *)z" in condition
    assert "#pragma omp parallel for" in axpby


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_aliased_calls_compute_the_same(tmp_path, threads):
    check_program(PROGRAM, "aliases.c", tmp_path, threads)


def test_the_cuda_target_keeps_requiring_disjoint_buffers(tmp_path):
    """Two device copies of one host array would not be one array: the kernel's launch also
    needs the device buffers' host ranges disjoint (its own test, and-ed with the plan's)."""
    from tests.backend.test_cuda import same_results
    out = same_results(PROGRAM, tmp_path)
    assert "(const char *)(x) + (lift_lo_x + lift_rows_x) * sizeof((x)[0]) <= (const char *)(z)" in out
