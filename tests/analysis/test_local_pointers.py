"""A pointer declared inside a loop body is a variable of each iteration, but what it points
to is not: `double *out = buf;` in every iteration of `s` names the same elements each time,
so `out[i] += 1` carries a flow dependence across `s` (a race if `s` ran in parallel), and two
such pointers may overlap (the inner loop then needs the run-time test that parameters get).
Differential at 1, 2 and 8 threads, and the outer loops must stay sequential."""
import pytest

from tests.harness import check_program, have_gcc, loops_by_function

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

SAME_TARGET = """#include <stdio.h>
#define N 4000
static double g[N];

static void sweeps_param(int n, int sweeps, double *p)
{
    for (int s = 0; s < sweeps; s++) {
        double *out = p;
        for (int i = 0; i < n; i++)
            out[i] = out[i] * 0.5 + s;
    }
}

static void sweeps_global(int n, int sweeps)
{
    for (int s = 0; s < sweeps; s++) {
        double *out = g;
        for (int i = 0; i < n; i++)
            out[i] = out[i] + 1.0 / (1 + s);
    }
}

/* out overlaps in shifted by one: the loop over i carries a flow dependence */
static void shifted_rows(int n, int sweeps, double *p, int shift)
{
    for (int s = 0; s < sweeps; s++) {
        double *in = p, *out = p + shift;
        for (int i = 0; i < n - 1; i++)
            out[i] = in[i] * 0.25 + 1.0;
    }
}

int main(void)
{
    static double a[N];
    for (int i = 0; i < N; i++)
        a[i] = g[i] = i % 7;
    sweeps_param(N, 50, a);
    sweeps_global(N, 50);
    static double c[N];
    for (int i = 0; i < N; i++)
        c[i] = i % 5;
    shifted_rows(N, 3, c, 1);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += a[i] * (1 + i % 3) + g[i] + c[i] * (1 + i % 4);
    printf("%.12e\\n", s);
    return 0;
}
"""


def test_loop_local_pointer_to_shared_memory_keeps_outer_loop_sequential():
    loops = loops_by_function(SAME_TARGET)
    for function in ("sweeps_param", "sweeps_global"):
        outer = next(e for e in loops[function] if e["var"] == "s")
        assert not outer["parallelized"], function
        assert "dependence on out" in outer["reason"], outer["reason"]
        inner = next(e for e in loops[function] if e["var"] == "i")
        assert inner["parallelized"], (function, inner["reason"])
    shifted = next(e for e in loops["shifted_rows"] if e["var"] == "i")
    # parallel only where the run-time test finds the two local pointers apart (or equal)
    assert shifted["parallelized"] and "&out[0L]" in shifted["condition"], shifted


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_loop_local_pointer_sweeps_compute_the_same(tmp_path, threads):
    check_program(SAME_TARGET, "local_pointer.c", tmp_path, threads)
