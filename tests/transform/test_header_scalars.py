"""Loop headers that read a scalar the nest sets (found by scripts/fuzz.py mutants' scalar
bounds: `m = nk - 2; for (k = 1; k <= m; k++)` inside gemm's j loop).

The analysis reads the header as the value assigned before it (index_scalars.py), so the model
is exact for the nest as written, but the header's text still names `m`. Distributed away from
the assignment, the header read a private copy's garbage (the 3-matrix product's tiled k loop
ran `k_t <= m` after the loop that set `m`); interchanged, it read the value another iteration
left. Such a nest keeps its order (`legality.reorder_guard`); its loops may still run in
parallel where the assignment and the header stay in one iteration."""
from __future__ import annotations

import pytest

from tests.harness import have_gcc, loops_by_function, prepare

PROGRAM = """#include <stdio.h>
#ifndef N
#define N 24
#endif
static double A[N][N], B[N][N], C[N][N], D[N][N], E[N][N];

static void product(int n)
{
    int i, j, k, m = 0;
    for (i = 1; i < n - 1; i++)
        for (j = 1; j < n - 1; j++) {
            E[i][j] = 0.0;
            m = n - 2;
            for (k = 1; k <= m; k++)
                E[i][j] += A[i][k] * B[k][j];
        }
}

static void varying(int n)
{
    int i, j, k, m = 0;
    for (i = 1; i < n - 1; i++)
        for (j = 1; j < n - 1; j++) {
            D[i][j] *= 0.5;
            m = n - 2 - j % 2;
            for (k = 1; k <= m; k++)
                D[i][j] += E[i][k] * C[k][j];
        }
}

static void triangle(int n)
{
    int i, j, k, m = 0;
    for (i = 1; i < n - 1; i++) {
        m = i - 1 - i % 2;
        for (j = 1; j <= m; j++)
            C[i][j] *= 0.75;
        for (k = 1; k < n - 1; k++)
            for (j = 1; j < i; j++)
                C[i][j] += A[j][k] * B[i][k] + B[j][k] * A[i][k];
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = (double)((i * j + 1) % 7) / 8.0;
            B[i][j] = (double)((i + 3 * j) % 5) / 4.0;
            C[i][j] = (double)((2 * i + j) % 9) / 16.0;
            D[i][j] = (double)((i + j) % 3) / 2.0;
        }
    product(N);
    varying(N);
    triangle(N);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += (C[i][j] + 2 * D[i][j] + 3 * E[i][j]) * (1 + (i * N + j) % 5);
    printf("s: %.10e\\n", s);
    return 0;
}
"""


def test_nests_whose_headers_read_a_scalar_they_set_are_not_reordered():
    loops = loops_by_function(PROGRAM)
    for function in ("product", "varying", "triangle"):
        for entry in loops[function]:
            assert set(entry["transformations"]) <= {"simd"}, (function, entry)
    assert any(e["parallelized"] for e in loops["product"]), loops["product"]


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@pytest.mark.parametrize("tiles", [(), (4, 4, 4)])
def test_header_scalars_match_the_original(tmp_path, tiles):
    source = tmp_path / "headers.c"
    source.write_text(PROGRAM)
    diff = prepare(source, tmp_path, tile_sizes=tiles)
    for threads in (1, 2, 8):
        diff.check(threads)
