"""Contraction: a temporary that only carries values inside one iteration of a fused map
becomes a scalar in its body; refused when a value flows into or out of the region."""
import re
import subprocess
from pathlib import Path

from lifter import LiftOptions, lift_source
from tests.harness import prepare, write_program

PROGRAM = """#include <stdio.h>
#include <stdlib.h>
#define N 400
static double a[N], b[N], c[N][N], d[N][N], g[N];
static double sum(const double *p, int n) { double s = 0; while (n-- > 0) s += p[n]; return s; }
static void vla(int n) {
  double t1[n];
  for (int i = 0; i < n; i++)
    t1[i] = a[i] * a[i];
  for (int i = 0; i < n; i++)
    b[i] += t1[i] + 1;
}
static void heap(int n) {
  double *t2 = (double *)malloc(N * sizeof(double));
  for (int i = 0; i < n; i++)
    t2[i] = a[i] - 0.5;
  for (int i = 0; i < n; i++)
    b[i] = b[i] * 0.5 + t2[i] * t2[i];
  free(t2);
}
static void plane(int n) {
  double t3[n][n];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      t3[i][j] = c[i][j] * 2 + a[j];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      d[i][j] = t3[i][j] - c[j][i];
}
static double read_after(int n) {
  double t4[n];
  for (int i = 0; i < n; i++)
    t4[i] = a[i] + 3;
  for (int i = 0; i < n; i++)
    b[i] += t4[i];
  return t4[n / 2];
}
static void shifted(int n) {
  double t5[n + 1];
  t5[n] = 1;
  for (int i = 0; i < n; i++)
    t5[i] = a[i] * 3;
  for (int i = 0; i < n; i++)
    b[i] += t5[i + 1];
}
static double global(int n) {
  for (int i = 0; i < n; i++)
    g[i] = a[i] * 5;
  for (int i = 0; i < n; i++)
    b[i] -= g[i];
  return g[1];
}
static void param(int n, double *t6) {
  for (int i = 0; i < n; i++)
    t6[i] = a[i] * 7;
  for (int i = 0; i < n; i++)
    b[i] += t6[i];
}
static double escapes(int n) {
  double t7[n];
  for (int i = 0; i < n; i++)
    t7[i] = a[i] / 3;
  for (int i = 0; i < n; i++)
    b[i] += t7[i];
  return sum(t7, n);
}
int main(void) {
  double *t6 = malloc(N * sizeof(double));
  for (int i = 0; i < N; i++) {
    a[i] = i % 11; b[i] = i % 5;
    for (int j = 0; j < N; j++) c[i][j] = (i * j) % 7;
  }
  int n = N; /* a size known at run time: no call passes a constant (call_constants.py) */
  vla(n); heap(n); plane(n);
  double s = read_after(n);
  shifted(n); s += global(n); param(n, t6);
  s += escapes(n);
  for (int i = 0; i < N; i++) {
    s += b[i] + 2 * g[i] + 3 * t6[i];
    for (int j = 0; j < N; j++) s += d[i][j] * (1 + (i + j) % 3);
  }
  printf("%.10e\\n", s);
  free(t6);
  return 0;
}
"""


def _loops(result):
    return {(e["line"], e["var"]): e for e in result.loops}


def _function(output: str, name: str) -> str:
    start = output.index(f" {name}(int n")
    return output[start:output.index("\nstatic ", start) if "\nstatic " in output[start:] else None]


def test_temporaries_of_fused_maps_become_scalars():
    result = lift_source(PROGRAM, "c.c")
    loops = _loops(result)
    for line, var, name in ((8, "i", "t1"), (15, "i", "t2"), (24, "j", "t3")):
        assert "fusion" in loops[(line, var)]["transformations"]
        assert "contraction" in loops[(line, var)]["transformations"], name
        body = _function(result.output, {"t1": "vla", "t2": "heap", "t3": "plane"}[name])
        loop = body[body.index("#pragma omp parallel for"):]
        loop = loop[:loop.index("} else {")] if "} else {" in loop else loop  # tests of the ranges aside
        assert f"{name}[" not in loop and f"double {name}_c;" in loop
        assert re.search(rf"{name}_c = .*;\s*\n.*= .*{name}_c", loop)


def test_contraction_refused_when_values_flow_in_or_out():
    result = lift_source(PROGRAM, "c.c")
    loops = _loops(result)
    # read after the region; fusion only; parameter; escapes to a call
    for line in (32, 47, 54, 61):
        assert "fusion" in loops[(line, "i")]["transformations"], line
        assert "contraction" not in loops[(line, "i")]["transformations"], line
    # t5[i + 1] is written a later iteration: not fused, so not contracted either
    assert "fusion" not in loops[(41, "i")]["transformations"]
    assert all("contraction" not in e["transformations"] for e in result.loops if e["line"] in (41, 43))
    for name in ("read_after", "shifted", "global", "param", "escapes"):
        assert "_c;" not in _function(result.output, name), name


def test_no_fuse_no_contraction():
    result = lift_source(PROGRAM, "c.c", LiftOptions(fuse=False))
    assert all("contraction" not in e["transformations"] for e in result.loops)


def test_contracted_program_computes_the_same(tmp_path):
    src = tmp_path / "c.c"
    src.write_text(PROGRAM)
    diff = prepare(Path(src), tmp_path)
    assert "double t1_c;" in diff.lifted.read_text()
    for threads in (1, 2, 8):
        diff.check(threads)
    # also without OpenMP
    subprocess.run(["gcc", "-O3", "-Wall", "-Werror", "-Wno-unknown-pragmas", "-c", str(diff.lifted),
                    "-o", str(tmp_path / "c.o")], check=True)


MACRO_READ = """#include <stdio.h>
#include <stdlib.h>
#define N 1000
#define LAST_T (t[N - 1])

static void kernel(int n, const double *restrict a, double *restrict b, double *out)
{
    double *t = calloc(N, sizeof(double));
    for (int i = 0; i < n; i++)
        t[i] = 2.0 * a[i];
    for (int i = 0; i < n; i++)
        b[i] = t[i] + 1.0;
    *out = LAST_T;
    free(t);
}

int main(void)
{
    static double a[N], b[N];
    double out;
    for (int i = 0; i < N; i++)
        a[i] = i * 0.5;
    kernel(N, a, b, &out);
    double s = out;
    for (int i = 0; i < N; i++)
        s += b[i] * (i % 7);
    printf("%.6f\\n", s);
    return 0;
}
"""


def test_a_read_through_a_macro_after_the_region_refuses_contraction(tmp_path):
    """`LAST_T` reads t[N - 1] after the fused loop: the rule is checked on the syntax tree, where
    the macro is expanded (the token rule saw only `LAST_T`, contracted t, and the program printed
    a value calloc's zeros gave instead of 999)."""
    diff = prepare(write_program(tmp_path, "m", MACRO_READ), tmp_path)
    assert "t_c" not in diff.lifted.read_text()
    for threads in (1, 2):
        diff.check(threads)
    # the same program without the read after the loop is contracted
    result = lift_source(MACRO_READ.replace("*out = LAST_T;", "*out = 0.0;"), "m.c")
    assert "double t_c;" in result.output
