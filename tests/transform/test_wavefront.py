"""Skewed tiling run as wavefronts: applied to Gauss-Seidel nests, refused where a skew cannot
make the band permutable, and the programs compute what they computed before."""
from pathlib import Path

import pytest

from lifter import LiftOptions, lift_source
from lifter.graph.nodes import MapScope
from lifter.graph.validate import validate
from lifter.transform.wavefront import _band_dependences, _legal, _schedule, find_band
from tests.harness import CORPUS, prepare

SEIDEL = CORPUS / "stencils" / "seidel2d.c"
JACOBI2D = CORPUS / "stencils" / "jacobi2d.c"

# 1-D Gauss-Seidel in a time loop: (t, i) -> (t + 1, i - 1) needs i' = i + t.
SEIDEL1D = """#include <stdio.h>
#ifndef N
#define N 100
#endif
#ifndef T
#define T 9
#endif
static double A[N];
static void kernel(int tsteps, int n) {
  for (int t = 0; t < tsteps; t++)
    for (int i = 1; i < n - 1; i++)
      A[i] = (A[i - 1] + A[i] + 2.0 * A[i + 1]) / 4.0;
}
int main(void) {
  for (int i = 0; i < N; i++) A[i] = (i * 7) % 11;
  kernel(T, N);
  double s = 0;
  for (int i = 0; i < N; i++) s += A[i] * (1 + i % 5);
  printf("%.12e\\n", s);
  return 0;
}
"""

# Unsigned loop variables declared outside the nest: private to the region, compared as long.
SEIDEL1D_UNSIGNED = SEIDEL1D.replace("#include <stdio.h>", "#include <stdio.h>\n#include <stddef.h>").replace(
    "static void kernel(int tsteps, int n) {\n  for (int t = 0; t < tsteps; t++)\n    for (int i = 1; i < n - 1; i++)",
    "static void kernel(size_t tsteps, size_t n) {\n  size_t t, i;\n  for (t = 0; t < tsteps; t++)\n"
    "    for (i = 1; i < n - 1; i++)")

# Non-square, parametric, other bounds (time from 1, `<=`, lower bound 2), two statements.
SEIDEL_RECT = """#include <stdio.h>
#ifndef M
#define M 37
#endif
#ifndef N
#define N 61
#endif
static double A[M][N], B[M][N];
static void kernel(int tsteps, int m, int n) {
  for (long t = 1; t <= tsteps; t++)
    for (int i = 2; i < m - 1; i++)
      for (int j = 1; j <= n - 3; j++) {
        B[i][j] = 0.5 * A[i][j + 1] + 0.25 * B[i - 1][j + 2];
        A[i][j] = (A[i - 1][j] + A[i][j - 1] + A[i + 1][j + 2] + B[i][j]) * 0.24;
      }
}
int main(void) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) { A[i][j] = (i * 3 + j) % 13; B[i][j] = (i + j * 5) % 7; }
  kernel(7, M, N);
  double s = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) s += (A[i][j] + 2 * B[i][j]) * (1 + (i * N + j) % 7);
  printf("%.12e\\n", s);
  return 0;
}
"""

# The band inside an outer loop that also holds a statement; the sweep reads that statement's
# element, so the outer loop carries dependences into the band (which must stay after it).
NESTED = """#include <stdio.h>
#define N 45
static double A[N][N];
static void kernel(int reps, int tsteps, int n) {
  for (int r = 0; r < reps; r++) {
    A[1][r + 1] += 1.0 + r;
    for (int t = 0; t < tsteps; t++)
      for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
          A[i][j] = 0.3 * (A[i - 1][j + 1] + A[i][j - 1] + A[i + 1][j]) + 0.1 * A[i][j];
  }
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i][j] = (i * 5 + j * 3) % 11;
  kernel(3, 6, N);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += A[i][j] * (1 + (i * N + j) % 7);
  printf("%.12e\\n", s);
  return 0;
}
"""

# Two sweeps in a time loop, non-square, other bounds: fused with a shift, skewed and tiled.
SWEEPS = """#include <stdio.h>
#ifndef M
#define M 30
#endif
#ifndef N
#define N 47
#endif
static double A[M][N], B[M][N];
static void kernel(int tsteps, int m, int n) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 2; i < m - 1; i++)
      for (int j = 1; j <= n - 2; j++)
        B[i][j] = 0.3 * (A[i - 1][j] + A[i][j + 1] + A[i + 1][j - 1]) + 0.1 * B[i][j];
    for (int i = 2; i < m - 1; i++)
      for (int j = 1; j <= n - 2; j++)
        A[i][j] = 0.5 * (B[i][j] + B[i - 1][j + 1]) - 0.01 * A[i][j];
  }
}
int main(void) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) { A[i][j] = (i * 7 + j) % 10; B[i][j] = (i + 3 * j) % 6; }
  kernel(9, M, N);
  double s = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) s += (A[i][j] - B[i][j]) * (1 + (i * N + j) % 7);
  printf("%.12e\\n", s);
  return 0;
}
"""

# Row i reads row i - 1 mirrored: the distance along j is 2j - n + 1, unbounded below, so no
# skew makes the band permutable; j also carries A[i][j - 1]: nothing is parallel either.
MIRRORED = """#include <stdio.h>
#define N 60
static double A[N][N];
static void kernel(int n) {
  for (int i = 1; i < n; i++)
    for (int j = 1; j < n; j++)
      A[i][j] = 0.5 * A[i][j - 1] + 0.5 * A[i - 1][n - 1 - j];
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) A[i][j] = (i * j) % 9;
  kernel(N);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += A[i][j] * (1 + (i + j) % 3);
  printf("%.12e\\n", s);
  return 0;
}
"""


def _wave_maps(result):
    return [d["node"] for g in result.graphs for _, d in g.nodes(data=True)
            if isinstance(d["node"], MapScope) and d["node"].id.endswith(".wave")]


def _entries(result, var):
    return [e for e in result.loops if e["var"] == var and e["function"].startswith("kernel")]


def test_seidel2d_is_skewed_tiled_and_run_as_wavefronts():
    result = lift_source(SEIDEL.read_text(), "seidel2d.c", LiftOptions(tile_sizes=(8, 16)))
    for g in result.graphs:
        validate(g)
    body = result.output[result.output.index("static void kernel_seidel2d"):result.output.index("int main")]
    assert "for (long t_t = 0; t_t <= (long)(tsteps - 1); t_t += 8)" in body
    assert "#pragma omp parallel /* lift */" in body and "#pragma omp for schedule(static)" in body
    assert body.index("if (") < body.index("#pragma omp parallel /* lift */") < body.index("long wave") \
        < body.index("#pragma omp for")
    assert "i_t += 16" in body and "j_t" not in body  # dim q's tiles come from the wavefront
    assert "A[i][j] = (A[i - 1][j - 1]" in body  # the statement as written
    waves = _wave_maps(result)
    assert len(waves) == 1 and waves[0].parallel_region is not None
    for var in ("t", "i", "j"):
        (entry,) = _entries(result, var)
        assert {"skew", "wavefront"} <= set(entry["transformations"])
    (i_entry,) = _entries(result, "i")
    assert i_entry["parallelized"] and i_entry["tile_size"] == 16


def _band(text, name, function="kernel"):
    """The graph, region and band of `function`'s nest, as built (before any pass reshapes it)."""
    g = next(g for g in lift_source(text, name, LiftOptions(tile=False)).graphs
             if g.nest.scop.function == function)
    region = g.nest.scop
    return g, region, find_band(g, region.root)


def test_skew_of_seidel2d_is_the_classic_one():
    g, region, band = _band(SEIDEL.read_text(), "s.c", "kernel_seidel2d")
    assert band.nests == [[]] and len(band.shared) == 3
    # i' = i + t, j' = j + t + i' (2t + i + j)
    assert _schedule(g, region, band, [], [4, 8, 8]) == [[], [1], [1, 1]]
    assert band.shifts == [[0, 0, 0]]
    deps = _band_dependences(region, list(region.statements), [])
    depths = [[0, 1, 2]]
    assert _legal(g, region, band, band.shifts, deps, depths, [[], [1], [1, 1]], [4, 8, 8])
    # Without the skew (or with too little of it) the tiles would read stale values: refused.
    assert not _legal(g, region, band, band.shifts, deps, depths, [[], [0], [0, 0]], [4, 8, 8])
    assert not _legal(g, region, band, band.shifts, deps, depths, [[], [1], [0, 1]], [4, 8, 8])


def test_jacobi2d_sweeps_are_fused_with_a_shift():
    g, region, band = _band(JACOBI2D.read_text(), "j.c", "kernel_jacobi2d")
    assert len(band.shared) == 1 and len(band.nests) == 2
    skew = _schedule(g, region, band, [], [4, 8, 8])
    assert skew is not None and band.shifts[0] == [0, 0, 0] and any(band.shifts[1])
    # The copy A = B fused without a shift would overwrite A[i][j] that row i + 1 still reads.
    deps = _band_dependences(region, list(region.statements), [])
    depths = [[0, 1, 2], [0, 1, 2]]
    assert not _legal(g, region, band, [[0, 0, 0], [0, 0, 0]], deps, depths, skew, [4, 8, 8])
    result = lift_source(JACOBI2D.read_text(), "j.c", LiftOptions(tile_sizes=(4, 8)))
    for g in result.graphs:
        validate(g)
    body = result.output[result.output.index("static void kernel_jacobi2d"):result.output.index("int main")]
    assert "private(i, j, t)" in body and "long i_f" in body
    (entry,) = [e for e in _entries(result, "i") if e["line"] == 30]
    assert {"shift", "skew", "wavefront"} <= set(entry["transformations"])


def test_sweeps_the_cost_model_leaves_alone():
    # 1-D and 3-D sweeps lose with this tiling (see the module doc); fdtd2d's bounds differ.
    for name in ("jacobi1d", "heat3d", "fdtd2d"):
        assert "wave" not in lift_source((CORPUS / "stencils" / f"{name}.c").read_text(), f"{name}.c").output


def test_no_tile_and_o1_leave_stencils_alone():
    for path in (SEIDEL, JACOBI2D):
        for options in (LiftOptions(tile=False), LiftOptions(opt_level=1), LiftOptions(target="cuda")):
            result = lift_source(path.read_text(), path.name, options)
            assert "wave" not in result.output and not _wave_maps(result)


def test_unskewable_band_is_refused(tmp_path):
    result = lift_source(MIRRORED, "m.c", LiftOptions(tile_sizes=(4, 4)))
    assert "wave" not in result.output
    assert all("wavefront" not in e["transformations"] for e in result.loops)
    g, region, band = _band(MIRRORED, "m.c")
    assert band is not None and _schedule(g, region, band, [], [4, 4]) is None
    src = tmp_path / "m.c"
    src.write_text(MIRRORED)
    diff = prepare(src, tmp_path, tile_sizes=(4, 4))
    diff.check(2)


def test_loop_variable_read_after_the_nest_is_left_alone():
    text = SEIDEL1D_UNSIGNED.replace("A[i] = (A[i - 1] + A[i] + 2.0 * A[i + 1]) / 4.0;\n}",
                                     "A[i] = (A[i - 1] + A[i] + 2.0 * A[i + 1]) / 4.0;\n  A[0] += t;\n}")
    assert "A[0] += t;" in text
    assert "wave" not in lift_source(text, "u.c", LiftOptions(tile_sizes=(4, 8))).output
    assert "wave" in lift_source(SEIDEL1D_UNSIGNED, "u.c", LiftOptions(tile_sizes=(4, 8))).output


def test_small_constant_work_is_left_alone():
    # (40 time steps: with 4, one tile of 32 along t, every wave would hold one tile)
    small = SEIDEL1D.replace("int t = 0; t < tsteps;", "int t = 0; t < 40;").replace("i < n - 1;", "i < 99;")
    assert "long wave" in lift_source(small, "s.c", LiftOptions(min_parallel_work=300)).output
    assert "wave" not in lift_source(small, "s.c", LiftOptions()).output  # 3920 iterations


@pytest.mark.parametrize("defines,sizes", [
    (["N=50", "TSTEPS=8"], (4, 8)),
    (["N=50", "TSTEPS=8"], ()),
    (["N=3", "TSTEPS=2"], (2, 2)),
    (["N=4", "TSTEPS=5"], (3, 2)),
    (["N=97", "TSTEPS=13"], (5, 7)),
    (["N=70", "TSTEPS=1"], (16, 8)),
    (["N=40", "TSTEPS=0"], (4, 4)),
])
def test_seidel2d_computes_the_same(tmp_path, defines, sizes):
    diff = prepare(SEIDEL, tmp_path, defines=defines, tile_sizes=sizes)
    assert "long wave" in diff.lifted.read_text()
    for threads in (1, 2, 8):
        diff.check(threads)


@pytest.mark.parametrize("defines,sizes", [
    (["N=40", "TSTEPS=9"], (4, 8)),
    (["N=7", "TSTEPS=13"], (2, 2)),
    (["N=61", "TSTEPS=5"], (3, 16)),
    (["N=150", "TSTEPS=12"], ()),
])
def test_jacobi2d_computes_the_same(tmp_path, defines, sizes):
    diff = prepare(JACOBI2D, tmp_path, defines=defines, tile_sizes=sizes)
    assert "long wave" in diff.lifted.read_text()
    for threads in (1, 2, 8):
        diff.check(threads)


@pytest.mark.parametrize("name,text,defines,sizes", [
    ("seidel1d", SEIDEL1D, [], (8, 8)),
    ("seidel1d", SEIDEL1D, ["N=1000", "T=37"], (16, 32)),
    ("seidel1d", SEIDEL1D, ["N=5", "T=40"], (3,)),
    ("rect", SEIDEL_RECT, [], (3, 5)),
    ("rect", SEIDEL_RECT, ["M=6", "N=90"], (2, 4, 8)),
    ("rect", SEIDEL_RECT, ["M=80", "N=5"], (4,)),
    ("nested", NESTED, [], (4, 8)),
    ("sweeps", SWEEPS, [], (3, 8)),
    ("sweeps", SWEEPS, ["M=90", "N=7"], (2, 4)),
    ("sweeps", SWEEPS, [], ()),
    ("unsigned", SEIDEL1D_UNSIGNED, [], (4, 8)),
    ("unsigned", SEIDEL1D_UNSIGNED, ["N=3", "T=5"], (2,)),
], ids=["1d", "1d-large", "1d-tiny", "rect", "rect-wide", "rect-tall", "nested", "sweeps", "sweeps-tall",
        "sweeps-default-sizes", "unsigned", "unsigned-tiny"])
def test_variants_compute_the_same(tmp_path, name, text, defines, sizes):
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    diff = prepare(Path(src), tmp_path, defines=defines, tile_sizes=sizes)
    lifted = diff.lifted.read_text()
    assert "long wave" in lifted
    for threads in (1, 2, 8):
        diff.check(threads)


# A running counter through a 2-deep nest (a lattice fill): skewing makes it a legal wavefront,
# but the inner loop has 4 iterations, one tile: every wave would hold one tile.
COUNTER = """#include <stdio.h>
static const double basis[4] = {0.0, 0.5, 0.25, 0.75};
static double x[4 * 20000];

int main(void)
{
    int m = 20000, n = 0;
    for (int i = 0; i < m; i++)
        for (int b = 0; b < 4; b++) {
            x[n] = i + basis[b];
            n++;
        }
    double h = 0.0;
    for (int t = 0; t < n; t++)
        h += x[t] * (t % 7);
    printf("%d %.6f\\n", n, h);
    return 0;
}
"""


def test_a_wavefront_of_one_tile_per_wave_is_not_emitted(tmp_path):
    result = lift_source(COUNTER, "c.c", LiftOptions())
    assert "wave" not in result.output
    outer = next(e for e in result.loops if e["var"] == "i")
    assert not outer["parallelized"] and outer["reason"].startswith("flow dependence on n"), outer["reason"]
    src = tmp_path / "c.c"
    src.write_text(COUNTER)
    diff = prepare(src, tmp_path)
    for threads in (1, 2, 8):
        diff.check(threads)


@pytest.mark.parametrize("defines", [[], ["N=120", "TSTEPS=10"]])
def test_below_the_work_test_the_nest_runs_as_written(tmp_path, defines):
    """The suite's jacobi_2d with the profitability guard on: its work test (over the kernel's
    parameters) chooses, before the nest, between the wavefront tiles and the nest as written.
    At the default N = 40, TSTEPS = 6 (17,328 iterations, below the test) the tiles ran one after
    the other, each row with bounds of its own: 2.2 times the serial build's instructions
    (0.60x); now the nest as written runs. At N = 120 the tiles run. Outputs as the original's."""
    program = CORPUS / "suite" / "jacobi_2d.c"
    diff = prepare(program, tmp_path, defines=defines, min_parallel_work=40_000)
    lifted = diff.lifted.read_text()
    kernel = lifted[lifted.index("static void kernel_jacobi_2d"):lifted.index("int main")]
    head = "    if (2L * (long)((tsteps - 1) - (0) + 1) * (long)((n - 1 - 1) - (1) + 1) * (long)((n - 1 - 1) - (1) + 1)" \
        " > 40000L) { /* lift: loop nest restructured for locality"
    written = program.read_text()
    nest = written[written.index("    for (t = 0; t < tsteps; t++) {"):written.index("#pragma endscop")]
    assert head in kernel and "    } else {\n" + "\n".join("    " + line if line else line
                                                       for line in nest.rstrip().split("\n")) in kernel, kernel
    for threads in (1, 2):
        diff.check(threads)
