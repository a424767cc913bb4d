"""Issue 16's cell scan: an array reduction through a scatter (`f[j] -= d`) inside an inner loop
whose header reads memory (`k` from `start[i]`), so that the inner loop is one opaque statement.
Its updates are still seen one by one: where every access to the array inside the loop is a
reduction update of one operator family, the outer loop reduces into it; a plain read of it, a
call that writes it, or a second operator keep the loop sequential."""
import shutil

import pytest

from lifter import LiftOptions, lift_source
from tests.harness import (REDUCTION_RTOL, check_program, compile_c, have_gcc, loops_by_function, outputs_match,
                           run)

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

# The reduced form of corpus/apps/cellmd/force.c (the brief's sc_reach8.c), with refusals.
KERNELS = """
void force(int n, const int *start, const int *atoms, const double *x, double *f)
{
    for (int i = 0; i < n; i++) {
        for (int k = start[i]; k < start[i + 1]; k++) {
            int j = atoms[k];
            if (j >= i)
                break;
            double d = x[i] - x[j];
            f[i] += d;
            f[j] -= d;
        }
    }
}
void force2(int n, int m, const int *atoms, const double *x, double *f)
{
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < m; k++) {
            int j = atoms[k];
            double d = x[i] - x[j];
            f[i] += d;
            f[j] -= d;
        }
    }
}
"""

REFUSALS = """
static void push(double *f, int j, double d) { f[j] = d; }
void reads(int n, const int *start, const int *atoms, const double *x, double *f, double *g)
{
    for (int i = 0; i < n; i++)
        for (int k = start[i]; k < start[i + 1]; k++) {
            int j = atoms[k];
            g[i] += f[j] * 2;
            f[j] += x[i];
        }
}
void calls(int n, const int *start, const int *atoms, const double *x, double *f)
{
    for (int i = 0; i < n; i++)
        for (int k = start[i]; k < start[i + 1]; k++) {
            int j = atoms[k];
            f[i] += x[j];
            push(f, j, x[i]);
        }
}
void two_operators(int n, const int *start, const int *atoms, const double *x, double *f)
{
    for (int i = 0; i < n; i++)
        for (int k = start[i]; k < start[i + 1]; k++) {
            int j = atoms[k];
            f[i] += x[j];
            f[j] *= 1.5;
        }
}
"""

N = 2000
PROGRAM = """#include <stdio.h>
#define N %d
static double f[N], x[N];
static int start[N + 1], atoms[8 * N];

/* a cell scan in a fixed-size array: the array's extent bounds the section */
static void scan(int n, double *epot)
{
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        for (int k = start[i]; k < start[i + 1]; k++) {
            int j = atoms[k];
            if (j >= i)
                break;
            double d = x[i] - x[j];
            f[i] += d / (1.0 + d * d);
            f[j] = f[j] - d / (1.0 + d * d);
            e += d * d;
        }
    }
    *epot = e;
}

int main(void)
{
    int m = 0;
    for (int i = 0; i < N; i++) {
        x[i] = (double)((i * 7919) %% 1000) / 100.0;
        start[i] = m;
        for (int k = 0; k < i %% 7; k++)
            atoms[m++] = (i * 31 + k * 97) %% (i + 1);
    }
    start[N] = m;
    double e;
    scan(N, &e);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += f[i] * (1 + i %% 3);
    printf("%%.10e %%.10e\\n", s, e);
    return 0;
}
""" % N


def _outer(text, function):
    return next(e for e in loops_by_function(text)[function] if e["depth"] == 0)


@pytest.mark.parametrize("function", ["force", "force2"])
def test_scatter_in_an_opaque_inner_loop_is_an_array_reduction(function):
    entry = _outer(KERNELS, function)
    assert entry["parallel"], entry["reason"]
    assert [(r["variable"], r["operator"]) for r in entry["reduction"]] == [("f", "+")]


def test_plain_read_call_or_second_operator_keep_the_loop_sequential():
    for function, why in [("reads", "on f"), ("calls", "on f"), ("two_operators", "on f")]:
        entry = _outer(REFUSALS, function)
        assert not entry["parallel"] and why in entry["reason"], (function, entry["reason"])


def test_bounded_cell_scan_is_parallelized():
    entry = _outer(PROGRAM, "scan")
    assert entry["parallelized"], entry["remark"]
    assert sorted((r["variable"], r["operator"]) for r in entry["reduction"]) == [("e", "+"), ("f", "+")]


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_cell_scan_computes_the_same(tmp_path, threads):
    check_program(PROGRAM, "cellscan.c", tmp_path, threads)


# The section is f[0:n] (from f[i]); `atoms` sends the scatter to indices in [-n, 2n) of a
# pointer into the middle of a buffer: an update outside the section sets `lift_escape`, and the
# loop runs again as written from copies of the section and the scalar reductions.
OUTSIDE = """#include <stdio.h>
#define N 3000
static double buf[3 * N], x[N];
static int start[N + 1], atoms[8 * N];

static void scatter(int n, const int *restrict first, const int *restrict atoms, const double *restrict x,
                    double *restrict f)
{
    for (int i = 0; i < n; i++)
        for (int k = first[i]; k < first[i + 1]; k++) {
            int j = atoms[k];
            double d = x[i] - x[(j + n) % n];
            f[i] += d;
            f[j] -= d;
        }
}

int main(void)
{
    int m = 0;
    for (int i = 0; i < N; i++) {
        x[i] = (double)((i * 7919) % 1000) / 100.0;
        start[i] = m;
        for (int k = 0; k < i % 7; k++)
            atoms[m++] = (i * 31 + k * 97) % (3 * N) - N;
    }
    start[N] = m;
    scatter(N, start, atoms, x, buf + N);
    double s = 0.0;
    for (int i = 0; i < 3 * N; i++)
        s += buf[i] * (1 + i % 3);
    printf("%.10e\\n", s);
    return 0;
}
"""


def test_unbounded_updates_are_tested_and_the_loop_runs_again_outside_the_section():
    entry = _outer(OUTSIDE, "scatter")
    assert entry["parallelized"], entry["remark"]
    assert "1 unbounded update(s) of 'f' tested: if one falls outside the section, the loop runs again" \
        in entry["remark"]
    out = lift_source(OUTSIDE, "p.c", LiftOptions(min_parallel_work=0)).output
    assert "reduction(+: f[0L:" in out and "reduction(|: lift_escape)" in out
    assert "f[j] -= d; else lift_escape = 1; }" in out and "omp atomic" not in out
    assert "#include <stdlib.h>" in out and "free(lift_saved_f);" in out


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_updates_outside_the_section_compute_the_same(tmp_path, threads):
    check_program(OUTSIDE, "outside.c", tmp_path, threads)


# The same scan with a scalar reduction that starts from a value of its own, and neighbours
# inside the section (SPREAD = N: the parallel result is kept) or beyond it on both sides
# (SPREAD = 3 * N, from -N: the second run restores `e` and the section first).
ESCAPE = """#include <stdio.h>
#define N 3000
static double buf[3 * N], x[N];
static int start[N + 1], atoms[8 * N];

static double scatter(int n, const int *restrict first, const int *restrict atoms, const double *restrict x,
                      double *restrict f, double e)
{
    for (int i = 0; i < n; i++)
        for (int k = first[i]; k < first[i + 1]; k++) {
            int j = atoms[k];
            double d = x[i] - x[(j + n) % n];
            f[i] += d;
            f[j] -= 0.5 * d;
            e += d * d;
        }
    return e;
}

int main(void)
{
    int m = 0;
    for (int i = 0; i < N; i++) {
        x[i] = (double)((i * 7919) % 1000) / 100.0;
        buf[i] = 0.25 * (i % 5);
        start[i] = m;
        for (int k = 0; k < i % 7; k++)
            atoms[m++] = (i * 31 + k * 97) % SPREAD - LOW;
    }
    start[N] = m;
    double e = scatter(N, start, atoms, x, buf + N, 1.5);
    double s = 0.0;
    for (int i = 0; i < 3 * N; i++)
        s += buf[i] * (1 + i % 3);
    printf("%.10e %.10e\\n", s, e);
    return 0;
}
"""


@pytest.mark.parametrize("threads", [1, 2, 8])
@pytest.mark.parametrize("spread,low", [("N", "0"), ("3 * N", "N")], ids=["inside", "outside"])
def test_second_run_restores_the_section_and_the_scalars(tmp_path, threads, spread, low):
    text = ESCAPE.replace("SPREAD", f"({spread})").replace("LOW", f"({low})")
    entry = _outer(text, "scatter")
    assert entry["parallelized"] and "tested" in entry["remark"], entry["remark"]
    check_program(text, "escape.c", tmp_path, threads)
    lifted = (tmp_path / "escape.lifted.c").read_text()
    assert "double lift_saved_e = e;" in lifted and "e = lift_saved_e;" in lifted


def _writes_g(statement):
    return ESCAPE.replace("x[N];", "x[N], g[N];") \
        .replace("double *restrict f, double e)", "double *restrict f, double e, double *restrict g)") \
        .replace("e += d * d;", f"e += d * d;\n            {statement}").replace("buf + N, 1.5)", "buf + N, 1.5, g)") \
        .replace("    printf(", "    for (int i = 0; i < N; i++)\n        s += g[i] * (i % 7);\n    printf(")


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_a_loop_that_only_writes_more_runs_again_as_written(tmp_path, threads):
    """What the loop only writes (`g[i] = d`, the last neighbour's `d`) depends on nothing the first
    run changed: the second run writes the same values again."""
    text = _writes_g("g[i] = d;").replace("SPREAD", "(3 * N)").replace("LOW", "(N)")
    entry = _outer(text, "scatter")
    assert entry["parallelized"] and "tested" in entry["remark"], entry["remark"]
    check_program(text, "writes.c", tmp_path, threads)


def test_a_loop_that_reads_what_it_writes_stays_sequential():
    """The second run starts from the copies of the reductions only: what else the loop reads and
    writes would already be changed (`g[i] += d` would add twice)."""
    entry = _outer(_writes_g("g[i] += d;").replace("SPREAD", "N").replace("LOW", "0"), "scatter")
    assert not entry["parallelized"]
    assert "the loop also reads and writes 'g', so it cannot run again as written" in entry["remark"]


def test_unguardable_update_keeps_the_loop_sequential():
    text = OUTSIDE.replace("f[j] -= d;", "f[j] = f[j] - d;")
    entry = _outer(text, "scatter")
    assert not entry["parallelized"]
    assert "only `f[e] op= v` and `++`/`--` are guarded" in entry["remark"]


def test_local_pointers_of_unrelated_types_need_no_alias_test():
    """cellmd's `double *f = s->f;` beside `cl->atoms` (an `int *`): C's type rules keep them
    apart whatever the pointers' storage, so the gather `a[a[i]]` needs no bounds."""
    text = """
typedef struct { int n; int *a; double *f; } S;
void gather(S *s)
{
    double *f = s->f;
    const int *a = s->a;
    for (int i = 0; i < s->n; i++)
        f[i] = 2.0 * a[a[i]];
}
"""
    entry = lift_source(text, "t.c", LiftOptions(min_parallel_work=0)).loops[0]
    assert entry["parallelized"], entry["remark"]


def test_other_targets_refuse_or_keep_the_guard():
    """CUDA has no atomic form for an update inside an opaque statement: the loop stays on the
    host, with the reason. MPI runs such a loop replicated, with the OpenMP plan and its guard."""
    for text, function in [(PROGRAM, "scan"), (OUTSIDE, "scatter")]:
        entry = _outer_for(text, function, "cuda")
        assert not entry["parallelized"] and "not a reduction statement lift can make atomic" in entry["remark"]
    out = lift_source(OUTSIDE, "p.c", LiftOptions(target="mpi", min_parallel_work=0)).output
    assert "f[j] -= d; else lift_escape = 1; }" in out and "free(lift_saved_f);" in out


@pytest.mark.skipif(not (shutil.which("mpicc") and shutil.which("mpirun")), reason="needs Open MPI")
def test_mpi_runs_the_second_run_replicated(tmp_path):
    """MPI runs the loop replicated with the OpenMP plan: the copies (`memcpy`, declared by the
    output's own `#include <string.h>`), the guard and the second run compile and compute the same."""
    from tests.backend.test_mpi import lift_mpi, run_mpi
    source = tmp_path / "escape.c"
    source.write_text(ESCAPE.replace("SPREAD", "(3 * N)").replace("LOW", "(N)"))
    original = tmp_path / "original"
    compile_c(source, original, ["-O2", "-std=gnu11"])
    exe, loops = lift_mpi(source, tmp_path)
    assert any("tested" in e["remark"] for e in loops)
    for ranks in (1, 2):
        assert outputs_match(run(original), run_mpi(exe, ranks)[0], REDUCTION_RTOL)


def _outer_for(text, function, target):
    return next(e for e in loops_by_function(text, target)[function] if e["depth"] == 0)


COPIES = """
typedef struct { int n; int *a; double *f, *x; } S;
void gather(S *s)
{
    double *f = s->f;
    const double *x = s->x;
    REASSIGN
    for (int i = 0; i < s->n; i++)
        f[i] = 2.0 * x[s->a[i]];
}
"""


def test_local_copies_of_the_callers_pointers_are_covered_by_assume_no_alias():
    """cellmd's `double *f = s->f; const double *x = s->x;`: under --assume-no-alias the copies are
    the caller's pointers, apart; a copy assigned again later (`f = (double *)x;`) is not: the loop
    is parallel only where a pass over `s->a` finds what it gathers of `x` apart from `f`."""
    def entry(reassign):
        options = LiftOptions(min_parallel_work=0, assume_no_alias=True)
        return lift_source(COPIES.replace("REASSIGN", reassign), "t.c", options).loops[0]
    assert entry("")["parallelized"] and "lift_gather_apart" not in entry("").get("condition", ""), entry("")
    assert "lift_gather_apart_int((const int *)(s->a)" in entry("f = (double *)x;")["condition"]


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_guarded_updates_in_a_versioned_loop_compute_the_same(tmp_path, threads):
    """Called in a loop: the guard is in the parallel copy only, the second run's copy is as written."""
    text = OUTSIDE.replace("    scatter(N, start, atoms, x, buf + N);",
                           "    for (int r = 0; r < 3; r++)\n        scatter(N, start, atoms, x, buf + N);")
    check_program(text, "versioned.c", tmp_path, threads)
    lifted = (tmp_path / "versioned.lifted.c").read_text()
    assert lifted.count("else lift_escape = 1;") == 1 and lifted.count("f[j] -= d;") == 2
