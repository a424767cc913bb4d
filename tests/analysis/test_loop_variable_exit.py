"""An inner loop's variable read outside that loop, in the nest (found by scripts/fuzz.py
mutants: `C[i][k] *= beta` moved above syrk's k loop). The model has no statement for a loop
header, so the value the header leaves in `k` reached the read unseen, and the outer loop ran
in parallel with `private(k)`: every thread read an uninitialized `k`."""
from __future__ import annotations

import pytest

from tests.harness import have_gcc, loops_by_function, prepare

PROGRAM = """#include <stdio.h>
#ifndef N
#define N 60
#endif
static double C[N][N], D[N], E[N];

static void before(int n)
{
  /* D[i] reads the k the loop of the iteration before left: i must stay in order */
  int i, k = 0;
  for (i = 1; i < n - 1; i++) {
    D[i] += k;
    for (k = 0; k < i / 2; k++)
      C[i][k] += 1.0;
  }
}

static void after(int n)
{
  /* D[i] reads the k this iteration's loop left: private to each iteration */
  int i, k;
  for (i = 1; i < n - 1; i++) {
    for (k = 0; k < i / 2; k++)
      C[i][k] += 2.0;
    D[i] += k;
  }
}

static void outside(int n)
{
  /* E[t] reads the k the last i left: i keeps its order, t may not run in parallel either,
     as the i loop could run no iteration and leave the k of the t before */
  int t, i, k = 0;
  for (t = 0; t < 3; t++) {
    for (i = 1; i < n - 1; i++)
      for (k = 0; k < i / 2 + t; k++)
        C[i][k] *= 0.5;
    E[t] = k;
  }
}

static void reordered(int n, double beta)
{
  /* syrk moved a step (fuzz.py mutants): C[k][j] reads the k the loop below left in the
     iteration of i before; distributing i, or interchanging k and j, would change that k */
  int i, j, k = 0;
  for (i = 1; i < n - 1; i++) {
    for (j = 1; j < i; j++)
      C[k][j] *= beta;
    for (k = 1; k < n - 1; k++)
      for (j = 1; j < i; j++)
        C[i][j] += 0.5 * C[k][j] * D[k];
  }
}

int main(void)
{
  for (int i = 0; i < N; i++) {
    D[i] = (double)(i % 5) / 8.0;
    for (int j = 0; j < N; j++)
      C[i][j] = (double)((i + 2 * j) % 7) / 8.0;
  }
  reordered(N, 0.5);
  before(N);
  after(N);
  outside(N);
  double s = 0.0;
  for (int i = 0; i < N; i++) {
    s += D[i] * (1 + i % 7) + E[i];
    for (int j = 0; j < N; j++)
      s += C[i][j] * (1 + (i * N + j) % 5);
  }
  printf("s: %.10e\\n", s);
  return 0;
}
"""


def _outer(loops, function):
    return next(e for e in loops[function] if e["depth"] == 0)


def test_a_read_before_the_inner_loop_keeps_the_outer_loop_in_order():
    loops = loops_by_function(PROGRAM)
    before = _outer(loops, "before")
    assert not before["parallelized"] and before["reason_code"] == "live-after", before
    assert "'k' is read at line 12 before the loop at line 13" in before["reason"], before["reason"]
    assert _outer(loops, "after")["parallelized"], "a read after the inner loop, in the same iteration"
    outside = loops["outside"]
    assert not any(e["parallelized"] and e["var"] in ("t", "i") for e in outside), outside


def test_a_nest_that_reads_a_loop_variable_outside_its_loop_keeps_its_order():
    loops = loops_by_function(PROGRAM)
    assert all(set(e["transformations"]) <= {"simd"} for e in loops["reordered"]), loops["reordered"]


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@pytest.mark.parametrize("size", [4, 60])
def test_loop_variables_read_outside_their_loops_match_the_original(tmp_path, size):
    source = tmp_path / "exit.c"
    source.write_text(PROGRAM)
    diff = prepare(source, tmp_path, defines=[f"N={size}"])
    for threads in (1, 2, 8):
        diff.check(threads)
