"""Tiling: applied to permutable bands that reuse data beyond the cache, refused where illegal."""
from pathlib import Path

import pytest
from click.testing import CliRunner

from lifter import LiftOptions, lift_source
from lifter.cli import lift as lift_command
from lifter.graph.nodes import MapScope
from lifter.graph.validate import validate
from lifter.transform.legality import permutable
from lifter.transform.tiling import model_sizes
from tests.harness import CORPUS, prepare

# Rectangular, `<=` bounds, lower bound 1, sizes that tile sizes do not divide.
GEMM_LE = """#include <stdio.h>
#define N 50
static double A[N + 1][N + 1], B[N + 1][N + 1], C[N + 1][N + 1];
static void kernel(int n) {
  int i, j, k;
  for (i = 1; i <= n; i++)
    for (k = 1; k <= n; k++)
      for (j = 1; j <= n; j++)
        C[i][j] += A[i][k] * B[k][j];
}
int main(void) {
  for (int i = 0; i <= N; i++)
    for (int j = 0; j <= N; j++) { A[i][j] = (i + j) % 7; B[i][j] = (i * j) % 5; C[i][j] = 1; }
  kernel(N - 3);
  double s = 0;
  for (int i = 0; i <= N; i++)
    for (int j = 0; j <= N; j++) s += C[i][j] * (1 + (i * N + j) % 7);
  printf("C: %.10e\\n", s);
  return 0;
}
"""

# Reuse (B[k][j] along i) would make tiling pay, but C[i-1][j+1] -> C[i][j] has distance
# (1, -1) along (i, j): the band is not permutable and tiling it would read stale values.
SKEWED = """#include <stdio.h>
#define N 40
static double A[N][N], B[N][N], C[N][N];
static void kernel(int n) {
  for (int i = 1; i < n; i++)
    for (int j = 0; j < n - 1; j++)
      for (int k = 0; k < n; k++)
        C[i][j] = C[i-1][j+1] + A[i][k] * B[k][j];
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) { A[i][j] = (i + 2 * j) % 5; B[i][j] = (i * j) % 3; C[i][j] = j % 4; }
  kernel(N);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += C[i][j] * (1 + (i * N + j) % 7);
  printf("C: %.10e\\n", s);
  return 0;
}
"""

# A streaming stencil: no reuse beyond a few rows, so no tiling.
STENCIL = """#include <stdio.h>
#define N 64
static double A[N][N], B[N][N];
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i][j] = (i * j) % 9;
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      B[i][j] = 0.2 * (A[i][j] + A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1]);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += B[i][j];
  printf("%.6f\\n", s);
  return 0;
}
"""


def _kernel(output: str) -> str:
    return output[output.index("static void kernel"):output.index("int main")]


def _loops(result):
    return {(e["line"], e["var"]): e for e in result.loops}


def test_matmul_band_is_tiled_with_the_parallel_tile_loop_outermost():
    result = lift_source(GEMM_LE, "g.c", LiftOptions(tile_sizes=(16, 8, 4)))
    body = _kernel(result.output)
    assert "for (__typeof__(i + 0L) i_t = 1; i_t <= n; i_t += 16)" in body
    assert "for (i = i_t; i <= (i_t + 15 <= n ? i_t + 15 : n); i++)" in body
    assert "for (__typeof__(j + 0L) j_t = 1; j_t <= n; j_t += 4)" in body
    pragma_at = body.index("#pragma omp parallel for")
    assert body.index("i_t += 16") > pragma_at > body.index("static void")
    assert body.index("i_t += 16") < body.index("k_t += 8") < body.index("j_t += 4") < body.index("i = i_t")
    loops = _loops(result)
    assert "tiling" in loops[(6, "i")]["transformations"] and loops[(6, "i")]["tile_size"] == 16
    assert loops[(6, "i")]["parallelized"]
    assert "tiling by 16" in loops[(6, "i")]["remark"]
    for g in result.graphs:
        validate(g)
    tiles = [d["node"] for g in result.graphs for _, d in g.nodes(data=True)
             if isinstance(d["node"], MapScope) and d["node"].tile]
    assert sorted(t.tile for t in tiles) == [4, 8, 16]
    assert next(t for t in tiles if t.tile == 16).plan is not None


def test_illegal_tiling_is_refused():
    result = lift_source(SKEWED, "s.c", LiftOptions(tile_sizes=(8, 8, 8)))
    assert "i_t +=" not in result.output and "k_t +=" not in result.output
    # Strips of j alone above k are legal (k carries only C[i][j]'s own overwrites): strips.py.
    assert all("tiling" not in e["transformations"] for e in result.loops if e["var"] != "j")
    g = result.graphs[-1]
    region = g.nest.scop
    band = [lid for lid in region.loops]
    assert not permutable(region, band, [], region.statements)


def test_legal_band_is_permutable():
    g = lift_source(GEMM_LE, "g.c", LiftOptions(tile=False)).graphs[0]
    region = g.nest.scop
    assert permutable(region, list(region.loops), [], region.statements)


def test_no_tile_and_streaming_stencil():
    assert "_t +=" not in lift_source(GEMM_LE, "g.c", LiftOptions(tile=False)).output
    assert "_t +=" not in lift_source(STENCIL, "st.c").output
    assert "_t +=" not in lift_source(GEMM_LE, "g.c", LiftOptions(opt_level=1)).output


def test_triangular_corpus_band_is_tiled_and_computes_the_same(tmp_path):
    text = (CORPUS / "linalg" / "syrk.c").read_text()
    assert "j_t +=" in lift_source(text, "syrk.c").output
    diff = prepare(CORPUS / "linalg" / "syrk.c", tmp_path, tile_sizes=(16, 8, 12))
    for threads in (1, 2, 8):
        diff.check(threads)


def test_model_sizes_fit_the_cache():
    sizes = model_sizes(3, 3)
    assert sizes[0] == sizes[1] and sizes[2] == 2 * sizes[0] and sizes[0] >= 8
    assert all(s & (s - 1) == 0 for s in sizes)


def test_tile_sizes_flag(tmp_path):
    src = tmp_path / "g.c"
    src.write_text(GEMM_LE)
    runner = CliRunner()
    done = runner.invoke(lift_command, [str(src), "-o", "-", "--tile-sizes", "24,12"])
    assert done.exit_code == 0, done.output
    assert "i_t += 24" in done.output and "k_t += 12" in done.output and "j_t += 12" in done.output
    done = runner.invoke(lift_command, [str(src), "-o", "-", "--no-tile"])
    assert done.exit_code == 0 and "_t +=" not in done.output
    done = runner.invoke(lift_command, [str(src), "-o", "-", "--tile-sizes", "8,x"])
    assert done.exit_code != 0 and "--tile-sizes" in done.output


@pytest.mark.parametrize("sizes", [(), (16, 8, 4), (7, 5, 3)])
def test_tiled_programs_compute_the_same(tmp_path, sizes):
    for name, text in (("gemm_le", GEMM_LE), ("skewed", SKEWED)):
        src = tmp_path / f"{name}.c"
        src.write_text(text)
        diff = prepare(Path(src), tmp_path, tile_sizes=sizes)
        for threads in (1, 2, 8):
            diff.check(threads)


@pytest.mark.parametrize("kernel", ["linalg/gemm.c", "linalg/two_mm.c", "linalg/doitgen.c"])
def test_tiled_corpus_kernels_compute_the_same(tmp_path, kernel):
    diff = prepare(CORPUS / kernel, tmp_path, tile_sizes=(16, 8, 12))
    for threads in (1, 2, 8):
        diff.check(threads)


# The innermost loop's bound uses i (syrk's `j <= i`): it is tiled on a grid that covers all its
# runs (0 .. n - 1), and each point loop clips its block to the run (`j <= i`).
TRIANGULAR = """#include <stdio.h>
#define N 45
static double A[N][N], B[N][N], C[N][N];
static void kernel(int n) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += A[i][k] * B[k][j];
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) { A[i][j] = (i + 2 * j) % 9; B[i][j] = (3 * i + j) % 4; C[i][j] = 0; }
  kernel(N);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += C[i][j] * (1 + (i * N + j) % 7);
  printf("C: %.10e\\n", s);
  return 0;
}
"""

# The lower bound uses i (correlation's `j = i + 1`), inside a time loop above the band whose
# variable the grid may use (`j < n - t`): the grid runs from 1 to n - t - 1.
TRIANGULAR_LOWER = """#include <stdio.h>
#define N 41
static double A[N][N], C[N][N];
static void kernel(int n) {
  for (int t = 0; t < 3; t++) {
    for (int i = 0; i < n - 1; i++)
      for (int k = 0; k < n; k++)
        for (int j = i + 1; j < n - t; j++)
          C[i][j] = 0.5 * C[i][j] + A[k][i] * A[k][j] + t;
    A[t][t] += C[t][n - 1];
  }
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) { A[i][j] = (i + 3 * j) % 7 - 3; C[i][j] = (i * j) % 5; }
  kernel(N);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += C[i][j] * (1 + (i * N + j) % 7);
  printf("C: %.10e\\n", s);
  return 0;
}
"""


def test_a_triangular_loop_is_tiled_on_the_grid_of_all_its_runs(tmp_path):
    body = _kernel(lift_source(TRIANGULAR, "t.c", LiftOptions(tile_sizes=(7, 5))).output)
    assert "i_t += 7" in body and "k_t += 5" in body and "j_t = 0L; j_t <= (long)n - 1L; j_t += 5" in body
    assert "for (int j = (j_t > (0) ? j_t : (0)); j <= (j_t + 4 <= i ? j_t + 4 : i); j++)" in body
    body = _kernel(lift_source(TRIANGULAR_LOWER, "t.c", LiftOptions(tile_sizes=(7, 5))).output)
    assert "j_t = 1L; j_t <= (long)n - 1L*(long)t - 1L; j_t += 5" in body and "j = (j_t > (i + 1) ? j_t : (i + 1))" in body
    for name, text in (("upper", TRIANGULAR), ("lower", TRIANGULAR_LOWER)):
        src = tmp_path / f"{name}.c"
        src.write_text(text)
        for sizes in ((7, 5), (3, 4, 2), ()):
            diff = prepare(Path(src), tmp_path, tile_sizes=sizes)
            for threads in (1, 2, 8):
                diff.check(threads)
