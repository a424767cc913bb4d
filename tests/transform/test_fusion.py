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


# The same loops at the top level of a function: each is a region of its own until fused.
TOP_LEVEL = """#include <stdio.h>
#define N 300
static double a[N + 1], b[N + 1], c[N + 1], d[N + 1];
static void kernel(int n) {
  /* producer, consumer and a third user: one region, one loop */
  for (int i = 0; i < n; i++)
    b[i] = a[i] * 0.5;
  // consumer
  for (int i = 0; i < n; i++)
    c[i] = b[i] + a[i];
  for (int i = 0; i < n; i++)
    d[i] = c[i] * b[i];
  /* reads c[i + 1], which a fused loop would write only in the next iteration: refused */
  for (int i = 0; i < n; i++)
    a[i] = c[i + 1] - d[i];
}
int main(void) {
  for (int i = 0; i <= N; i++) { a[i] = i % 7; c[i] = i % 3; }
  kernel(N);
  double s = 0;
  for (int i = 0; i <= N; i++) s += a[i] + 2 * b[i] + 3 * c[i] + 4 * d[i];
  printf("%.10e\\n", s);
  return 0;
}
"""


# (no profitability guard: each guarded loop would have its sequential copy beside it)
UNGUARDED = LiftOptions(min_parallel_work=0)


def test_consecutive_top_level_loops_fuse_into_one_region():
    result = lift_source(TOP_LEVEL, "t.c", UNGUARDED)
    body = result.output[result.output.index("static void kernel"):result.output.index("int main")]
    assert body.count("for (int i = 0; i < n; i++)") == 2
    assert "c[i] = b[i] + a[i];\n      d[i] = c[i] * b[i];" in body
    assert body.index("d[i] = c[i] * b[i];") < body.index("for (int i = 0; i < n; i++)\n    a[i] = c[i + 1]")
    fused = [e for e in result.loops if e["function"] == "kernel" and "fusion" in e["transformations"]]
    assert [e["line"] for e in fused] == [6, 9, 11]
    assert len([g for g in result.graphs if g.function == "kernel"]) == 2
    for g in result.graphs:
        validate(g)
    separate = lift_source(TOP_LEVEL, "t.c", LiftOptions(fuse=False))
    assert len([g for g in separate.graphs if g.function == "kernel"]) == 4


def test_fused_top_level_loops_compute_the_same(tmp_path):
    src = tmp_path / "top.c"
    src.write_text(TOP_LEVEL)
    diff = prepare(Path(src), tmp_path)
    for threads in (1, 2, 8):
        diff.check(threads)


def test_a_loop_that_is_the_body_of_an_if_is_not_fused_with_the_next():
    text = TOP_LEVEL.replace("  /* producer, consumer and a third user: one region, one loop */\n",
                             "  if (n > 1000)\n")
    result = lift_source(text, "t.c", UNGUARDED)
    body = result.output[result.output.index("static void kernel"):result.output.index("int main")]
    assert "if (n > 1000)" in body and body.count("for (int i = 0; i < n; i++)") == 3
    assert "b[i] = a[i] * 0.5;\n      c[i]" not in body


def test_a_fused_loop_that_is_tiled_reports_its_tile(tmp_path):
    # 2mm's two products are consecutive top-level loops over i sharing tmp: they fuse, then the
    # second product is distributed out again and tiled; the tile map carries `fused`, so the
    # report finds the tile of the loop fused into the other.
    from lifter import lift_file
    from lifter.frontend.preprocess import PreprocessOptions
    from tests.harness import CORPUS
    sizes = ["NI=1200", "NJ=1200", "NK=1200", "NL=1200"]
    result = lift_file(str(CORPUS / "linalg/two_mm.c"), LiftOptions(preprocess=PreprocessOptions(defines=sizes)))
    loops = {(e["line"], e["var"]): e for e in result.loops if e["function"] == "kernel_2mm"}
    assert "fusion" in loops[(58, "i")]["transformations"] and loops[(58, "i")]["tile_size"] == 64
