"""Flat grids with ghost cells: `u[i*(n + 2) + j]`, the stride a sum of sizes and constants.

Stencil codes pad each row with halo cells, so the row stride is `n + 2` (or a `const int ld =
n + 2;`, or a macro `IDX(i, j)`). Delinearization (analysis/delinearize.py) reads such a sum as
one size whose extent is the expression itself, so `0 <= j < n + 2` is proved from the domain
and the grid is a 2-D (or 3-D) array; where a subscript can leave its row (`j <= n + 2`) the
access stays "any element" and the loop keeps its order."""
from __future__ import annotations

import pytest

from tests.harness import have_gcc, loops_by_function, prepare

PROGRAM = """#include <stdio.h>
#include <stdlib.h>
#ifndef N
#define N 40
#endif
#define IDX(i, j) ((i) * (n + 2) + (j))

static void halo(const double *u, double *v, int n)
{
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            v[i * (n + 2) + j] = 0.25 * (u[(i - 1) * (n + 2) + j] + u[(i + 1) * (n + 2) + j]
                                       + u[i * (n + 2) + j - 1] + u[i * (n + 2) + j + 1]);
}

static void leading(const double *u, double *v, int n)
{
    const int ld = n + 2;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            v[i * ld + j] += 0.5 * (u[i * ld + j - 1] - u[i * ld + j + 1]);
}

static void macro(double *v, int n)
{
    for (int i = 0; i < n + 2; i++)
        for (int j = 0; j < n + 2; j++)
            v[IDX(i, j)] = 0.5 * v[IDX(i, j)] + (i % 3) - (j % 5);
}

static void box(double *w, int nx, int ny, int nz)
{
    for (int i = 1; i <= nz; i++)
        for (int j = 1; j <= ny; j++)
            for (int k = 1; k <= nx; k++)
                w[(i * (ny + 2) + j) * (nx + 2) + k] += w[((i - 1) * (ny + 2) + j) * (nx + 2) + k] * 0.5;
}

static void spill(double *v, int n)
{
    /* j reaches n + 2: that element is the first of the next row, which the next i writes too */
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= n + 2; j++)
            v[i * (n + 2) + j] = v[i * (n + 2) + j] * 0.5 + i + j;
}

int main(void)
{
    int n = N, m = (N + 2) * (N + 2);
    double *u = malloc(sizeof(double) * m), *v = malloc(sizeof(double) * m);
    double *w = malloc(sizeof(double) * (N / 2 + 2) * (N + 2) * (N + 3));
    for (int k = 0; k < m; k++) {
        u[k] = (double)(k % 11) / 4.0;
        v[k] = (double)(k % 7) / 8.0;
    }
    for (int k = 0; k < (N / 2 + 2) * (N + 2) * (N + 3); k++)
        w[k] = (double)(k % 13) / 16.0;
    halo(u, v, n);
    leading(v, u, n);
    macro(v, n);
    box(w, n + 1, n, n / 2);
    spill(u, n);
    double s = 0.0;
    for (int k = 0; k < m; k++)
        s += u[k] * (1 + k % 5) + v[k] * (1 + k % 3);
    for (int k = 0; k < (N / 2 + 2) * (N + 2) * (N + 3); k++)
        s += w[k] * (1 + k % 7);
    printf("s: %.10e\\n", s);
    free(u);
    free(v);
    free(w);
    return 0;
}
"""


def _outer(loops, function):
    return next(e for e in loops[function] if e["depth"] == 0)


def test_padded_strides_are_delinearized():
    loops = loops_by_function(PROGRAM)
    for function in ("halo", "leading", "macro"):
        assert _outer(loops, function)["parallelized"], (function, _outer(loops, function))
    # box: i carries the dependence on the plane before; j runs in parallel inside it
    assert [e["var"] for e in loops["box"] if e["parallelized"]] == ["j"], loops["box"]


def test_a_subscript_that_leaves_its_padded_row_keeps_the_loop_in_order():
    loops = loops_by_function(PROGRAM)
    i, j = loops["spill"]
    assert not i["parallel"] and "dependence on v" in i["reason"], i
    # within one row the elements are distinct, the last the next row's first (read in pieces,
    # flat_buffers._carried: reach17)
    assert j["parallelized"] and j["condition"] == "n >= 1", j


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@pytest.mark.parametrize("size", [3, 40])
def test_padded_grids_match_the_original(tmp_path, size):
    source = tmp_path / "padded.c"
    source.write_text(PROGRAM)
    diff = prepare(source, tmp_path, defines=[f"N={size}"])
    for threads in (1, 2, 8):
        diff.check(threads)
