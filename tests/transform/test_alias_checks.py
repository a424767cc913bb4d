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
    return entry["condition"]  # the C tested (the remark shows it simplified, issue 18)


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
    """Two device copies of one host array would not be one array: the CUDA target's tests
    ask for disjoint ranges only."""
    from tests.backend.test_cuda import same_results
    out = same_results(PROGRAM, tmp_path)
    assert "(const char *)(x) + (lift_lo_x + lift_rows_x) * sizeof((x)[0]) <= (const char *)(z)" in out
    assert "(const void *)x == (const void *)z" not in out  # equal pointers: still two device buffers


# A CG-style solver: the CSR product's ranges of x[col[p]] cannot be bounded, so no run-time
# test exists; every call in the file passes distinct allocations, which proves them apart.
CSR = """#include <stdio.h>
#include <stdlib.h>

static void spmv(int n, const int *rowptr, const int *col, const double *val, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
            s += val[p] * x[col[p]];
        y[i] = s;
    }
}

static double dot(int n, const double *a, const double *b)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* a few steepest-descent steps; spmv's arguments come from this function's parameters */
static void solve(int n, const int *rowptr, const int *col, const double *val, const double *b,
                  double *x, double *r, double *q, int iters)
{
    for (int it = 0; it < iters; it++) {
        spmv(n, rowptr, col, val, x, q);
        for (int i = 0; i < n; i++)
            r[i] = b[i] - q[i];
        spmv(n, rowptr, col, val, r, q);
        double alpha = dot(n, r, r) / dot(n, r, q);
        for (int i = 0; i < n; i++)
            x[i] += alpha * r[i];
    }
}

/* external linkage: other files may call it with overlapping arrays */
void smooth_csr(int n, const int *rowptr, const int *col, const double *val, double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
            s += val[p] * x[col[p]];
        y[i] = 0.5 * (x[i] + s);
    }
}

/* called once with its input as its output: the points-to proof must fail */
static void spmv_inplace(int n, const int *rowptr, const int *col, const double *val, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
            s += val[p] * x[col[p]];
        y[i] = s;
    }
}

int main(void)
{
    int n = 4000;
    int *rowptr = malloc(sizeof(int) * (n + 1));
    int *col = malloc(sizeof(int) * 3 * n);
    double *val = malloc(sizeof(double) * 3 * n);
    double *b = malloc(sizeof(double) * n), *x = calloc(n, sizeof(double));
    double *r = malloc(sizeof(double) * n), *q = malloc(sizeof(double) * n), *t = malloc(sizeof(double) * n);
    rowptr[0] = 0;
    for (int i = 0; i < n; i++) {
        int k = rowptr[i];
        col[k] = i; val[k] = 4.0; k++;
        if (i > 0) { col[k] = i - 1; val[k] = -1.0; k++; }
        if (i < n - 1) { col[k] = i + 1; val[k] = -1.0; k++; }
        rowptr[i + 1] = k;
        b[i] = 1.0 + (i % 7);
    }
    solve(n, rowptr, col, val, b, x, r, q, 20);
    smooth_csr(n, rowptr, col, val, x, t);
    spmv_inplace(n, rowptr, col, val, t, t);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * (1 + i % 3) + t[i];
    printf("%.10e\\n", s);
    free(rowptr); free(col); free(val); free(b); free(x); free(r); free(q); free(t);
    return 0;
}
"""


def test_distinct_allocations_at_every_call_need_no_run_time_test():
    loops = loops_by_function(CSR)
    spmv = next(e for e in loops["spmv"] if e["depth"] == 0)
    assert spmv["parallelized"] and "const char" not in spmv["remark"], spmv["remark"]


def test_unprovable_or_overlapping_csr_arguments_need_a_run_time_test():
    # The points-to proof fails for smooth_csr (external) and for the in-place call; a run-time
    # test of the row offsets and column indices (transform/row_spans.py) guards the parallel
    # loop, and fails for the in-place call (the test below runs it). smooth_csr also reads
    # x[i]: that range is tested as well.
    loops = loops_by_function(CSR)
    for function in ("smooth_csr", "spmv_inplace"):
        entry = next(e for e in loops[function] if e["depth"] == 0)
        assert entry["parallelized"] and "lift_gather_apart_int" in entry["condition"], entry["remark"]
    smooth = next(e for e in loops["smooth_csr"] if e["depth"] == 0)["condition"]
    assert "&x[" in smooth and smooth.index("&x[") < smooth.index("lift_gather_apart_int")


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_csr_solver_computes_the_same(tmp_path, threads):
    check_program(CSR, "csr.c", tmp_path, threads)


# Every other column through the index array: no run-time range (transform/row_spans.py takes
# `x[col[p] + d]` only).
SPREAD = """void spread_csr(int n, const int *rowptr, const int *col, const double *val, double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
            s += val[p] * x[2 * col[p]];
        y[i] = 0.5 * (x[i] + s);
    }
}
"""


def test_the_remark_names_the_opt_in_flag_and_the_flag_parallelizes(tmp_path):
    entry = next(e for e in loops_by_function(SPREAD)["spread_csr"] if e["depth"] == 0)
    assert not entry["parallelized"] and "--assume-no-alias" in entry["remark"]
    result = lift_source(SPREAD, "csr.c", LiftOptions(min_parallel_work=0, assume_no_alias=True))
    smooth = next(e for e in result.loops if e["function"] == "spread_csr" and e["depth"] == 0)
    assert smooth["parallelized"], smooth["remark"]


def test_cc_spelling_of_the_flag_is_understood():
    from lifter.cli import normalize_argv
    assert normalize_argv(["-fargument-noalias", "k.c"]) == ["--assume-no-alias", "k.c"]
    assert normalize_argv(["-fno-strict-aliasing", "k.c"]) == ["--no-strict-aliasing", "k.c"]  # honoured since reach7


def test_the_flag_covers_pointer_fields_reached_through_parameters():
    text = """typedef struct { int n; int *rowptr; int *col; double *val; } Csr;
void spmv(const Csr *a, const double *x, double *y)
{
    for (int i = 0; i < a->n; i++) {
        double s = 0.0;
        for (int k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            s += a->val[k] * x[2 * a->col[k]];
        y[i] = s;
    }
}
"""
    # (`x[a->col[k]]` would be parallel under a test of the column indices: transform/row_spans.py)
    plain = lift_source(text, "s.c", LiftOptions(min_parallel_work=0)).loops[0]
    assert not plain["parallelized"] and "--assume-no-alias" in plain["remark"]
    flagged = lift_source(text, "s.c", LiftOptions(min_parallel_work=0, assume_no_alias=True)).loops[0]
    assert flagged["parallelized"], flagged["remark"]
    assert "(pointers kept apart by --assume-no-alias, not by a test)" in flagged["remark"]


def test_the_remark_names_the_flag_only_where_it_spared_a_test():
    """Under the flag, a loop whose pointers need no test anyway (restrict) says nothing of it;
    one whose test the flag spared says so (its output has no test then)."""
    text = ("void f(int n, double *{q}x, double *{q}y)\n{{\n    for (int i = 0; i < n; i++)\n"
            "        y[i] = 2.0 * x[i];\n}}\n")
    options = LiftOptions(min_parallel_work=0, assume_no_alias=True)
    for qualifier, named in (("restrict ", False), ("", True)):
        result = lift_source(text.format(q=qualifier), "f.c", options)
        assert result.loops[0]["parallelized"]
        assert ("--assume-no-alias" in result.loops[0]["remark"]) == named, result.loops[0]["remark"]
        assert "<= (const char *)" not in result.output  # no overlap test in either


def test_the_flag_costs_no_second_alias_test(monkeypatch):
    """Whether the promise spared a test is read off the one test built under it (the pairs it
    passed over only by the promise), not from a second test built as if without the flag:
    planning the loop builds one alias test, flag or not, and the remark names the flag as before."""
    import sys

    from lifter.transform import parallelize
    built = []
    original = parallelize.alias_condition

    def spy(*args, **kwargs):
        frame = sys._getframe(1)
        while frame is not None and frame.f_code is not parallelize._plan.__code__:
            frame = frame.f_back
        built.append(frame is not None)  # (called while planning the loop)
        return original(*args, **kwargs)

    monkeypatch.setattr(parallelize, "alias_condition", spy)
    text = "void f(int n, double *x, double *y)\n{\n    for (int i = 0; i < n; i++)\n        y[i] = 2.0 * x[i];\n}\n"
    for flag in (False, True):
        built.clear()
        result = lift_source(text, "f.c", LiftOptions(min_parallel_work=0, assume_no_alias=flag))
        assert result.loops[0]["parallelized"]
        assert ("--assume-no-alias" in result.loops[0]["remark"]) == flag
        assert built.count(True) == 1
