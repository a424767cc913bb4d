"""Diagonal wavefronts (diagonal.py): two-loop nests whose dependences all move forward along one
diagonal run diagonal by diagonal, the cells of each in parallel; refused where a dependence stays
on every diagonal or goes back. Programs of our own, odd sizes, differential at 1, 2 and 8 threads."""
from pathlib import Path

import pytest

from lifter import LiftOptions, lift_source
from tests.harness import have_gcc, kernel_function, prepare, write_program

MAIN = """
int main(void) {
  for (int i = 0; i < N; i++) {
    s[i] = (7 * i + 3) % 4;
    for (int j = 0; j < N; j++) T[i][j] = (i * 5 + j * 3) % 11 - 5;
  }
  kernel(N);
  long sum = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) sum += (long)T[i][j] * (1 + (i * N + j) % 7);
  printf("T: %ld\\n", sum);
  return 0;
}
"""

HEAD = """#include <stdio.h>
#define N 37
static int s[N], T[N][N];
static int best(int a, int b) { return a > b ? a : b; }
"""

# Nussinov's shape: the row runs down, the column up from the diagonal, `if`s around statements
# (the nest's statements cannot be cut apart: its body is kept as written) and an inner loop.
RNA = HEAD + """static void kernel(int n) {
  int i, j, k;
  for (i = n - 1; i >= 0; i--)
    for (j = i + 1; j < n; j++) {
      if (j - 1 >= 0)
        T[i][j] = best(T[i][j], T[i][j - 1]);
      if (i + 1 < n)
        T[i][j] = best(T[i][j], T[i + 1][j]);
      if (j - 1 >= 0 && i + 1 < n) {
        if (i < j - 1)
          T[i][j] = best(T[i][j], T[i + 1][j - 1] + (s[i] + s[j] == 3));
        else
          T[i][j] = best(T[i][j], T[i + 1][j - 1]);
      }
      for (k = i + 1; k < j; k++)
        T[i][j] = best(T[i][j], T[i][k] + T[k + 1][j]);
    }
}
""" + MAIN

# A sweep from the top-left corner, rectangular, its statements guarded: diagonals i + j = w.
SWEEP = HEAD + """static void kernel(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n - 2; j++) {
      if (j > 0)
        T[i][j] = best(T[i][j], T[i][j - 1] - 1);
      if (i > 0)
        T[i][j] = (T[i][j] + T[i - 1][j]) % 1000;
    }
}
""" + MAIN

# Distances (1, -1), (0, 1) and (1, 1): one of them stays on or goes back along every diagonal.
KNOT = HEAD + """static void kernel(int n) {
  for (int i = 1; i < n; i++)
    for (int j = 1; j < n - 1; j++) {
      if (j > 1)
        T[i][j] = best(T[i][j], T[i][j - 1] - 2);
      if (i > 1)
        T[i][j] = (T[i][j] + T[i - 1][j + 1] + T[i - 1][j - 1]) % 1000;
    }
}
""" + MAIN

# A `continue` in the body ends the cell, as it ended the iteration of the row; a `break` (which
# would end only the one-cell loop of a diagonal) leaves the loop unmodelled, and the nest as it is.
CONTINUE = RNA.replace("      for (k = i + 1; k < j; k++)", "      if (T[i][j] > 40)\n        continue;\n      for (k = i + 1; k < j; k++)")
BREAK = CONTINUE.replace("continue;", "break;")


def _kernel(text: str) -> str:
    return kernel_function(lift_source(text, "d.c", LiftOptions(min_parallel_work=0)).output)


@pytest.mark.parametrize("text, cell", [(RNA, "j = w + i; j <= w + i; j++"), (SWEEP, "j = w - i; j <= w - i; j++")])
def test_cells_of_a_diagonal_run_in_parallel(text: str, cell: str):
    body = _kernel(text)
    lines = body.splitlines()
    region = next(k for k, line in enumerate(lines) if "#pragma omp parallel " in line)
    assert "for (long w = " in lines[region + 1]
    assert "#pragma omp for" in lines[region + 2] and "i = " in lines[region + 3]
    assert cell in lines[region + 4]


def test_a_dependence_on_every_diagonal_is_refused():
    assert "#pragma omp" not in _kernel(KNOT) and "long w" not in _kernel(KNOT)


def test_a_continue_ends_the_cell_and_a_break_keeps_the_nest():
    assert "long w" in _kernel(CONTINUE)
    assert "break;" in BREAK and "long w" not in _kernel(BREAK)


def test_the_work_decides_whether_the_diagonals_run_in_parallel():
    guarded = kernel_function(lift_source(RNA, "d.c", LiftOptions()).output)
    assert guarded.index("> 40000L && lift_team_worth(") < guarded.index("#pragma omp parallel")
    constant = RNA.replace("kernel(int n)", "kernel(int unused)").replace("< n", "< N").replace("n - 1", "N - 1")
    assert "long w" not in kernel_function(lift_source(constant, "d.c", LiftOptions()).output)


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@pytest.mark.parametrize("name, text", [("rna", RNA), ("sweep", SWEEP), ("knot", KNOT), ("continue", CONTINUE),
                                        ("break", BREAK)])
def test_diagonal_wavefronts_compute_the_same(tmp_path: Path, name: str, text: str):
    diff = prepare(write_program(tmp_path, name, text), tmp_path)
    for threads in (1, 2, 8):
        diff.check(threads)
