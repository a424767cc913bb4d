"""Arrays of row pointers (`double **A`, `A[i][j]`) read as 2-D arrays under a run-time test
that the rows are disjoint (analysis/rows.py, transform/rows_check.py). The differential
program runs every loop on separately malloc'd rows (parallel), on rows that all point to
one buffer and on rows that overlap (the test fails: the loop as written runs), at 1, 2 and 8
threads; the test itself is checked directly on those layouts."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from lifter import LiftOptions, lift_source
from lifter.transform.rows_check import helper_definitions, rows_test
from tests.backend.test_cuda import same_results
from tests.harness import check_program, compile_c, have_gcc, loops_by_function, run

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>

void smooth_rows(int n, int m, double **a, double **b)
{
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < m - 1; j++)
            a[i][j] = 0.25 * (b[i - 1][j] + b[i + 1][j] + b[i][j - 1] + b[i][j + 1]);
}

void scale_rows(int n, int m, double **a, double s)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            a[i][j] = a[i][j] * s + j;
}

void prefix_rows(int n, int m, double **a, const double *x)
{
    for (int i = 0; i < n; i++)
        for (int j = 1; j < m; j++)
            a[i][j] = a[i][j - 1] + x[j];
}

/* NEGATIVE: the row pointers are written in the loop. */
void rotate_rows(int n, int m, double **a)
{
    for (int i = 0; i < n - 1; i++) {
        a[i] = a[i + 1];
        a[i][0] = a[i][0] + m;
    }
}

static double **separate(int n, int m)
{
    double **r = malloc(n * sizeof(double *));
    for (int i = 0; i < n; i++) {
        r[i] = malloc(m * sizeof(double));
        for (int j = 0; j < m; j++)
            r[i][j] = (i * 7 + j * 3) % 11;
    }
    return r;
}

int main(void)
{
    int n = 60, m = 40;
    double **a = separate(n, m), **b = separate(n, m);
    double *x = malloc(m * sizeof(double));
    double *one = malloc(m * sizeof(double));
    double **same = malloc(n * sizeof(double *));
    double *buf = malloc((n + m) * sizeof(double));
    double **over = malloc(n * sizeof(double *));
    for (int j = 0; j < m; j++) { x[j] = j % 3; one[j] = j; }
    for (int i = 0; i < n; i++) { same[i] = one; over[i] = buf + i; }
    for (int k = 0; k < n + m; k++) buf[k] = k % 5;
    smooth_rows(n, m, a, b);      /* separate rows: parallel */
    scale_rows(n, m, a, 0.5);
    prefix_rows(n, m, b, x);
    scale_rows(n, m, same, 1.5);  /* one buffer: as written */
    prefix_rows(n, m, over, x);   /* overlapping rows: as written */
    smooth_rows(n, m, over, b);
    smooth_rows(n, m, a, a);      /* reads the rows it writes: as written */
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += a[i][j] * ((i + j) % 3) + b[i][j] * (j % 5) + same[i][j] * (i % 4) + over[i][j] * (j % 4);
    rotate_rows(n, m, a);
    for (int i = 0; i < n; i++) s += a[i][0] * i;
    printf("%.17g\n", s);
    return 0;
}
"""


def test_row_loops_are_parallel_under_the_rows_test():
    loops = loops_by_function(PROGRAM)
    for name in ("smooth_rows", "scale_rows", "prefix_rows"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    text = lift_source(PROGRAM, "rows.c", LiftOptions(min_parallel_work=0)).output
    assert text.startswith("/* lift: rows") and text.count("static int lift_rows_double(") == 1
    assert "lift_rows_double((double *const *)(a), 1L, (long)n - 2L, 1L, (long)m - 2L)" in text


def test_rows_whose_pointers_change_stay_sequential():
    assert not loops_by_function(PROGRAM)["rotate_rows"][0]["parallel"]


@needs_gcc
@pytest.mark.parametrize("threads", [1, 2, 8])
def test_program_gives_identical_results(tmp_path, threads):
    check_program(PROGRAM, "rows.c", tmp_path, threads)


TEST_DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    double block[40], *sep[4], *one[4], *over[4], *down[4];
    int i;
    for (i = 0; i < 4; i++) {
        sep[i] = malloc(10 * sizeof(double));
        one[i] = block;
        over[i] = block + 5 * i;
        down[i] = block + 10 * (3 - i);
    }
    printf("%d %d %d %d %d %d %d\n",
           CALL(sep, 0, 3, 0, 9) || sep[0] > sep[1],
           CALL(one, 0, 3, 0, 9), CALL(over, 0, 3, 0, 9), CALL(over, 0, 3, 0, 4), CALL(down, 0, 3, 0, 9),
           CALL(over, 2, 1, 0, 4), CALL(one, 1, 1, 0, 9));
    return 0;
}
"""


@needs_gcc
def test_the_rows_test_accepts_disjoint_increasing_rows_only(tmp_path):
    call = rows_test("double", "ROWS", "LO", "HI", "FIRST", "LAST")
    source = tmp_path / "t.c"
    source.write_text(helper_definitions(call) + f"#define CALL(ROWS, LO, HI, FIRST, LAST) {call}\n" + TEST_DRIVER)
    exe = tmp_path / "t"
    compile_c(source, exe, ["-O2", "-std=c89", "-pedantic", "-Wall", "-Wextra", "-Werror"])
    # separate rows (increasing, or else malloc gave them in decreasing order), one shared
    # buffer, overlapping rows, the same rows used over disjoint columns, decreasing rows,
    # no rows, a single row
    assert run(exe).split() == ["1", "0", "0", "1", "0", "0", "1"]


def test_cuda_keeps_row_loops_on_the_host_and_computes_the_same(tmp_path):
    loops = loops_by_function(PROGRAM, "cuda")
    assert not any(e["parallelized"] for name in ("smooth_rows", "scale_rows", "prefix_rows") for e in loops[name])
    output = same_results(PROGRAM, tmp_path)
    assert "static int lift_rows_" not in output and "lift_rows_double(" not in output
