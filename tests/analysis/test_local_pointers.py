"""A pointer declared inside a loop body is a variable of each iteration, but what it points
to is not: `double *out = buf;` in every iteration of `s` names the same elements each time,
so `out[i] += 1` carries a flow dependence across `s` (a race if `s` ran in parallel).
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

int main(void)
{
    static double a[N];
    for (int i = 0; i < N; i++)
        a[i] = g[i] = i % 7;
    sweeps_param(N, 50, a);
    sweeps_global(N, 50);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += a[i] * (1 + i % 3) + g[i];
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


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_loop_local_pointer_sweeps_compute_the_same(tmp_path, threads):
    check_program(SAME_TARGET, "local_pointer.c", tmp_path, threads)
