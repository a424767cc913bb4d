"""Triangular bands, generated: loops whose bounds use outer loops of the band, in the shapes of the
suite's symmetric and triangular kernels (syrk's `j <= i`, correlation's `j = i + 1`, trmm's
`k = i + 1`, bounds that shrink or grow with two loops), tiled with small odd sizes so that blocks
are cut at every border, and run against the original at 1, 2 and 8 threads. Each program asserts
that lift tiled its band (others are discarded, and hypothesis fails the test when too many are:
a generator whose programs tiling declines would test nothing). The caches are made tiny
(LIFT_CACHE_DIR), so that reuse in these small arrays reaches past them as it does at full size."""
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from lifter.transform.tiling import CACHE_DIR_ENV
from tests.caches import write_caches
from tests.harness import have_gcc, prepare

N = 23


def _bound(draw, outer: list[str], upper: bool) -> str:
    """An affine bound over `n` and the loops outside (each variable at most once)."""
    if not outer or draw(st.booleans()) and not upper:
        return draw(st.sampled_from(["0", "1"])) if not upper else draw(st.sampled_from(["n", "n - 1", "n - 2"]))
    var = draw(st.sampled_from(outer))
    if upper:
        return draw(st.sampled_from([f"{var} + 1", f"{var} + 2", f"n - {var}", "n"]))
    return draw(st.sampled_from([var, f"{var} + 1"]))


@st.composite
def triangular_programs(draw) -> str:
    names = draw(st.permutations(["i", "j", "k"]))
    headers, outer = [], []
    for depth, var in enumerate(names):
        lower, upper = _bound(draw, outer, False), _bound(draw, outer, True)
        headers.append(f"{'  ' * (depth + 1)}for (int {var} = {lower}; {var} < {upper}; {var}++)")
        outer.append(var)
    statement = draw(st.sampled_from([
        "C[i][j] += A[i][k] * B[k][j];",
        "C[i][j] += A[k][i] * A[k][j];",
        "C[i][j] = C[i][j] + A[i][k] * B[j][k];",
    ]))
    nest = "\n".join(headers) + f"\n{'  ' * 4}{statement}"
    return f"""#include <stdio.h>
#define N {N}
static double A[N + 2][N + 2], B[N + 2][N + 2], C[N + 2][N + 2];
static void kernel(int n) {{
{nest}
}}
int main(void) {{
  for (int i = 0; i < N + 2; i++)
    for (int j = 0; j < N + 2; j++) {{ A[i][j] = (i + 2 * j) % 9 - 4; B[i][j] = (3 * i + j) % 5; C[i][j] = (i * j) % 3; }}
  kernel(N);
  double s = 0;
  for (int i = 0; i < N + 2; i++)
    for (int j = 0; j < N + 2; j++) s += C[i][j] * (1 + (i * N + j) % 7);
  printf("C: %.10e\\n", s);
  return 0;
}}
"""


@pytest.fixture
def tiny_caches(tmp_path_factory, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, str(write_caches(tmp_path_factory.mktemp("caches"))))


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=triangular_programs(), sizes=st.sampled_from([(3, 5, 2), (4, 3, 7), (5,)]))
def test_tiled_triangular_bands_compute_the_same(tmp_path: Path, tiny_caches, text: str, sizes: tuple[int, ...]):
    src = tmp_path / "tri.c"
    src.write_text(text)
    diff = prepare(src, tmp_path, tile_sizes=sizes)
    assume("_t +=" in diff.lifted.read_text())
    for threads in (1, 2, 8):
        diff.check(threads)
