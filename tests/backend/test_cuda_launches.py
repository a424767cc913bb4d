"""Kernels launched inside a sequential host loop are offloaded only when a launch's work pays for
it (backend/cuda_launches.py): decided at lift time where the work is a constant, else by a test
before the nest that runs it as written. Differential: the lifted file, built against the CPU
emulation of CUDA, prints what the original prints; a profiled build counts the launches."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from lifter import LiftOptions, lift_source
from lifter.backend.cuda_launches import LAUNCH_MIN_WORK
# (pytestmark: the same skip, without g++ and gcc)
from tests.backend.test_cuda import (CXX, EMULATION, function_text, host_part, pytestmark,  # noqa: F401
                                     run_exe, run_original)

# Forward substitution: per row, a reduction kernel over j < i and a one-thread kernel for x[i].
TRISOLV = """#include <stdio.h>
#include <stdlib.h>
#define N 400

static void trisolv(int n, const double *restrict L, double *restrict x, const double *restrict b)
{
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int j = 0; j < i; j++)
            s -= L[(size_t)i * n + j] * x[j];
        x[i] = s / L[(size_t)i * n + i];
    }
}

int main(void)
{
    double *L = malloc((size_t)N * N * sizeof *L), *x = malloc(N * sizeof *x), *b = malloc(N * sizeof *b);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++)
            L[(size_t)i * N + j] = j < i ? (double)((i + j) % N) / ((double)N * N) : 0.0;
        L[(size_t)i * N + i] = 2.0;
        b[i] = (double)(i % 13) / 13.0;
    }
    trisolv(N, L, x, b);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += x[i] * (1 + i % 7);
    printf("x: %.12e\\n", s);
    return 0;
}
"""

# Time steps of a 1-D stencil: two kernels of n - 2 iterations per step, n known only at run time.
SMOOTH = """#include <stdio.h>
#include <stdlib.h>

static void smooth(int n, int steps, double *restrict a, double *restrict b)
{
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
        for (int i = 1; i < n - 1; i++)
            a[i] = b[i];
    }
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (int i = 0; i < n; i++)
        a[i] = b[i] = (double)(i * 37 % 101) / 101.0;
    smooth(n, 4, a, b);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * (1 + i % 7);
    printf("s: %.12e\\n", s);
    return 0;
}
"""


def lift(text: str, min_work: int = 40_000):
    return lift_source(text, "k.c", LiftOptions(target="cuda", min_parallel_work=min_work))


def build_profiled(output: str, tmp_path: Path) -> Path:
    src, exe = tmp_path / "lifted.cu", tmp_path / "lifted"
    src.write_text(output)
    done = subprocess.run([CXX, "-O1", "-DLIFT_PROFILE", "-x", "c++", "-include", str(EMULATION), str(src), "-o",
                           str(exe), "-lm"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return exe


def launches(stderr: str) -> dict[str, int]:
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"lift-profile: (\w+) launches (\d+)", stderr)}


def run_with(exe: Path, *args: str) -> subprocess.CompletedProcess:
    ran = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    return ran


# A step of known size: one kernel of 50,000 iterations and two one-thread kernels (the boundary).
BOUNDARY = """#include <stdio.h>
#define N 50000

static double a[N], b[N];

static void steps(int tsteps)
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 0; i < N; i++)
            b[i] = 0.5 * a[i] + 0.25 * a[(i + 1) % N] + 0.25;
        a[0] = b[N - 1];
        a[N - 1] = b[0];
        for (int i = 1; i < N - 1; i++)
            a[i] = b[i];
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        a[i] = (double)(i * 37 % 101) / 101.0;
    steps(3);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += a[i] * (1 + i % 7);
    printf("s: %.12e\\n", s);
    return 0;
}
"""


def test_launches_of_known_size_that_do_not_pay_stay_on_the_host_with_the_reason(tmp_path):
    text = BOUNDARY.replace("        for (int i = 1; i < N - 1; i++)\n            a[i] = b[i];\n", "")
    result = lift(text)
    body = function_text(host_part(result.output), "static void steps(")
    assert "LIFT_LAUNCH" not in body
    assert ("/* lift: loop nest not offloaded to the GPU: not profitable: its 3 kernel launches in each iteration "
            f"of the host loop over 't' do about 50000 units of work in all, less than {LAUNCH_MIN_WORK} a launch") \
        in body, body
    verdicts = [o.offload for g, o in zip(result.graphs, result.outcomes) if g.function == "steps"]
    assert verdicts and not verdicts[0].offloaded and verdicts[0].reason.startswith("not profitable")
    entries = [e for e in result.loops if e.get("function") == "steps" and e.get("var") == "i"]
    assert entries and all("not profitable" in e["remark"] and e["reason_code"] == "not-profitable"
                           for e in entries), entries
    exe = build_profiled(result.output, tmp_path)
    ran = run_exe(exe)
    assert ran.stdout == run_original(text, tmp_path)
    assert not any(k.startswith("kernel_steps") for k in launches(ran.stderr))
    # with a second kernel of 50,000, four launches do 100,000: enough
    body = function_text(host_part(lift(BOUNDARY).output), "static void steps(")
    assert "LIFT_LAUNCH(kernel_steps" in body and "too little work" not in body


def test_a_row_loop_of_run_time_size_tests_the_longest_launch_before_the_nest(tmp_path):
    result = lift(TRISOLV)
    body = function_text(host_part(result.output), "static void trisolv(")
    # the reduction over j < i runs at most n - 1 iterations; the one-thread kernel does no parallel work
    test = re.search(r"if \(\((.*) >= (\d+)L\)", body)
    assert test and int(test.group(2)) == 2 * LAUNCH_MIN_WORK, body
    assert "i" not in re.findall(r"\w+", test.group(1)) and "n" in re.findall(r"\w+", test.group(1))
    assert "} else { /* too little work" in body
    remarks = [e["remark"] for e in result.loops if e.get("function") == "trisolv" and e.get("var") == "j"]
    assert remarks and remarks[0].endswith(f"when its launches inside a sequential loop do enough work each: "
                                           f"n - 1 >= {2 * LAUNCH_MIN_WORK}"), remarks
    exe = build_profiled(result.output, tmp_path)
    ran = run_exe(exe)
    assert ran.stdout == run_original(TRISOLV, tmp_path)
    assert not any(k.startswith("kernel_trisolv") for k in launches(ran.stderr)), "n = 400: the host's loop runs"


def test_a_time_loop_launches_when_a_step_has_the_work_and_runs_as_written_when_not(tmp_path):
    result = lift(SMOOTH)
    body = function_text(host_part(result.output), "static void smooth(")
    assert f">= {2 * LAUNCH_MIN_WORK}L)" in body, body
    src = tmp_path / "orig.c"
    src.write_text(SMOOTH)
    subprocess.run(["gcc", "-O1", str(src), "-o", str(tmp_path / "orig")], check=True)
    exe = build_profiled(result.output, tmp_path)
    for n, steps in ((LAUNCH_MIN_WORK + 2, 4), (1000, 0)):  # one launch of each kernel per step, or none
        expected = run_with(tmp_path / "orig", str(n)).stdout
        ran = run_with(exe, str(n))
        assert ran.stdout == expected
        counts = launches(ran.stderr)
        ran_steps = sorted(v for k, v in counts.items() if k.startswith("kernel_smooth"))
        assert ran_steps == ([steps, steps] if steps else []), ran_steps


# Two nests of one function: rows computed from the row before (a kernel of n x n iterations per
# row), then a forward substitution (a kernel of i iterations per row, and a one-thread one).
FACTOR_SOLVE = """#include <stdio.h>
#include <stdlib.h>

static void factor_solve(int n, double *restrict A, const double *restrict C, double *restrict y,
                         const double *restrict b)
{
    for (int i = 1; i < n; i++)
        for (int j = 0; j < n; j++) {
            double w = A[i * n + j];
            for (int k = 0; k < n; k++)
                w -= 1e-3 * A[(i - 1) * n + k] * C[k * n + j];
            A[i * n + j] = w;
        }
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int j = 0; j < i; j++)
            s -= 1e-3 * A[i * n + j] * y[j];
        y[i] = s;
    }
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double *A = malloc((size_t)n * n * sizeof *A), *C = malloc((size_t)n * n * sizeof *C);
    double *y = malloc(n * sizeof *y), *b = malloc(n * sizeof *b);
    for (int i = 0; i < n; i++) {
        b[i] = (double)(i % 13) / 13.0;
        for (int j = 0; j < n; j++) {
            A[i * n + j] = (double)((i + 2 * j) % 17) / 17.0;
            C[i * n + j] = (double)((3 * i + j) % 11) / 11.0;
        }
    }
    factor_solve(n, A, C, y, b);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += y[i] * (1 + i % 7) + A[i * n + (i * 3) % n];
    printf("s: %.12e\\n", s);
    return 0;
}
"""


def test_a_nest_whose_launches_pay_does_not_share_a_scope_with_one_whose_launches_do_not(tmp_path):
    result = lift(FACTOR_SOLVE)
    body = function_text(host_part(result.output), "static void factor_solve(")
    assert body.count("too little work") == 2, body  # two data scopes, each with its own test
    src = tmp_path / "orig.c"
    src.write_text(FACTOR_SOLVE)
    subprocess.run(["gcc", "-O1", str(src), "-o", str(tmp_path / "orig")], check=True)
    exe = build_profiled(result.output, tmp_path)
    n = 200  # a row of the factorization: about n * n units of work; of the substitution, n
    ran = run_with(exe, str(n))
    assert ran.stdout == run_with(tmp_path / "orig", str(n)).stdout
    counts = launches(ran.stderr)
    assert [v for k, v in counts.items() if k.startswith("kernel_factor_solve_j_L8")] == [n - 1], counts
    assert not any(k.startswith("kernel_factor_solve") and k != "kernel_factor_solve_j_L8" for k in counts), counts


def test_the_rule_is_off_with_the_profitability_guard():
    body = function_text(host_part(lift(TRISOLV, min_work=0).output), "static void trisolv(")
    assert "LIFT_LAUNCH(kernel_trisolv_j" in body and "too little work" not in body
