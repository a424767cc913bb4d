"""Call summaries with spans (analysis/call_spans.py): a file-local function that touches
`p[0] .. p[m-1]` through a pointer parameter, called on row i (`&a[i*m]`, `a + i*m`),
touches row i only, so the loop over rows is parallel. Negative cases: the callee touches
`p[-1]` or `p[m]` (a neighbouring row), or its range cannot be bounded; those loops stay
sequential and the program prints exactly what the original prints."""
from __future__ import annotations

import shutil

import pytest
from pycparser import c_parser

from lifter.analysis.symbols import SymbolTable, Typedefs
from tests.harness import check_program, have_gcc, loops_by_function

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

HELPERS = r"""
static void row_update(double *p, int m) { for (int j = 0; j < m; j++) p[j] = p[j] * 0.5 + j; }
static void row_left(double *p, int m) { for (int j = 0; j < m; j++) p[j - 1] += p[j]; }
static void row_over(double *p, int m) { for (int j = 0; j <= m; j++) p[j] = p[j] + 1.0; }
static void scale(double *p, const double *q, int m, double s)
{
    int j;
    for (j = 0; j < m; j++) {
        if (q[j] > 0.5)
            p[j] = s * q[j];
        *p += 1.0;
    }
}
static void squares(double *p, int m) { for (int j = 0; j < m; j++) p[j * j % m] = 1.0; }
static void nested(double *p, int m) { row_update(p, m); }
static void shadow(double *p, int m)
{
    for (int j = 0; j < m; j++)
        for (int j = 0; j < 2; j++)
            p[j] = 0.0;
}
"""


def _spans(text):
    ast = c_parser.CParser().parse(text)
    return {k: tuple((pos, cond) for pos, cond, element in v.spans)
            for k, v in SymbolTable(ast, Typedefs(ast)).call_effects.items()}


def test_spans_are_affine_conditions_over_the_callees_integer_parameters():
    s = _spans(HELPERS)
    assert s["row_update"] == ((0, "(exists (q_j: 0 <= q_j < arg1 and OFFSET = q_j))"),)
    assert s["row_left"] == ((0, "(exists (q_j: 0 <= q_j < arg1 and OFFSET = (q_j) - (1))) or "
                                 "(exists (q_j: 0 <= q_j < arg1 and OFFSET = q_j))"),)
    assert s["row_over"] == ((0, "(exists (q_j: 0 <= q_j <= arg1 and OFFSET = q_j))"),)
    assert s["scale"] == ((0, "(exists (q_j: 0 <= q_j < arg2 and OFFSET = 0)) or "
                              "(exists (q_j: 0 <= q_j < arg2 and OFFSET = q_j))"),
                          (1, "(exists (q_j: 0 <= q_j < arg2 and OFFSET = q_j))"))
    # not affine; passed on to another function; inside a loop that reuses a loop's name
    assert s["squares"] == s["nested"] == s["shadow"] == ()


PROGRAM = HELPERS + r"""
#include <stdio.h>
#include <stdlib.h>

void all_rows(int n, int m, double *a) { for (int i = 0; i < n; i++) row_update(&a[i * m], m); }
void all_rows_plus(int n, int m, double *a) { for (int i = 0; i < n; i++) row_update(a + i * m, m); }
void scale_rows(int n, int m, double *restrict a, const double *restrict b)
{
    for (int i = 0; i < n; i++)
        scale(&a[i * m], &b[i * m], m, 2.0);
}
/* Rows of a double **: each call touches its own row's span (under the run-time rows test). */
void pointer_rows(int n, int m, double **r) { for (int i = 0; i < n; i++) row_update(r[i], m); }
void pointer_rows_shifted(int n, int m, double **r) { for (int i = 0; i < n; i++) row_left(r[i] + 1, m); }

/* NEGATIVE: each call also writes the last element of the row before. */
void left_rows(int n, int m, double *a) { for (int i = 1; i < n; i++) row_left(&a[i * m], m); }
/* NEGATIVE: each call also writes the first element of the next row. */
void over_rows(int n, int m, double *a) { for (int i = 0; i < n - 1; i++) row_over(&a[i * m], m); }
/* NEGATIVE: the callee's offsets count doubles, the caller's chars: rows of m chars get m doubles. */
void char_rows(int n, int m, char *c) { for (int i = 0; i < n; i++) row_update((double *)&c[i * m], m); }
/* NEGATIVE: no span (any element of the row's block). */
void square_rows(int n, int m, double *a) { for (int i = 0; i < n; i++) squares(&a[i * m], m); }

int main(void)
{
    int n = 30, m = 20;
    double s = 0;
    double *a = malloc(n * m * sizeof(double)), *b = malloc(n * m * sizeof(double));
    for (int k = 0; k < n * m; k++) { a[k] = k % 7; b[k] = (k % 3) * 0.4; }
    all_rows(n, m, a);
    all_rows_plus(n, m, a);
    scale_rows(n, m, a, b);
    left_rows(n, m, a);
    over_rows(n, m, a);
    square_rows(n, m, b);
    double **r = malloc(n * sizeof(double *)), **o = malloc(n * sizeof(double *));
    for (int i = 0; i < n; i++) {
        r[i] = malloc((m + 1) * sizeof(double));
        o[i] = b + i;  /* rows overlapping their neighbours */
        for (int j = 0; j <= m; j++)
            r[i][j] = (i + 2 * j) % 9;
    }
    pointer_rows(n, m, r);
    pointer_rows(n, m, o);
    pointer_rows_shifted(n, m, r);
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= m; j++)
            a[i * m + j % m] += r[i][j] * (j % 4);
    char *c = calloc(n * m * sizeof(double), 1);
    char_rows(n / 8, m, c);
    for (int k = 0; k < n * m; k++) s += c[k] * (k % 3);
    nested(a, 2);
    shadow(b, 3);
    for (int k = 0; k < n * m; k++) s += a[k] * (k % 5) + b[k] * (k % 3);
    printf("%.17g\n", s);
    return 0;
}
"""


def test_per_row_calls_are_parallel():
    loops = loops_by_function(PROGRAM)
    for name in ("all_rows", "all_rows_plus", "scale_rows", "pointer_rows"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    assert "lift_rows_double(" in loops["pointer_rows"][0]["condition"]


def test_calls_touching_neighbouring_rows_stay_sequential():
    loops = loops_by_function(PROGRAM)
    for name in ("left_rows", "over_rows", "square_rows", "char_rows"):
        assert not loops[name][0]["parallel"], name


@needs_gcc
@pytest.mark.parametrize("threads", [1, 2, 8])
def test_program_gives_identical_results(tmp_path, threads):
    check_program(PROGRAM, "spans.c", tmp_path, threads)


@needs_gcc
def test_cuda_output_computes_the_same(tmp_path):
    from tests.backend.test_cuda import CXX, same_results

    if shutil.which(CXX) is None:
        pytest.skip("needs g++ (emulated CUDA)")
    output = same_results(PROGRAM, tmp_path)
    assert "void kernel_all_rows_i" in output and "void kernel_left_rows_i" not in output
