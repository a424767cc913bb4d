"""Sweeps (strips.sink_sweeps): a parallel loop around a recurrence along each of its rows is cut
into strips with the recurrence inside them, so the strip's rows advance together; refused where
a scalar privatized per row ties the rows' steps. Programs of our own, odd sizes, run against the
original at 1, 2 and 8 threads."""
from pathlib import Path

import pytest

from lifter import LiftOptions, lift_source
from tests.harness import have_gcc, kernel_function, prepare, write_program

MAIN = """
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) { A[i][j] = 1.0 + (i * 7 + j * 3) % 11; P[i][j] = 0.5; Q[i][j] = (i + j) % 3; }
  kernel(N, M, 5);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) s += (P[i][j] + Q[i][j]) * (1 + (i * M + j) % 7);
  printf("PQ: %.10e\\n", s);
  return 0;
}
"""

HEAD = """#include <stdio.h>
#define N 83
#define M 41
static double A[N][M], P[N][M], Q[N][M];
"""

# adi's sweeps: inside a time loop, a forward chain of divisions along each row, then a backward
# one; the rows' first and last elements set around them (distributed away from the sweeps).
SWEEPS = HEAD + """static void kernel(int n, int m, int steps) {
  for (int t = 0; t < steps; t++)
    for (int i = 1; i < n - 1; i++) {
      P[i][0] = 0.25;
      for (int j = 1; j < m; j++) {
        P[i][j] = -0.5 / (0.75 * P[i][j - 1] + 2.0);
        Q[i][j] = (A[i][j] + A[i - 1][j] - Q[i][j - 1]) / (0.75 * P[i][j - 1] + 2.0);
      }
      Q[i][m - 1] = 1.0;
      for (int j = m - 2; j >= 0; j--)
        Q[i][j] = P[i][j] * Q[i][j + 1] + Q[i][j];
    }
}
""" + MAIN

# A running value per row in a scalar: each row's steps share `s`, privatized per row, so the
# rows cannot advance together; the nest stays as it was.
SCALAR = HEAD + """static void kernel(int n, int m, int steps) {
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < m; j++) {
      s = 0.5 * s + A[i][j] / (s + 3.0);
      P[i][j] = s;
    }
  }
}
""" + MAIN


def _kernel(text: str) -> str:
    return kernel_function(lift_source(text, "s.c", LiftOptions(min_parallel_work=0)).output)


def test_sweeps_run_inside_strips_of_rows():
    body = _kernel(SWEEPS)
    lines = [line.strip() for line in body.splitlines()]
    strips = [k for k, line in enumerate(lines) if line.startswith("for (long i_t")]
    assert len(strips) == 2  # the forward and the backward sweep
    for k in strips:
        assert lines[k - 1].startswith("#pragma omp for") or lines[k - 1].startswith("#pragma omp parallel for")
        assert lines[k + 1].startswith("for (int j = ")
        assert lines[k + 2].startswith("for (int i = i_t")


def test_rows_tied_by_a_private_scalar_keep_their_loop_order():
    body = _kernel(SCALAR)
    assert "i_t" not in body
    assert body.index("for (int i = ") < body.index("for (int j = ")


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@pytest.mark.parametrize("name, text, sizes", [("sweeps", SWEEPS, ()), ("sweeps_narrow", SWEEPS, (5,)),
                                               ("scalar", SCALAR, ())])
def test_sunk_sweeps_compute_the_same(tmp_path: Path, name: str, text: str, sizes):
    diff = prepare(write_program(tmp_path, name, text), tmp_path, tile_sizes=sizes)
    for threads in (1, 2, 8):
        diff.check(threads)
