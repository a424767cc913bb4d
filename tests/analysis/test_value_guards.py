"""Loops parallel under a run-time test of values: min-plus (and max-plus) updates.

Floyd-Warshall's loops over i and j are parallel for a given k when path[k][k] >= 0
(analysis/minplus.py says why). The unit tests check which forms are recognized
and which are refused (the ones where a -0.0, wrap-around or another writer could
change row or column k); the differential tests run the guarded output at 1, 2 and
8 threads, also where the test fails (a negative diagonal entry: the sequential
copy runs), and through the CUDA backend, which cannot test the condition and so
keeps the loops sequential.
"""
import shutil
import subprocess
from pathlib import Path

import pytest

from lifter import LiftOptions, lift_source
from tests.harness import CORPUS, compile_c, have_gcc, prepare, run

KERNEL = """
#include <stdio.h>
#define N 24
static void relax(int n, {T} w[n][n])
{{
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                {UPDATE}
}}
int main(void)
{{
    static {T} w[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            w[i][j] = i == j ? {DIAG} : ({T})(1 + (i * 31 + j * 17) % 97);
    {EXTRA}
    relax(N, w);
    long s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += (long)w[i][j] * (1 + (i * N + j) % 7);
    printf("%ld\\n", s);
    return 0;
}}
"""

IF_MIN = "if (w[i][k] + w[k][j] < w[i][j]) w[i][j] = w[i][k] + w[k][j];"
POLYBENCH = "w[i][j] = w[i][j] < w[i][k] + w[k][j] ? w[i][j] : w[i][k] + w[k][j];"


def program(update=IF_MIN, t="int", diag="0", extra=""):
    return KERNEL.format(T=t, UPDATE=update, DIAG=diag, EXTRA=extra)


def loops(text: str) -> dict:
    result = lift_source(text, "relax.c", LiftOptions(min_parallel_work=0))
    return {e["var"]: e for e in result.loops if e["function"] == "relax"}


def guard_of(text: str):
    """(i parallel, j parallel, the condition in i's plan) for the relax kernel."""
    got = loops(text)
    return got["i"]["parallel"], got["j"]["parallel"], got["i"].get("condition", "")


@pytest.mark.parametrize("update,t,guard", [
    (IF_MIN, "int", "w[k][k] >= 0"),
    ("if (w[i][j] > w[k][j] + w[i][k]) w[i][j] = w[k][j] + w[i][k];", "long", "w[k][k] >= 0"),
    (POLYBENCH, "int", "w[k][k] >= 0"),
    ("w[i][j] = w[i][k] + w[k][j] < w[i][j] ? w[i][k] + w[k][j] : w[i][j];", "double", "w[k][k] >= 0"),
    (IF_MIN, "double", "w[k][k] >= 0"),
    ("if (w[i][k] + w[k][j] > w[i][j]) w[i][j] = w[i][k] + w[k][j];", "int", "w[k][k] <= 0"),
    ("if (w[i][k] + w[k][j] <= w[i][j]) w[i][j] = w[i][k] + w[k][j];", "short", "w[k][k] >= 0"),
], ids=["if-min", "mirrored-long", "polybench-ternary", "strict-ternary-double", "if-min-double", "max-plus",
        "non-strict-short"])
def test_min_plus_updates_are_parallel_under_the_diagonal_test(update, t, guard):
    i, j, condition = guard_of(program(update, t))
    assert i and j
    assert condition.endswith(guard)
    got = loops(program(update, t))
    assert not got["k"]["parallel"]
    assert guard in got["j"]["reason"]


@pytest.mark.parametrize("update,t", [
    # With d = +0.0 and w[k][j] = -0.0 these store +0.0 over -0.0.
    ("if (w[i][k] + w[k][j] <= w[i][j]) w[i][j] = w[i][k] + w[k][j];", "double"),
    (POLYBENCH, "double"),
    ("w[i][j] = fmin(w[i][j], w[i][k] + w[k][j]);", "double"),
    # d + v wraps around.
    (IF_MIN, "unsigned"),
    # The row and the column do not meet on the diagonal.
    ("if (w[i][k] + w[k+1][j] < w[i][j]) w[i][j] = w[i][k] + w[k+1][j];", "int"),
    # Another statement writes w in the loop.
    ("{ if (w[i][k] + w[k][j] < w[i][j]) w[i][j] = w[i][k] + w[k][j]; w[k][k] = -1; }", "int"),
    # Not a selection of the smaller value.
    ("if (w[i][k] + w[k][j] < w[i][j]) w[i][j] = w[i][k] - w[k][j];", "int"),
], ids=["le-double", "polybench-double", "fmin", "unsigned", "offset-row", "other-writer", "not-min"])
def test_forms_that_may_change_row_or_column_k_stay_sequential(update, t):
    text = program(update, t).replace("#include <stdio.h>", "#include <stdio.h>\n#include <math.h>")
    i, j, condition = guard_of(text)
    assert not i and not j and "w[k][k]" not in condition


def test_the_condition_is_tested_per_k_before_a_sequential_copy():
    source = (CORPUS / "dynprog/floyd_warshall.c").read_text()
    out = lift_source(source, "floyd_warshall.c", LiftOptions(min_parallel_work=0)).output
    kernel = out[out.index("kernel_floyd_warshall"):out.index("int main")]
    head = kernel.index("for (int k = 0; k < n; k++)")
    test = kernel.index("if (path[k][k] >= 0) {")
    assert head < test < kernel.index("#pragma omp parallel for") < kernel.index("} else {")
    assert "omp parallel " not in kernel[:head] and "omp simd" not in kernel


@pytest.mark.skipif(not have_gcc(), reason="gcc not found")
@pytest.mark.parametrize("name,text", [
    ("floyd", (CORPUS / "dynprog/floyd_warshall.c").read_text()),
    ("polybench", program(POLYBENCH)),
    ("negative-diagonal", program(diag="0", extra="w[3][3] = -1; w[17][17] = -2;")),
    ("negative-polybench", program(POLYBENCH, diag="(i % 5 == 2 ? -1 : 0)")),
    ("max-plus", program("if (w[i][k] + w[k][j] > w[i][j]) w[i][j] = w[i][k] + w[k][j];", "double",
                         diag="-0.0", extra="w[5][5] = 0.5;")),
], ids=lambda x: x if len(x) < 30 else "")
def test_guarded_loops_print_what_the_original_prints(name, text, tmp_path: Path):
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    diff = prepare(src, tmp_path)
    lifted = diff.lifted.read_text()
    assert ("[k][k] >= 0" in lifted) or ("[k][k] <= 0" in lifted)
    for threads in (1, 2, 8, 8):
        diff.check(threads)


def test_negative_diagonal_takes_the_sequential_copy(tmp_path: Path):
    """With w[3][3] < 0 the guard fails at k == 3 (and wherever the negative cycle has made
    the diagonal negative since): count the branches taken."""
    text = program(extra="w[3][3] = -1;")
    out = lift_source(text, "relax.c", LiftOptions(min_parallel_work=0)).output
    counted = out.replace("if (w[k][k] >= 0) {", "if (w[k][k] >= 0 ? (++lift_par, 1) : (++lift_seq, 0)) {")
    assert counted != out
    counted = counted.replace("static void relax", "static int lift_par, lift_seq;\nstatic void relax")
    counted = counted.replace('printf("%ld\\n", s);', 'printf("%ld\\n", s); fprintf(stderr, "%d %d\\n", lift_par, lift_seq);')
    src = tmp_path / "counted.c"
    src.write_text(counted)
    compile_c(src, tmp_path / "counted", ["-O2", "-fopenmp"])
    done = subprocess.run([str(tmp_path / "counted")], capture_output=True, text=True, timeout=60)
    parallel, sequential = map(int, done.stderr.split())
    assert parallel >= 3 and sequential >= 1 and parallel + sequential == 24
    original = tmp_path / "relax.c"
    original.write_text(text)
    compile_c(original, tmp_path / "orig", ["-O2"])
    assert done.stdout == run(tmp_path / "orig")


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not found (CUDA emulation)")
def test_cuda_keeps_value_guarded_loops_sequential(tmp_path: Path):
    from tests.e2e.test_corpus_cuda import EMULATION, run_emulated

    text = program(extra="w[3][3] = -1;")
    result = lift_source(text, "relax.c", LiftOptions(target="cuda", min_parallel_work=0))
    got = {e["var"]: e for e in result.loops if e["function"] == "relax"}
    assert got["i"]["parallel"] and not got["i"]["parallelized"]
    assert "this backend does not make" in got["i"]["remark"]
    src, cu = tmp_path / "relax.c", tmp_path / "relax.cu"
    src.write_text(text)
    cu.write_text(result.output)
    compile_c(src, tmp_path / "orig", ["-O2"])
    done = subprocess.run(["g++", "-O1", "-x", "c++", "-include", str(EMULATION), str(cu), "-o",
                           str(tmp_path / "emu"), "-lm"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    expected = run(tmp_path / "orig")
    for order in ("", "reverse"):
        assert run_emulated(tmp_path / "emu", order) == expected
