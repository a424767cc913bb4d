"""Parallel strips: a parallel innermost loop under a loop that only reduces into its elements
(LU's row update) or carries a dependence along each element (adi's column sweep), inside one
sequential loop, runs as parallel strips whose loop goes above it."""
from __future__ import annotations

import pytest

from lifter import LiftOptions, lift_source
from tests.harness import have_gcc, prepare

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

PROGRAM = """#include <stdio.h>
#ifndef N
#define N 70
#endif
static double A[N][N], B[N][N], R[N][N];

static void lu(int n, double a[n][n])
{
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        a[i][j] -= a[i][k] * a[k][j];
      a[i][j] /= a[j][j];
    }
    for (int j = i; j < n; j++)
      for (int k = 0; k < i; k++)
        a[i][j] -= a[i][k] * a[k][j];
  }
}

static void shifted(int n, double b[n][n], double r[n][n])
{
  /* r's row t is a sum over k of rows of b: k only reduces into r[t][j] */
  for (int t = 1; t < n; t++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        r[t][j] += b[k][j] * (double)((t + k) % 3) + r[t - 1][j] * 0.25;
}

static void under_parallel(int n, double r[n][n])
{
  /* i is parallel: strips of j inside it would not run in parallel, nothing changes */
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        r[i][j] = r[i][j] * 0.5 + (double)k;
}

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = i == j ? N : (double)((i + 2 * j) % 5) / 5.0;
      B[i][j] = (double)((i * j + 1) % 9) / 9.0;
    }
  lu(N, A);
  shifted(N, B, R);
  under_parallel(N, R);
  double s = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += (A[i][j] + B[i][j] + R[i][j]) * (1 + (i * N + j) % 7);
  printf("s: %.10e\\n", s);
  return 0;
}
"""


def _loops(text: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for e in lift_source(text, "strips.c", LiftOptions(min_parallel_work=0, tile_sizes=(16,))).loops:
        out.setdefault(e["function"], []).append(e)
    return out


def test_strips_parallelize_the_inner_loop_once_per_outer_iteration():
    loops = _loops(PROGRAM)
    update = next(e for e in loops["lu"] if e["line"] == 15)
    assert update["parallelized"] and "tiling" in update["transformations"], update
    inner = next(e for e in loops["shifted"] if e["var"] == "j")
    assert inner["parallelized"] and "tiling" in inner["transformations"], inner
    assert not any("tiling" in e["transformations"] for e in loops["under_parallel"])


def test_strip_loop_goes_above_the_sequential_loop():
    out = lift_source(PROGRAM, "strips.c", LiftOptions(min_parallel_work=0, tile_sizes=(16,))).output
    body = out[out.index("static void lu"):out.index("static void shifted")]
    lines = [line.strip() for line in body.splitlines()]
    strip = lines.index("for (long j_t = i; j_t < n; j_t += 16) {")
    assert lines[strip - 1].startswith("#pragma omp") and " for " in f" {lines[strip - 1]} ", lines[strip - 1]
    assert lines[strip + 1].startswith("for (int k = 0; k < i;"), "the sequential loop runs inside each strip"
    assert any(line.startswith("for (int j = j_t;") for line in lines[strip + 2:strip + 4])


@needs_gcc
@pytest.mark.parametrize("size", [5, 70])
def test_strips_match_the_original(tmp_path, size):
    source = tmp_path / "strips.c"
    source.write_text(PROGRAM)
    diff = prepare(source, tmp_path, defines=[f"N={size}"], tile_sizes=(16,))
    assert "j_t" in diff.lifted.read_text()
    for threads in (1, 2, 8):
        diff.check(threads)


SWEEPS = """#include <stdio.h>
#ifndef N
#define N 70
#endif
static double V[N][N], W[N][N], P[N][N], Q[N][N];

static void column_sweep(int tsteps, int n, double v[n][n], double p[n][n], double q[n][n])
{
  /* adi's back substitution: j carries v[j + 1][i] -> v[j][i], i is parallel; after the
     interchange that makes i unit-stride, the strips of i go above j */
  int t, i, j;
  for (t = 0; t < tsteps; t++)
    for (i = 1; i < n - 1; i++)
      for (j = n - 2; j >= 1; j--)
        v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
}

static void diagonal_sweep(int tsteps, int n, double w[n][n], double p[n][n])
{
  /* w[j + 1][i - 1] -> w[j][i]: a strip of i reads its left neighbour's column, so the
     strips are not independent: i stays inside j (parallel there, for each j) */
  int t, i, j;
  for (t = 0; t < tsteps; t++)
    for (j = n - 2; j >= 1; j--)
      for (i = 1; i < n - 1; i++)
        w[j][i] = p[i][j] * w[j + 1][i - 1] + 0.5;
}

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      V[i][j] = W[i][j] = 1.0 / (i + j + 1);
      P[i][j] = (double)((i * j + 1) % 9) / 18.0;
      Q[i][j] = (double)((i + 2 * j) % 5) / 5.0;
    }
  column_sweep(3, N, V, P, Q);
  diagonal_sweep(3, N, W, P);
  double s = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += (V[i][j] + 2.0 * W[i][j]) * (1 + (i * N + j) % 7);
  printf("s: %.10e\\n", s);
  return 0;
}
"""


def test_strips_go_above_a_loop_that_carries_a_dependence_along_the_strips_only():
    loops = _loops(SWEEPS)
    strips = next(e for e in loops["column_sweep"] if e["var"] == "i")
    assert strips["parallelized"] and "tiling" in strips["transformations"], strips
    assert not any("tiling" in e["transformations"] for e in loops["diagonal_sweep"]), loops["diagonal_sweep"]
    out = lift_source(SWEEPS, "sweeps.c", LiftOptions(min_parallel_work=0, tile_sizes=(16,))).output
    body = [line.strip() for line in out[out.index("static void column_sweep"):out.index("static void diagonal")].splitlines()]
    strip = next(k for k, line in enumerate(body) if line.startswith("for (__typeof__(i + 0L) i_t"))
    assert body[strip - 1].startswith("#pragma omp") and " for " in body[strip - 1], body[strip - 1]
    assert body[strip + 1] == "for (j = n - 2; j >= 1; j--) {", "the sweep runs inside each strip"


@needs_gcc
@pytest.mark.parametrize("size", [5, 70])
def test_sweep_strips_match_the_original(tmp_path, size):
    source = tmp_path / "sweeps.c"
    source.write_text(SWEEPS)
    diff = prepare(source, tmp_path, defines=[f"N={size}"], tile_sizes=(16,))
    for threads in (1, 2, 8):
        diff.check(threads)
