"""Distribution and interchange: applied where they pay, refused where a dependence forbids them."""
from pathlib import Path

from lifter import LiftOptions, lift_source
from tests.harness import prepare

GEMM = """#include <stdio.h>
#define N 48
static double A[N][N], B[N][N], C[N][N];
static void kernel(int n, double alpha, double beta) {
  int i, j, k;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      C[i][j] *= beta;
      for (k = 0; k < n; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) { A[i][j] = (i + j) % 7; B[i][j] = (i * j) % 5; C[i][j] = 1; }
  kernel(N, 1.5, 0.5);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += C[i][j] * (1 + (i * N + j) % 7);
  printf("C: %.10e\\n", s);
  return 0;
}
"""

# The inner loop walks a column, so interchange would pay, but the anti dependence
# A[i-1][j+1] (read in iteration (j-1, i+1)) -> A[i][j] forbids it.
SKEWED = """#include <stdio.h>
#define N 40
static double A[N][N];
static void kernel(int n) {
  for (int j = 0; j < n - 1; j++)
    for (int i = 1; i < n; i++)
      A[i][j] = A[i-1][j+1] + 1.0;
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i][j] = (i * 3 + j) % 11;
  kernel(N);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += A[i][j] * (1 + (i * N + j) % 7);
  printf("A: %.10e\\n", s);
  return 0;
}
"""


def _entries(text, name="k.c"):
    result = lift_source(text, name)
    return result, {(e["line"], e["var"]): e for e in result.loops}


def test_matmul_is_distributed_and_interchanged():
    result = lift_source(GEMM, "k.c", LiftOptions(tile=False))  # tiling reshapes it further
    loops = {(e["line"], e["var"]): e for e in result.loops}
    assert "interchange" in loops[(9, "k")]["transformations"]
    assert loops[(6, "i")]["parallelized"]
    body = result.output[result.output.index("static void kernel"):result.output.index("int main")]
    k_at, j_at = body.index("for (k = 0"), body.rindex("for (j = 0")
    assert k_at < j_at, "the k loop must now be outside the second j loop"


def test_illegal_interchange_is_refused():
    result, loops = _entries(SKEWED)
    assert not loops[(5, "j")]["transformations"]
    assert "loop nest reordered" not in result.output


def test_no_reordering_at_O1():
    result = lift_source(GEMM, "k.c", LiftOptions(opt_level=1))
    assert "loop nest reordered" not in result.output


def test_transformed_programs_compute_the_same(tmp_path):
    for name, text in (("gemm", GEMM), ("skewed", SKEWED)):
        src = tmp_path / f"{name}.c"
        src.write_text(text)
        diff = prepare(Path(src), tmp_path)
        for threads in (1, 2, 8):
            diff.check(threads)


SHORT_OUTER = """#include <stdio.h>
#define C 3
#define N 100000
static double a[C][N];
int main(void) {
  for (int c = 0; c < C; c++)
    for (int i = 0; i < N; i++)
      a[c][i] = c * 0.5 + i;
  double s = 0;
  for (int c = 0; c < C; c++)
    for (int i = 0; i < N; i++)
      s += a[c][i];
  printf("%.3f\\n", s);
  return 0;
}
"""


def test_short_outer_loop_is_collapsed(tmp_path):
    out = lift_source(SHORT_OUTER, "c.c").output
    assert out.count("collapse(2)") == 2
    src = tmp_path / "c.c"
    src.write_text(SHORT_OUTER)
    diff = prepare(Path(src), tmp_path, min_parallel_work=40_000)
    for threads in (1, 2, 8):
        diff.check(threads)


def test_remembered_verdicts_follow_the_tree():
    """legal_tree remembers each dependence's verdict by the schedules of its pair: the same
    pair under the interchanged order must be refused after the original order was accepted,
    and accepted again once the tree is restored."""
    from lifter.graph.nodes import MapScope
    from lifter.transform.checkpoint import checkpoint, rollback
    from lifter.transform.legality import legal_tree
    from lifter.transform.locality import apply_order

    g = lift_source(SKEWED, "k.c").graphs[-1]
    region = g.nest.scop
    band = [n for n, d in g.nodes(data=True) if isinstance(d["node"], MapScope)]
    assert len(band) == 2 and legal_tree(g, region)
    assert g.nest.forward_checks, "the verdicts are remembered on the graph"
    saved = checkpoint(g)
    maps = [g.nodes[n]["node"] for n in band]
    outer_first = sorted(band, key=lambda n: region.loops[g.nodes[n]["node"].origin].depth)
    apply_order(g, outer_first, [g.nodes[outer_first[1]]["node"], g.nodes[outer_first[0]]["node"]])
    assert not legal_tree(g, region)
    rollback(g, saved)
    assert [m.origin for m in maps] == [g.nodes[n]["node"].origin for n in band]
    assert legal_tree(g, region)
