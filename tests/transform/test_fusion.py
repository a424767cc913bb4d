"""Fusion: producer-consumer siblings over one range fuse, unless a dependence or parallelism forbids it."""
from pathlib import Path

from lifter import LiftOptions, lift_source
from lifter.graph.validate import validate
from tests.harness import prepare

PROGRAM = """#include <stdio.h>
#define N 300
#define T 4
static double a[N], b[N], c[N], p[N], q[N], x[N][N], y[N][N];
static void kernel(int n) {
  for (int t = 0; t < T; t++) {
    /* producer, consumer: fused */
    for (int i = 1; i < n - 1; i++)
      b[i] = a[i] * 0.5 + t;
    for (int i = 1; i < n - 1; i++)
      c[i] = b[i] + a[i];
    /* fused too; then a[i] reads b[i + 1], written later by a fused loop: refused */
    for (int i = 1; i < n - 1; i++)
      b[i] = c[i] * 0.25;
    for (int i = 1; i < n - 1; i++)
      a[i] = b[i + 1] - b[i - 1];
    /* a sequential scan, then a parallel consumer: fusing would serialize the consumer */
    for (int i = 1; i < n; i++)
      p[i] = p[i - 1] * 0.5 + a[i];
    for (int i = 1; i < n; i++)
      q[i] = p[i] * 2.0;
    /* two nests: fused at both levels */
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        x[i][j] = a[i] + q[j];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        y[i][j] = x[i][j] * 3.0 + y[i][j];
  }
}
int main(void) {
  for (int i = 0; i < N; i++) { a[i] = i % 13; p[i] = i % 3; }
  kernel(N);
  double s = 0;
  for (int i = 0; i < N; i++) {
    s += a[i] + 2 * b[i] + 3 * c[i] + q[i];
    for (int j = 0; j < N; j++) s += y[i][j] * (1 + (i + j) % 5);
  }
  printf("%.10e\\n", s);
  return 0;
}
"""


def _loops(result):
    return {(e["line"], e["var"]): e for e in result.loops}


def test_producer_consumer_maps_fuse():
    result = lift_source(PROGRAM, "f.c")
    loops = _loops(result)
    assert "fusion" in loops[(8, "i")]["transformations"]
    assert "fusion" in loops[(10, "i")]["transformations"]
    body = result.output[result.output.index("static void kernel"):result.output.index("int main")]
    fused = body[body.index("b[i] = a[i] * 0.5 + t;"):]
    assert fused.index("c[i] = b[i] + a[i];") < fused.index("for")
    assert "fusion" in loops[(24, "j")]["transformations"]
    for g in result.graphs:
        validate(g)


def test_fusion_that_breaks_a_dependence_is_refused():
    loops = _loops(lift_source(PROGRAM, "f.c"))
    assert "fusion" in loops[(13, "i")]["transformations"]
    assert "fusion" not in loops[(15, "i")]["transformations"]


def test_fusion_that_kills_parallelism_is_refused():
    loops = _loops(lift_source(PROGRAM, "f.c"))
    assert "fusion" not in loops[(18, "i")]["transformations"]
    assert loops[(20, "i")]["parallel"]


def test_no_fuse():
    result = lift_source(PROGRAM, "f.c", LiftOptions(fuse=False))
    assert all("fusion" not in e["transformations"] for e in result.loops)


def test_fused_program_computes_the_same(tmp_path):
    src = tmp_path / "f.c"
    src.write_text(PROGRAM)
    diff = prepare(Path(src), tmp_path)
    for threads in (1, 2, 8):
        diff.check(threads)
