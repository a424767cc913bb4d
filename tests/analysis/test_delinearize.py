"""Delinearization: flat buffers indexed i*n + j are analysed as two-dimensional arrays,
only where the inner index provably stays inside its row."""
from lifter import LiftOptions, lift_source

ROWS = """
void scale(int n, int m, double *restrict a, const double *restrict b) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i * m + j] = 2.0 * b[i * m + j];
}
"""

# j runs to m inclusive: a[i*m + m] is a[(i+1)*m + 0], the next row's first element,
# which iteration i+1 also writes; so the i loop must stay sequential.
OVERRUN = """
void shift(int n, int m, double *restrict a, const double *restrict b) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= m; j++)
      a[i * m + j] = b[i] * j;
}
"""

THREE_D = """
void heat(int nx, int ny, int nz, double *restrict u, const double *restrict v) {
  for (int i = 1; i < nx - 1; i++)
    for (int j = 1; j < ny - 1; j++)
      for (int k = 1; k < nz - 1; k++)
        u[(i * ny + j) * nz + k] = v[((i - 1) * ny + j) * nz + k] + v[((i + 1) * ny + j) * nz + k]
                                 + v[(i * ny + j - 1) * nz + k] + v[(i * ny + j) * nz + k + 1];
}
"""


def _loops(text):
    return {(e["line"], e["var"]): e for e in lift_source(text, "d.c", LiftOptions(min_parallel_work=0)).loops}


def test_row_major_buffer_is_parallel():
    loops = _loops(ROWS)
    assert loops[(3, "i")]["parallel"] and loops[(3, "i")]["parallelized"]


def test_index_past_the_row_is_not_delinearized():
    loops = _loops(OVERRUN)
    assert not loops[(3, "i")]["parallel"]


def test_three_dimensional_buffer():
    loops = _loops(THREE_D)
    assert loops[(3, "i")]["parallelized"]


def test_graph_shows_two_dimensions():
    (g,) = lift_source(ROWS, "d.c").graphs
    nodes = [d["node"] for _, d in g.nodes(data=True) if getattr(d["node"], "name", None) == "a"]
    assert nodes and nodes[0].ndim == 2 and nodes[0].strides == ["m", "1"]


PARTICLES = """
typedef struct { double x, y, fx, fy; } particle_t;
void forces(int n, particle_t *p) {
  for (int i = 0; i < n; i++) {
    double fx = 0.0;
    for (int j = 0; j < n; j++) {
      if (j == i)
        continue;
      fx += p[j].x - p[i].x;
    }
    p[i].fx = fx;
  }
}
"""

# The same, but one statement writes whole elements: fields are no longer separate.
WHOLE = PARTICLES.replace("p[i].fx = fx;", "p[i].fx = fx; p[(i + 1) % n] = p[i];")


def test_fields_of_an_array_of_structs_are_separate():
    loops = _loops(PARTICLES)
    assert loops[(4, "i")]["parallel"], loops[(4, "i")]["reason"]
    assert loops[(6, "j")]["reduction"] == [{"variable": "fx", "operator": "+"}]


def test_whole_element_access_turns_field_sensitivity_off():
    assert not _loops(WHOLE)[(4, "i")]["parallel"]


HELPER = """
static inline long at(int i, int j, int n) { return (long)i * n + j; }
void blur(int n, const double *restrict in, double *restrict out) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      out[at(i, j, n)] = in[at(i - 1, j, n)] + in[at(i, j + 1, n)];
}
"""

# j + 1 reaches n: at(i, n, n) is at(i + 1, 0, n), which iteration i + 1 writes.
HELPER_OVERRUN = """
static inline long at(int i, int j, int n) { return (long)i * n + j; }
void shift(int n, double *restrict a) {
  for (int i = 0; i < n - 1; i++)
    for (int j = 0; j < n; j++)
      a[at(i, j + 1, n)] = a[at(i, j, n)];
}
"""

# A char parameter wraps the index around: the helper is not the expression it returns.
HELPER_NARROW = """
static inline long at(int i, unsigned char j, int n) { return (long)i * n + j; }
void scale(int n, double *restrict a) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      a[at(i, j, n)] = 1.0 * i;
}
"""


def test_index_helper_is_inlined_and_delinearized():
    loops = _loops(HELPER)
    assert loops[(4, "i")]["parallel"] and loops[(4, "i")]["parallelized"]


def test_index_helper_past_the_row_stays_sequential():
    assert not _loops(HELPER_OVERRUN)[(4, "i")]["parallel"]


def test_index_helper_with_a_narrow_parameter_is_not_inlined():
    assert not _loops(HELPER_NARROW)[(4, "i")]["parallel"]


FIELDS = """
typedef struct { int k, dim; double *cent, *sums; long *count; } km_t;
void update(km_t *km, int k, int dim) {
  for (int c = 0; c < k; c++)
    if (km->count[c] > 0)
      for (int d = 0; d < dim; d++)
        km->cent[c * dim + d] = km->sums[c * dim + d] / km->count[c];
}
"""

# The field is also used as a pointer (`km->cent + 1`): not a flat buffer of known shape.
FIELD_OTHER_USE = """
typedef struct { int k, dim; double *cent, *sums; } km_t;
void update(km_t *km, int k, int dim, double **out) {
  for (int c = 0; c < k; c++) {
    for (int d = 0; d < dim; d++)
      km->cent[c * dim + d] = km->sums[c * dim + d];
    out[c] = km->cent + 1;
  }
}
"""

# A row index loaded from memory: the d loop still writes distinct columns.
LOADED_ROW = """
void scatter(int n, int dim, const int *restrict which, double *restrict sums, const double *restrict x) {
  for (int i = 0; i < n; i++) {
    int c = which[i];
    for (int d = 0; d < dim; d++)
      sums[c * dim + d] += x[i * dim + d];
  }
}
"""

# ... but not when the loaded value is in the column: the columns may collide.
LOADED_COLUMN = """
void scatter(int n, int dim, const int *restrict which, double *restrict sums, const double *restrict x) {
  for (int i = 0; i < n; i++) {
    int c = which[i];
    for (int d = 0; d < dim; d++)
      sums[d * dim + c] = x[i * dim + d];
  }
}
"""


def test_struct_field_buffers_are_delinearized():
    loops = _loops(FIELDS)
    assert loops[(4, "c")]["parallel"] and loops[(6, "d")]["parallel"]


def test_struct_field_used_as_a_pointer_is_not_delinearized():
    assert not _loops(FIELD_OTHER_USE)[(5, "d")]["parallel"]


def test_loaded_outer_index_keeps_the_columns():
    d = _loops(LOADED_ROW)[(5, "d")]
    assert d["parallel"] and not d["reduction"]


def test_loaded_inner_index_is_any_element():
    assert not _loops(LOADED_COLUMN)[(5, "d")]["parallel"]


# 010 is octal in C: eight components per cell, and c runs to 9, so the last cell of row j spills
# into the first of row j + 1. Read as ten (decimal), the cells would not overlap and the j loop
# would run in parallel, racing on those elements.
OCTAL_FACTOR = """
void spill(int ny, int nx, double *q) {
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++)
      for (int c = 0; c < 10; c++)
        q[010 * (j * nx + i) + c] = q[010 * (j * nx + i) + c] * 0.5 + c;
}
"""


def test_an_octal_factor_is_not_read_as_decimal():
    loops = _loops(OCTAL_FACTOR)
    assert not loops[(3, "j")]["parallel"] and not loops[(4, "i")]["parallel"], [e["remark"] for e in loops.values()]
    # one cell's ten components are ten elements, the last two the next cell's first (reach17)
    assert loops[(5, "c")]["parallel"], loops[(5, "c")]["remark"]


def test_a_factor_of_thousands_of_digits_is_no_stride():
    """A constant too long for Python to read as a number (its default limit is 4,300 digits)
    leaves the subscript to the affine translator, which reports it; no traceback."""
    text = ("double a[10];\nvoid f(int n, int m) { for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) "
            "a[j % 10 + 0 * " + "9" * 5000 + "] = 1; }\n")
    assert _loops(text)
