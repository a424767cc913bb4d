"""One list of pure C library functions (analysis/pure_functions.py) for the effect analysis, the
CUDA backend's host code between nests, and its kernels. The three differential tests fail on the
three lists that were there before, which differed in content: the effect analysis did not know
`lround`, `rint` or the classification macros, host code between nests could call only five of
the `float` versions (not `atanf` nor `sinf`) and not `expm1`, and kernels could not call `log1pf`."""
from __future__ import annotations

import re
import shutil

import pytest

from lifter import LiftOptions, lift_source
from tests.backend.test_cuda import HOST_BETWEEN, function_text, host_part, same_results
from tests.harness import have_gcc, needs_nvcc, nvcc_compiles, prepare, write_program

pytestmark = pytest.mark.skipif(not have_gcc() or shutil.which("g++") is None, reason="needs gcc and g++")

ROUNDING = """#include <math.h>
#include <stdio.h>
#define N 4000

static void kernel_round(int n, const double *restrict x, long *restrict r, double *restrict s, int *restrict bad)
{
    for (int i = 0; i < n; i++) {
        r[i] = lround(x[i]) + llround(2.0 * x[i]);
        s[i] = rint(x[i]) + nearbyint(0.5 * x[i]) + rintf((float)x[i]);
        bad[i] = isnan(x[i]) + isinf(x[i]) + !isfinite(x[i]) + (signbit(x[i]) != 0);
    }
}

int main(void)
{
    static double x[N], s[N];
    static long r[N];
    static int bad[N];
    for (int i = 0; i < N; i++)
        x[i] = (i % 7 == 0) ? -0.0 : (i - N / 2) * 0.37;
    x[5] = NAN;
    x[9] = INFINITY;
    kernel_round(N, x, r, s, bad);
    long t = 0;
    double u = 0.0;
    for (int i = 0; i < N; i++) {
        t += r[i] * (i % 5 + 1) + bad[i] * i;
        if (!isnan(s[i]) && !isinf(s[i]))
            u += s[i] * (i % 3 + 1);
    }
    printf("%ld %.6f\\n", t, u);
    return 0;
}
"""


def test_rounding_and_classification_calls_leave_a_loop_parallel(tmp_path):
    """They read only their arguments: the loop is parallel (before, each was a call of an unknown
    function, which may write anything), and the output prints what the original does."""
    loops = {e["line"]: e for e in lift_source(ROUNDING, "r.c", LiftOptions(min_parallel_work=0)).loops}
    assert loops[7]["parallel"] and loops[7]["parallelized"], loops[7]
    run = prepare(write_program(tmp_path, "r", ROUNDING), tmp_path)
    for threads in (1, 2, 4):
        run.check(threads)
    assert "#pragma omp parallel for" in run.lifted.read_text()


HOST_CALL = HOST_BETWEEN.replace("#include <stdio.h>", "#include <math.h>\n#include <stdio.h>", 1).replace(
    "probe = a[n / 2] + a[1];", "probe = atanf((float)a[n / 2]) + sinf((float)a[1]) + expm1(0.25);")


def test_host_code_calling_math_functions_stays_in_the_data_scope(tmp_path):
    """`atanf`, `sinf` and `expm1` touch no device array: one data scope spans the three nests, as
    with the plain expression of test_host_code_between_nests_gets_the_device_results_first, and `a`
    comes back once, before the host code reads it (before, the calls ended the scope)."""
    assert "atanf(" in HOST_CALL
    out = same_results(HOST_CALL, tmp_path)
    body = function_text(host_part(out), "static void kernel_steps(")
    assert body.count("lift: 3 loop nests share their device data") == 1, body
    assert len(re.findall(r"LIFT_TO_HOST\(\(char \*\)\(a\)", body)) == 1, body


KERNEL_CALL = """#include <math.h>
#include <stdio.h>
#define N 1000

static void kernel_logs(int n, const float *restrict x, float *restrict y)
{
    for (int i = 0; i < n; i++)
        y[i] = log1pf(x[i]) + expm1f(0.5f * x[i]) + copysignf(erfcf(x[i]), x[i] - 1.0f);
}

int main(void)
{
    static float x[N], y[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 17) * 0.125f;
    kernel_logs(N, x, y);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += y[i] * (i % 3 + 1);
    printf("s: %.4e\\n", s);
    return 0;
}
"""


def test_float_math_functions_run_in_kernels(tmp_path):
    """CUDA has the `float` versions of every pure function: the loop becomes a kernel (before,
    `log1pf`, `expm1f`, `copysignf` and `erfcf` had 'no GPU version')."""
    out = same_results(KERNEL_CALL, tmp_path, rtol=1e-5)
    assert "__global__" in host_part(out) and "no GPU version" not in out, out


@needs_nvcc
def test_nvcc_compiles_the_pure_function_calls(tmp_path):
    for name, text in (("host_call", HOST_CALL), ("kernel_call", KERNEL_CALL)):
        out = lift_source(text, f"{name}.c", LiftOptions(target="cuda", min_parallel_work=0)).output
        nvcc_compiles(tmp_path / f"{name}.cu", out)
