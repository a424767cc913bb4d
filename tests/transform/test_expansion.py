"""Scalar expansion: a block-local scalar no longer freezes a nest where interchange is legal and pays."""
from pathlib import Path

from lifter import LiftOptions, lift_source
from lifter.graph.validate import validate
from tests.harness import CORPUS, prepare

# Column sums: `s` lives in j's body, the inner loop walks a column.
COLUMNS = """#include <stdio.h>
#define N 70
#define M 300
static double A[N][M], out[M];
static void kernel(int n, int m) {
  for (int j = 0; j < m; j++) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
      s += A[i][j] * (i + 1);
    out[j] = s;
  }
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) A[i][j] = (i * 7 + j) % 11;
  kernel(N, M);
  double t = 0;
  for (int j = 0; j < M; j++) t += out[j] * (1 + j % 5);
  printf("%.10e\\n", t);
  return 0;
}
"""

# The same walk, but B[i - 1][j + 1] is read before column j + 1 writes it:
# rows first would read the new value, so the interchange is illegal.
ILLEGAL = """#include <stdio.h>
#define N 60
static double B[N][N];
static void kernel(int n) {
  for (int j = 0; j < n - 1; j++) {
    double s = 0.0;
    for (int i = 1; i < n; i++) {
      s += B[i - 1][j + 1];
      B[i][j] = s * 0.5;
    }
  }
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) B[i][j] = (i + 3 * j) % 7;
  kernel(N);
  double t = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) t += B[i][j] * (1 + (i + j) % 3);
  printf("%.10e\\n", t);
  return 0;
}
"""

# Rows: the walk is already unit stride, so expansion would cost memory for nothing.
ROWS = COLUMNS.replace("s += A[i][j] * (i + 1);", "s += A[j % N][i] * (i + 1);")


def _kernel(output: str) -> str:
    return output[output.index("static void kernel"):output.index("int main")]


def test_column_walk_is_expanded_and_interchanged():
    result = lift_source(COLUMNS, "c.c")
    body = _kernel(result.output)
    assert "double s_x[256];" in body and "s_x[j - j_t] += A[i][j] * (i + 1);" in body
    assert body.index("for (int i = 0") < body.index("s_x[j - j_t] += ")
    entry = next(e for e in result.loops if e["var"] == "j" and e["line"] == 6)
    assert "scalar expansion" in entry["transformations"] and "interchange" in entry["transformations"]
    for g in result.graphs:
        validate(g)


def test_expansion_is_dropped_where_interchange_is_illegal_or_useless():
    for text in (ILLEGAL, ROWS):
        result = lift_source(text, "c.c")
        assert "s_x" not in result.output
        assert all("scalar expansion" not in e["transformations"] for e in result.loops)


def test_expansion_only_at_O2():
    assert "s_x" not in lift_source(COLUMNS, "c.c", LiftOptions(opt_level=1)).output


def test_expanded_programs_compute_the_same(tmp_path):
    for name, text in (("columns", COLUMNS), ("illegal", ILLEGAL)):
        src = tmp_path / f"{name}.c"
        src.write_text(text)
        diff = prepare(Path(src), tmp_path)
        for threads in (1, 2, 8):
            diff.check(threads)


def test_expanded_corpus_kernels_compute_the_same(tmp_path):
    # Sizes above the strip (256) with a remainder, so several strips run.
    for kernel, defines in (("datamining/correlation.c", ["N=40", "M=300"]),
                            ("linalg/two_mm.c", ["NI=20", "NJ=270", "NK=30", "NL=20"])):
        diff = prepare(CORPUS / kernel, tmp_path, defines=defines)
        assert "_x[256];" in diff.lifted.read_text()
        for threads in (1, 2, 8):
            diff.check(threads)


def test_buffer_and_strip_names_do_not_capture_the_programs_names(tmp_path):
    text = COLUMNS.replace("static double A[N][M], out[M];", "static double A[N][M], out[M], s_x = 2.0;") \
        .replace("out[j] = s;", "out[j] = s * s_x;").replace("for (int i = 0; i < n; i++)\n      s +=",
                                                              "for (int i = 0; i < n; i++)\n      s += 0 * j_t +")
    text = text.replace("static void kernel(int n, int m) {", "static void kernel(int n, int m) {\n  int j_t = 1;")
    result = lift_source(text, "c.c")
    body = _kernel(result.output)
    assert "double s_x2[256];" in body and "j_t2" in body and "out[j] = s_x2[j - j_t2] * s_x;" in body
    src = tmp_path / "names.c"
    src.write_text(text)
    diff = prepare(Path(src), tmp_path)
    for threads in (1, 2, 8):
        diff.check(threads)


def test_small_constant_window_is_not_expanded(tmp_path):
    # conv2d's 3x3 window: the C compiler unrolls a and b whole and keeps `acc` in a register;
    # expanding it would turn each tap into a pass over a buffer (measured 1.5x slower).
    diff = prepare(CORPUS / "stencils/conv2d.c", tmp_path, defines=["N=40", "REPS=3"])
    text = diff.lifted.read_text()
    assert "acc_x" not in text and "double acc = 0.0;" in text
    for threads in (1, 2, 8):
        diff.check(threads)
    # A window longer than that still expands (the compiler keeps its loop).
    wide = lift_source(COLUMNS.replace("for (int i = 0; i < n; i++)", "for (int i = 0; i < 17; i++)"), "c.c")
    assert "s_x" in wide.output


# symm's form: `s` is a local of the function, assigned first thing in every iteration of j,
# used only inside j and not read after the nest: expanded as if j's body declared it.
ASSIGNED = COLUMNS.replace("static void kernel(int n, int m) {\n  for (int j = 0; j < m; j++) {\n    double s = 0.0;",
                           "static void kernel(int n, int m) {\n  double s;\n  for (int j = 0; j < m; j++) {\n"
                           "    s = 0.0;")
# ... read after the nest (its last value is the program's): stays.
LIVE_AFTER = ASSIGNED.replace("    out[j] = s;\n  }\n}", "    out[j] = s;\n  }\n  out[0] += s;\n}")
# ... carried from the iteration before (`s = s * 0.5`), or assigned only under a condition: stays.
CARRIED = ASSIGNED.replace("    s = 0.0;", "    s = s * 0.5;").replace("  double s;", "  double s = 1.0;")
CONDITIONAL = ASSIGNED.replace("    s = 0.0;", "    if (j % 3) s = 0.0;").replace("  double s;", "  double s = 1.0;")


def test_assigned_function_scalar_is_expanded_only_where_each_iteration_starts_it(tmp_path):
    body = _kernel(lift_source(ASSIGNED, "a.c").output)
    assert "double s_x[256];" in body and "(void)&s;" in body and "s_x[j - j_t] = 0.0;" in body
    assert body.index("for (int i = 0") < body.index("s_x[j - j_t] += ")
    for text in (LIVE_AFTER, CARRIED, CONDITIONAL):
        assert "s_x" not in lift_source(text, "a.c").output
    for name, text in (("assigned", ASSIGNED), ("live", LIVE_AFTER), ("carried", CARRIED), ("cond", CONDITIONAL)):
        diff = prepare(_write_program(tmp_path, name, text), tmp_path)
        for threads in (1, 2, 8):
            diff.check(threads)


def _write_program(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.c"
    path.write_text(text)
    return path


BOUNDED = """#include <stdio.h>
#define N 3000
static int keys[N];
static long bounded(long n, const int *k)
{
  /* `m` bounds the inner loop: expanding it into m_x[] would leave the header naming a
     scalar no longer declared (the output did not compile) */
  long total = 0;
  for (int t = 0; t < 5; t++) {
    long m = n - t;
    long below = 0;
    for (long i = 0; i < m; i++)
      below += k[i] < 500;
    total += below;
  }
  return total;
}
int main(void) {
  for (int i = 0; i < N; i++) keys[i] = (i * 37) % 1000;
  printf("%ld\\n", bounded(N, keys));
  return 0;
}
"""


def test_a_scalar_that_bounds_an_inner_loop_is_not_expanded(tmp_path):
    out = lift_source(BOUNDED, "bounded.c", LiftOptions()).output
    assert "m_x[t" not in out and "long m = n - t;" in out
    source = tmp_path / "bounded.c"
    source.write_text(BOUNDED)
    diff = prepare(source, tmp_path)  # builds the output with -Wall -Werror
    for threads in (1, 2, 8):
        diff.check(threads)
