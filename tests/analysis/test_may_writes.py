"""Writes inside code that may not run (an opaque loop's body, a branch inside an
opaque statement, a short-circuit operand) are may-writes: they do not kill."""
from lifter import LiftOptions, lift_source


def _loops(text):
    return {(e["line"], e["var"]): e for e in lift_source(text, "m.c", LiftOptions(min_parallel_work=0)).loops}


# With a[i] == a[i+1] the inner loop runs no iteration and c[i] reads the t of an
# earlier row: t is not private (private(t) would read an uninitialised copy).
EMPTY_ROW = """
void f(int n, const int *restrict a, const double *restrict x, double *restrict c) {
  double t = 0.0;
  for (int i = 0; i < n; i++) {
    for (int k = a[i]; k < a[i + 1]; k++)
      t = x[k];
    c[i] = t;
  }
}
"""

WHILE_ROW = """
void f(int n, const int *restrict a, const double *restrict x, double *restrict c) {
  double t = 0.0;
  for (int i = 0; i < n; i++) {
    int k = a[i];
    while (k < a[i + 1]) { t = x[k]; k++; }
    c[i] = t;
  }
}
"""

SHORT_CIRCUIT = """
void f(int n, const int *restrict a, double *restrict c) {
  double t = 0.0;
  for (int i = 0; i < n; i++) {
    a[i] > 0 && (t = a[i]);
    c[i] = t;
  }
}
"""

# Written before the opaque loop in every row: private again.
RESET_ROW = """
void f(int n, const int *restrict a, const double *restrict x, double *restrict c) {
  double t;
  for (int i = 0; i < n; i++) {
    t = 0.0;
    for (int k = a[i]; k < a[i + 1]; k++)
      t = x[k];
    c[i] = t;
  }
}
"""


def test_opaque_loop_body_does_not_kill():
    assert not _loops(EMPTY_ROW)[(4, "i")]["parallel"]


def test_while_body_does_not_kill():
    assert not _loops(WHILE_ROW)[(4, "i")]["parallel"]


def test_short_circuit_operand_does_not_kill():
    assert not _loops(SHORT_CIRCUIT)[(4, "i")]["parallel"]


def test_value_set_in_every_row_is_private():
    i = _loops(RESET_ROW)[(4, "i")]
    assert i["parallel"] and i["private"] == ["t"]
