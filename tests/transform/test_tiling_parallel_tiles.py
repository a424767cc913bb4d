"""Tiled bands whose outermost loop carries a dependence: the first tile loop whose point loop is
parallel at the band's start runs outermost, in one parallel region (trmm's `j_t` above `i_t, k_t`),
and stays in place where a dependence joins two of its tiles. Differential at 1, 2 and 8 threads,
with odd sizes and tile sizes that divide none of them."""
from pathlib import Path

import pytest

from lifter import LiftOptions, lift_source
from tests.harness import have_gcc, kernel_function, prepare, write_program

MAIN = """
int main(void) {
  for (int i = 0; i < R; i++)
    for (int j = 0; j < S; j++) { A[i][j] = (i + 2 * j) % 9 - 4; B[j][i] = (i - j) % 7; C[i][j] = (3 * i + j) % 5; }
  kernel(R, S);
  double s = 0;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < S; j++) s += C[i][j] * (1 + (i * S + j) % 7);
  printf("C: %.10e\\n", s);
  return 0;
}
"""

# trmm's shape: C = A^T C in place, A unit lower triangular; `i` and `k` carry, `j` does not.
TRMM = """#include <stdio.h>
#define R 23
#define S 31
static double A[R][S], B[S][R], C[R][S];
static void kernel(int m, int n) {
  int i, j, k;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i + 1; k < m; k++)
        C[i][j] += A[k][i] * C[k][j];
      C[i][j] = 1.5 * C[i][j];
    }
}
""" + MAIN

# Each column a recurrence down its rows (distance (1, 0)): the column tiles are independent.
COLUMNS = """#include <stdio.h>
#define R 37
#define S 29
static double A[R][S], B[S][R], C[R][S];
static void kernel(int n, int m) {
  for (int i = 1; i < n; i++)
    for (int j = 1; j < m; j++)
      C[i][j] = 0.5 * C[i - 1][j] + B[j][i];
}
""" + MAIN

# The same along the diagonal (distance (1, 1)): `j` is parallel only at fixed `i`; a dependence
# joins neighbouring column tiles, so the band keeps its order and runs on one thread.
DIAGONAL = COLUMNS.replace("C[i - 1][j]", "C[i - 1][j - 1]")


@pytest.mark.parametrize("text, sizes", [(TRMM, (3, 5, 7)), (COLUMNS, (4, 5))])
def test_the_parallel_tile_loop_runs_outermost(text: str, sizes):
    result = lift_source(text, "t.c", LiftOptions(tile_sizes=sizes, min_parallel_work=0))
    body = kernel_function(result.output)
    lines = body.splitlines()
    pragma = next(k for k, line in enumerate(lines) if "#pragma omp parallel for" in line)
    assert "j_t = " in lines[pragma + 1]  # the band's first loop, where it was sequential
    assert body.index("j_t = ") < body.index("i_t = ")


def test_a_dependence_between_column_tiles_keeps_the_band_order():
    result = lift_source(DIAGONAL, "d.c", LiftOptions(tile_sizes=(4, 5), min_parallel_work=0))
    body = kernel_function(result.output)
    assert body.index("i_t = ") < body.index("j_t = ")
    assert "#pragma omp" not in body[:body.index("i_t = ")]


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@pytest.mark.parametrize("name, text, sizes", [("trmm", TRMM, (3, 5, 7)), ("trmm_one", TRMM, (4,)),
                                               ("columns", COLUMNS, (4, 5)), ("diagonal", DIAGONAL, (4, 5))])
def test_reordered_tiles_compute_the_same(tmp_path: Path, name: str, text: str, sizes):
    diff = prepare(write_program(tmp_path, name, text), tmp_path, tile_sizes=sizes)
    assert "_t +=" in diff.lifted.read_text()
    for threads in (1, 2, 8):
        diff.check(threads)
