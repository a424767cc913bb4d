"""Call regions (backend/cuda_call_regions.py) around loops whose host code writes single array
elements between the calls (`x[r % n] += 1.0;`, the corpus's dot, atax, bicg and gemv): the loop is
a region, the written element goes to the device copy the table holds, and the arrays move once.
Differential: emulated CUDA prints what the original prints; a profiled build counts the bytes."""
from __future__ import annotations

import pytest

# (pytestmark: the same skip, without g++ and gcc)
from tests.backend.test_cuda import (byte_counts, function_text, host_part, lift_cuda, pytestmark,  # noqa: F401
                                     same_results)

N, REPS = 2000, 6

DOT = f"""#include <stdio.h>
#include <stdlib.h>
#define N {N}
#define REPS {REPS}

static double dot(int n, const double *x, const double *y)
{{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}}

static void scale(int n, double a, double *y)
{{
    for (int i = 0; i < n; i++)
        y[i] = a * y[i] + 1.0;
}}

int main(void)
{{
    double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {{
        x[i] = (double)(i % 100) / 100.0;
        y[i] = 1.0 - (double)(i % 37) / 37.0;
    }}
    double d = 0.0;
    for (int r = 0; r < REPS; r++) {{
        d += dot(N, x, y);
        scale(N, 0.5, y);
        x[r % N] += 1.0; /* keep repetitions distinct */
        y[(r * 7) % N] = y[(r * 7 + 1) % N] * 0.5;
    }}
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += y[i] * (1 + i % 7);
    printf("d %.12e s %.12e\\n", d, s);
    return 0;
}}
"""


def test_elements_written_between_calls_keep_the_loop_a_region_and_reach_the_device(tmp_path):
    out = same_results(DOT, tmp_path, rtol=1e-12)
    main = function_text(host_part(out), "int main(")
    assert "lift_region_begin()" in main, main
    loop = main[main.index("for (int r = 0;"):main.index("lift_region_end(")]
    write = loop.index("x[r % N] += 1.0;")
    assert loop.rindex("lift_present_host(&(x[r % N]), sizeof(x[r % N]), 0);", 0, write) < write
    assert loop.index("lift_present_wrote(&(x[r % N]), sizeof(x[r % N]));", write) > write
    # the value reads another element of y: every newer device value comes back first
    assert "lift_present_host(0, 0, 0), lift_present_host(&(y[(r * 7) % N])" in loop
    stats = byte_counts(out, tmp_path)
    moved = sum(v["copied_in"] + v["copied_out"] for k, v in stats.items()
                if k.startswith(("kernel_dot", "kernel_scale", "region_main")))
    # x and y in once and y out once (plus the elements written), not every call's copies
    assert moved <= 3 * N * 8 + 4 * REPS * 8 + REPS * N * 8, stats
    per_call = sum(v["min_in"] + v["min_out"] for k, v in stats.items() if k.startswith(("kernel_dot", "kernel_scale")))
    assert per_call >= REPS * 3 * N * 8, stats  # what every call moved without the region


@pytest.mark.parametrize("statement", [
    "x[r % N] = x[r % N]++;",           # two writes of x
    "x[r++ % N] += 1.0;",               # the subscript assigns
    "x[r % N] += dot(N, x, y);",        # the value calls a function the region keeps data for
])
def test_other_element_writes_between_calls_make_no_region(statement, tmp_path):
    src = DOT.replace("        x[r % N] += 1.0; /* keep repetitions distinct */", f"        {statement}")
    main = function_text(host_part(lift_cuda(src).output), "int main(")
    assert "lift_region_begin()" not in main
