"""The OpenMP backend: parallel regions around time loops (`omp for`, `omp single` inside),
schedules of triangular loops, and the emitted programs run like the originals at 1, 2 and 8
threads, including the loops that must keep one parallel region per parallel loop."""
import re
from pathlib import Path

import pytest

from lifter import LiftOptions, lift_source
from lifter.transform.team_start import team_helpers
from tests.harness import compile_c, have_gcc, prepare, run

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

HEADER = """#include <stdio.h>
#ifndef N
#define N 300
#endif
#ifndef T
#define T 9
#endif
static double a[N], b[N], hist[T];
"""

INIT = """    for (i = 0; i < N; i++) {
        a[i] = (double)((i * 37 + 11) % 101) / 101.0;
        b[i] = 0.0;
    }
"""

PRINT = """    double s = 0.0;
    for (i = 0; i < N; i++)
        s += a[i] * (1 + i % 7);
    printf("a: %.10e %.3e\\n", s, hist[0]);
"""

# A time step with statements between its parallel loops: a reset before a reduction, and a
# history entry and a running sum after it. Run once per thread, `total += res` would be
# counted T times too often, and `res = 0.0` could wipe a partial sum already combined.
SINGLES = HEADER + """int main(void)
{
    int t, i;
    double res = 0.0, total = 0.0;
""" + INIT + """    for (t = 0; t < T; t++) {
        res = 0.0;
        for (i = 1; i < N - 1; i++)
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
        for (i = 1; i < N - 1; i++)
            res += (b[i] - a[i]) * (b[i] - a[i]);
        hist[t] = res;
        total += res;
        for (i = 1; i < N - 1; i++)
            a[i] = b[i];
    }
""" + PRINT + """    printf("total: %.10e\\nlast: %.10e\\n", total, hist[T - 1]);
    return 0;
}
"""

# The reset right before the reduction it prepares: its single must end in a barrier.
RESET_LAST = SINGLES.replace("""        res = 0.0;
        for (i = 1; i < N - 1; i++)
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
""", """        for (i = 1; i < N - 1; i++)
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
        res = 0.0;
""")
assert RESET_LAST != SINGLES

# A convergence loop: threads could not agree on when to leave it.
BREAK = HEADER + """int main(void)
{
    int t, i;
    double res = 0.0;
""" + INIT + """    for (t = 0; t < 1000; t++) {
        res = 0.0;
        for (i = 1; i < N - 1; i++)
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
        for (i = 1; i < N - 1; i++)
            res += (b[i] - a[i]) * (b[i] - a[i]);
        for (i = 1; i < N - 1; i++)
            a[i] = b[i];
        if (res < 1e-3)
            break;
    }
""" + PRINT + """    printf("steps: %d\\nres: %.10e\\n", t, res);
    return 0;
}
"""

# The time loop's variable is read after it: a private copy per thread would lose it.
LIVE_AFTER = HEADER + """int main(void)
{
    int t, i;
""" + INIT + """    for (t = 0; t < T; t++) {
        for (i = 1; i < N - 1; i++)
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
        for (i = 1; i < N - 1; i++)
            a[i] = b[i];
    }
""" + PRINT + """    printf("t: %d\\n", t);
    return 0;
}
"""

# A variable declared in the time step: each thread would have its own, set by one thread only.
DECLARES = HEADER + """int main(void)
{
    int i;
""" + INIT + """    for (int t = 0; t < T; t++) {
        double w = 0.5 + t;
        for (i = 1; i < N - 1; i++)
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / (3.0 * w);
        for (i = 1; i < N - 1; i++)
            a[i] = b[i] + 1.0;
    }
""" + PRINT + """    return 0;
}
"""

# An unknown function is called in the time step (it may write anything, once).
CALLS = HEADER + """void tick(int t);
int main(void)
{
    int i;
""" + INIT + """    for (int t = 0; t < T; t++) {
        for (i = 1; i < N - 1; i++)
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
        tick(t);
        for (i = 1; i < N - 1; i++)
            a[i] = b[i];
    }
""" + PRINT + """    return 0;
}
void tick(int t) { hist[t % T] += t; fflush(stdout); }  /* an unknown call inside: no summary */
"""

# A loop of the time step under an `if`: the children are not plain items of the body.
GUARDED = HEADER + """int main(void)
{
    int i;
""" + INIT + """    for (int t = 0; t < T; t++) {
        if (t > 2)
            for (i = 1; i < N - 1; i++)
                b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
        for (i = 1; i < N - 1; i++)
            a[i] = b[i] + 1.0;
    }
""" + PRINT + """    return 0;
}
"""

# Parametric sizes: the children's work conditions become the region's `if` clause.
PARAMETRIC = """#include <stdio.h>
#include <stdlib.h>
static void kernel_steps(int tsteps, int n, double *restrict a, double *restrict b)
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 1; i < n - 1; i++)
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
        for (int i = 1; i < n - 1; i++)
            a[i] = b[i];
    }
}
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    double *a = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double));
    for (int i = 0; i < n; i++)
        a[i] = i % 11;
    kernel_steps(5, n, a, b);
    printf("%.10e\\n", a[n / 2]);
    free(a);
    free(b);
    return 0;
}
"""

TRIANGULAR = """#include <stdio.h>
#define N 200
static double A[N][N], C[N][N];
int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = (double)((i * j + 1) % N) / N;
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++)
            for (int k = 0; k < N; k++)
                C[i][j] += A[i][k] * A[j][k];
    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += C[i][j] * (1 + (i * N + j) % 7);
    printf("%.10e\\n", s);
    return 0;
}
"""


def lift(text: str, min_work: int = 0, fuse: bool = False) -> str:
    """The OpenMP output; without fusion by default, so the loops below stay as written."""
    return lift_source(text, "t.c", LiftOptions(min_parallel_work=min_work, fuse=fuse)).output


def directives(output: str) -> list[str]:
    """The OpenMP directives on the program's loops (not those of the run-time helpers before it)."""
    helper = team_helpers(output)
    start = output.index(helper) + len(helper) if helper else 0
    return [line.strip() for line in output[start:].splitlines() if line.strip().startswith("#pragma omp")]


def region_of(output: str, loop: str) -> str:
    """From the `omp parallel` line before `loop` to the end of that loop's body."""
    start = output.index(loop)
    head = output.rindex("#pragma omp parallel", 0, start)
    assert output[head:start].count("\n") == 1, "the region pragma is right before the loop"
    return output[head:output.index("\n    }\n", start) + 6]


def test_time_loop_gets_one_region_with_omp_for_inside():
    out = lift(SINGLES)
    region = region_of(out, "for (t = 0; t < T; t++)")
    assert region.startswith("#pragma omp parallel private(t) /* lift */")
    inner = directives(region)[1:]
    assert [d.split()[2] for d in inner] == ["single", "for", "for", "single", "for"]
    assert not any("parallel" in d for d in inner)
    assert "reduction(+: res)" in inner[2]


def test_a_fused_time_loop_keeps_its_region():
    # Fusion joins the stencil with the reduction loop; the nest is re-emitted from the graph.
    out = lift(SINGLES, fuse=True)
    assert "restructured for locality" in out
    region = out[out.index("#pragma omp parallel private(t)"):]
    inner = directives(region[:region.index("double s = 0.0;")])
    assert [d.split()[2] for d in inner] == ["parallel", "single", "for", "single", "for"]
    assert inner[1] == "#pragma omp single /* lift */"  # the fused loop reduces into res: keep the barrier
    assert "reduction(+: res)" in inner[2] and inner[3] == "#pragma omp single nowait /* lift */"


def test_statements_between_parallel_loops_run_in_omp_single():
    region = region_of(lift(SINGLES), "for (t = 0; t < T; t++)")
    # Each is followed by an `omp for` touching none of its data: that loop's barrier suffices.
    assert re.search(r"#pragma omp single nowait /\* lift \*/\n\s*\{ res = 0\.0; \}", region)
    assert re.search(r"#pragma omp single nowait /\* lift \*/\n\s*\{ hist\[t\] = res;\n\s*total \+= res; \}",
                     region)


def test_single_keeps_its_barrier_before_a_loop_that_uses_its_data():
    # `res = 0.0` right before the reduction into `res`; the history into a pointer that may be `a`.
    out = lift(RESET_LAST)
    region = region_of(out, "for (t = 0; t < T; t++)")
    assert re.search(r"#pragma omp single /\* lift \*/\n\s*\{ res = 0\.0; \}", region)
    smooth = region_of(lift((Path(__file__).parents[2] / "corpus/stencils/smooth1d.c").read_text()),
                       "for (t = 0; t < tsteps; t++)")
    assert re.search(r"#pragma omp single /\* lift \*/\n\s*\{ hist\[t\] = res;", smooth)


@pytest.mark.parametrize("program", [BREAK, LIVE_AFTER, DECLARES, CALLS, GUARDED],
                         ids=["break", "live", "declares", "calls", "guarded"])
def test_unsafe_time_loops_keep_a_region_per_parallel_loop(program):
    out = lift(program)
    found = directives(out)
    assert not any(d.startswith("#pragma omp parallel ") and " for" not in d for d in found)
    assert not any(d.startswith("#pragma omp for") or d.startswith("#pragma omp single") for d in found)
    assert sum("parallel for" in d for d in found) >= 3  # init and the two loops of the time step


def test_header_declared_time_variable_is_not_privatized_again():
    out = lift(PARAMETRIC, min_work=40_000)
    region = directives(out)[0]
    assert region.startswith("#pragma omp parallel ") and "private" not in region


def test_work_conditions_are_tested_before_the_region_with_the_loop_as_written_beside_it():
    # An `if` clause that is false still runs the outlined body with its worksharing set-up and
    # barriers every time step (jacobi_1d: 0.8x of serial); the plain copy runs as the original.
    out = lift(PARAMETRIC, min_work=40_000)
    region, *inner = directives(out)[:3]
    assert region.startswith("#pragma omp parallel ") and "if(" not in region
    assert all(d.startswith("#pragma omp for") and "if(" not in d for d in inner)
    test = out.index("if (", out.index("kernel_steps"))
    assert "> 40000L" in out[test:out.index("\n", test)]
    assert test < out.index("#pragma omp parallel ") < out.index("} else {", test)


def test_alias_checks_are_tested_once_before_the_time_loop():
    # External linkage: callers outside the file may pass overlapping arrays (no points-to proof).
    source = PARAMETRIC.replace("double *restrict a, double *restrict b", "double *a, double *b")
    out = lift(source.replace("static void kernel_steps", "void kernel_steps"))
    start = out.index("if (", out.index("kernel_steps"))
    versioned = out[start:out.index("int main")]
    assert versioned.index("#pragma omp parallel") < versioned.index("for (int t = 0")
    parallel, sequential = versioned.split("} else {")
    assert parallel.count("#pragma omp for") == 2
    assert "#pragma" not in sequential
    assert sequential.count("for (int t = 0") == 1


def test_triangular_loops_get_round_robin_schedule():
    found = [d for d in directives(lift(TRIANGULAR)) if "parallel for" in d]
    assert "schedule(static)" in found[0]  # the rectangular initialization
    assert "schedule(static, 1)" in found[1]  # j <= i


def test_region_output_runs_without_openmp(tmp_path):
    original, lifted = tmp_path / "orig.c", tmp_path / "serial.c"
    original.write_text(SINGLES)
    lifted.write_text(lift(SINGLES))
    compile_c(original, tmp_path / "orig", ["-O2"])
    compile_c(lifted, tmp_path / "serial", ["-O2", "-Wall", "-Werror", "-Wno-unknown-pragmas"])
    assert run(tmp_path / "serial") == run(tmp_path / "orig")


@pytest.mark.parametrize("program", [SINGLES, RESET_LAST, BREAK, LIVE_AFTER, DECLARES, CALLS, GUARDED, PARAMETRIC,
                                     TRIANGULAR],
                         ids=["singles", "reset-last", "break", "live", "declares", "calls", "guarded", "parametric",
                              "triangular"])
def test_programs_print_what_the_original_prints(program, tmp_path: Path):
    src = tmp_path / "p.c"
    src.write_text(program)
    diff = prepare(src, tmp_path)
    for threads in (1, 2, 8, 8):
        diff.check(threads)


def test_loops_that_only_fill_memory_stay_sequential():
    source = """void zero(int n, long *restrict count, double *restrict x)
{
    for (int c = 0; c < n; c++)
        count[c] = 0;
    for (int i = 0; i < n; i++)
        x[i] = 0.5 * i;
}
"""
    result = lift_source(source, "t.c", LiftOptions())
    remarks = {entry["var"]: entry["remark"] for entry in result.loops}
    assert "fills memory with one value" in remarks["c"]
    assert "parallelized" in remarks["i"] and "not parallelized" not in remarks["i"]
