"""Pragmas before a loop: markers (`#pragma scop`, unknown ones) leave the loop to the analysis and stay
byte for byte in the output; compiler loop pragmas keep their loop as written; `omp`/`acc` take the loop."""
from __future__ import annotations

import pytest

from lifter.analysis.pragmas import PragmaRole, pragma_role
from tests.harness import have_gcc, loops_by_function, prepare

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="needs gcc")


@pytest.mark.parametrize("text, role", [
    ("scop", PragmaRole.MARKER), ("endscop", PragmaRole.MARKER), ("foo bar(3)", PragmaRole.MARKER),
    ("GCC optimize(\"O3\")", PragmaRole.MARKER), ("STDC FP_CONTRACT ON", PragmaRole.MARKER),
    ("GCC ivdep", PragmaRole.BOUND), ("GCC unroll 4", PragmaRole.BOUND), ("unroll", PragmaRole.BOUND),
    ("unroll(4)", PragmaRole.BOUND), ("clang loop vectorize(enable)", PragmaRole.BOUND),
    ("omp parallel for", PragmaRole.TAKEN), ("acc kernels", PragmaRole.TAKEN), ("cilk grainsize = 4", PragmaRole.TAKEN),
])
def test_pragma_roles(text, role):
    assert pragma_role(text) is role


SCOP = """#include <stdio.h>
#ifndef N
#define N 90
#endif
static double a[N][N], b[N][N], c[N][N];

static void kernel(int n, double x[n][n], double y[n][n], double z[n][n])
{
  int i, j;
#pragma scop
  for (i = 1; i < n - 1; i++)
    for (j = 1; j < n - 1; j++)
      y[i][j] = 0.25 * (x[i-1][j] + x[i+1][j] + x[i][j-1] + x[i][j+1]);
  for (i = 1; i < n - 1; i++)
    for (j = 1; j < n - 1; j++)
      z[i][j] = y[i][j] * 2.0 + x[i][j];
#pragma endscop
#pragma foo bar
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x[i][j] = z[i][j] - y[i][j];
#pragma GCC unroll 2
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x[i][j] += 1.0;
}

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      a[i][j] = (double)((i * j + 1) % N) / N;
  kernel(N, a, b, c);
  double s = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += (a[i][j] + b[i][j] + c[i][j]) * (1 + (i * N + j) % 7);
  printf("s: %.10e\\n", s);
  return 0;
}
"""


def test_loops_after_markers_are_analysed():
    loops = {(e["line"], e["var"]): e for e in loops_by_function(SCOP)["kernel"]}
    assert loops[(11, "i")]["parallelized"], "the loop right after #pragma scop"
    assert "fusion" in loops[(14, "i")]["transformations"], "the first loop after #pragma scop fuses with the next"
    assert loops[(19, "i")]["parallelized"], "the loop right after an unknown pragma"
    assert not loops[(23, "i")]["parallelized"] and "must stay right before it" in loops[(23, "i")]["reason"]
    assert loops[(24, "j")]["parallelized"], "the loops inside a loop with #pragma GCC unroll are analysed"


@needs_gcc
def test_markers_kept_and_output_matches(tmp_path):
    source = tmp_path / "scop.c"
    source.write_text(SCOP)
    diff = prepare(source, tmp_path)
    out = diff.lifted.read_text()
    lines = out.splitlines()
    for marker in ("#pragma scop", "#pragma endscop", "#pragma foo bar", "#pragma GCC unroll 2"):
        assert lines.count(marker) == 1, marker
    # gcc accepts a loop pragma only right before its loop: lift's directives never come between them.
    for k, line in enumerate(lines):
        if line.strip().startswith("#pragma GCC"):
            assert lines[k + 1].lstrip().startswith("for"), lines[k + 1]
    assert lines[lines.index("#pragma scop") + 1].lstrip().startswith(("#pragma omp", "for", "if", "/* lift:")), "marker first"
    for threads in (1, 2, 8):
        diff.check(threads)
