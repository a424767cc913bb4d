"""More idioms of real applications (issue 16, second round): each program is written the way
application code is, lifted with the profitability guard off, checked for its verdicts (the
unsafe variants stay sequential, with the reason) and run against the original at 1, 2 and 8
threads, with inputs that make every run-time test fail as well as pass."""
from __future__ import annotations

import pytest

from tests.harness import check_program, have_gcc, loops_by_function

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

PROGRAMS: dict[str, str] = {}

# -- an output pointer accumulated in the loop (item 1) ---------------------------------------
PROGRAMS["out_pointer"] = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void dot(int n, const double *x, const double *y, double *result)
{
    *result = 0;
    for (int i = 0; i < n; i++)
        *result += x[i] * y[i];
}

void norm(int n, const double *x, double *out)
{
    *out = 0;
    for (int i = 0; i < n; i++)
        *out = *out + x[i] * x[i];
    *out = sqrt(*out);
}

void lowest(int n, const int *v, int *m)
{
    for (int i = 0; i < n; i++)
        if (v[i] < *m)
            *m = v[i];
}

/* NEGATIVE: the update reads the target twice (not `x op= e`). */
void doubling(int n, const double *x, double *acc)
{
    for (int i = 0; i < n; i++)
        *acc = *acc * 0.5 + *acc * x[i];
}

/* NEGATIVE: a scan, each element gets the running value. */
void running(int n, double *x, double *acc)
{
    for (int i = 0; i < n; i++) {
        *acc += x[i];
        x[i] = *acc;
    }
}

int main(void)
{
    int n = 5000;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    int *v = malloc(n * sizeof *v);
    double r, q, a = 1.0, s = 0.0;
    int m = 1 << 30;
    for (int i = 0; i < n; i++) {
        x[i] = (double)((i * 7) % 11) / 11.0;
        y[i] = (double)((i * 3) % 5) - 2.0;
        v[i] = (i * 37) % 1001 - 300;
    }
    dot(n, x, y, &r);
    norm(n, x, &q);
    lowest(n, v, &m);
    doubling(n, x, &a);
    printf("%.12g %.12g %d %.12g\n", r, q, m, a);
    /* The results land inside the arrays the loops read: the run-time tests fail. */
    dot(n, x, y, &x[n / 2]);
    norm(n, y, &y[7]);
    lowest(n, v, &v[n - 1]);
    running(n, y, &s);
    printf("%.12g %.12g %d %.12g\n", x[n / 2], y[7], v[n - 1], s + y[n / 3]);
    free(x); free(y); free(v);
    return 0;
}
"""


def test_accumulators_behind_output_pointers_are_reductions():
    loops = loops_by_function(PROGRAMS["out_pointer"])
    for name, target, op in (("dot", "result", "+"), ("norm", "out", "+"), ("lowest", "m", "min")):
        loop = loops[name][0]
        assert loop["parallelized"], (name, loop["reason"])
        assert loop["reduction"] == [{"variable": target, "operator": op}], (name, loop["reduction"])
        assert f"&{target}[0] + 1 <= &" in loop["remark"], loop["remark"]  # the run-time test
    for name in ("doubling", "running"):
        assert not loops[name][0]["parallelized"]
        assert "dependence on acc" in loops[name][0]["reason"], loops[name][0]["reason"]


# -- interleaved components (item 2) ----------------------------------------------------------
PROGRAMS["interleaved"] = r"""
#include <stdio.h>
#include <stdlib.h>

void scale(int nx, int ny, double *x, const double *w)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            for (int c = 0; c < 4; c++)
                x[4*(j*nx+i)+c] = x[4*(j*nx+i)+c] * w[c];
}

void pairs(int nx, int ny, double *x, const double *y)
{
    for (int j = 1; j < ny - 1; j++)
        for (int i = 0; i < nx; i++)
            for (int c = 0; c < 2; c++)
                x[(j*nx+i)*2+c] = y[2*((j-1)*nx+i)+c] + y[2*((j+1)*nx+i)+c];
}

void written_out(int nx, int ny, double *x)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            x[3*(j*nx+i)] *= 0.5;
            x[3*(j*nx+i)+1] *= 0.25;
            x[3*(j*nx+i)+2] = x[3*(j*nx+i)] + x[3*(j*nx+i)+1];
        }
}

/* NEGATIVE: component c + 1 of the last component is the next cell's first. */
void spill(int nx, int ny, double *x)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            for (int c = 0; c < 3; c++)
                x[3*(j*nx+i)+c+1] += x[3*(j*nx+i)+c];
}

int main(void)
{
    int nx = 37, ny = 23;
    double *x = malloc(4 * nx * ny * sizeof *x + sizeof *x), *y = malloc(4 * nx * ny * sizeof *y);
    double w[4] = {1.0, 0.5, 0.25, 2.0};
    for (int k = 0; k < 4 * nx * ny; k++) { x[k] = k % 5; y[k] = (k * 3) % 7; }
    x[4 * nx * ny] = 0;
    scale(nx, ny, x, w);
    pairs(nx, ny, y + 2 * nx * ny, y);
    written_out(nx, ny, x);
    spill(nx, ny, x);
    /* The weights are the grid's first cell, the output overlaps the input: tests fail. */
    scale(nx, ny, x, x + 1);
    pairs(nx, ny, y + 1, y);
    double s = 0;
    for (int k = 0; k < 4 * nx * ny; k++) s += (x[k] + 3 * y[k]) * (1 + k % 7);
    printf("%.17g\n", s);
    free(x); free(y);
    return 0;
}
"""


def test_interleaved_components_are_disjoint():
    loops = loops_by_function(PROGRAMS["interleaved"])
    for name in ("scale", "pairs", "written_out"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    assert not any(e["parallel"] for e in loops["spill"])
    assert "dependence on x" in loops["spill"][0]["reason"], loops["spill"][0]["reason"]


# -- pointer induction (item 3) ---------------------------------------------------------------
PROGRAMS["pointer_steps"] = r"""
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

void fill(int n, double *a, int off)
{
    double *p = a + off;
    for (int i = 0; i < n; i++)
        *p++ = 0.5 * i;
}

void copy(int n, double *dst, const double *src)
{
    for (int i = 0; i < n; i++)
        *dst++ = *src++;
}

void scale(int n, double *d, const double *s, double k)
{
    while (n--)
        *d++ = *s++ * k;
}

void add_from_one(size_t n, double *d, const double *s)
{
    size_t i;
    for (i = 1; i <= n; i++)
        *(d++) += 2.0 * *(s++);
}

void shift(size_t n, float *d, const float *s)
{
    while (n-- > 0) {
        float v = *s++;
        *d++ = v + 1.0f;
    }
}

/* NEGATIVE: a compaction, the pointer steps only where the test holds. */
int keep_positive(int n, const double *x, double *out)
{
    double *p = out;
    for (int i = 0; i < n; i++)
        if (x[i] > 0)
            *p++ = x[i];
    return (int)(p - out);
}

/* The pointer is read after the loop. */
double *append(int n, double *p, double v)
{
    for (int i = 0; i < n; i++)
        *p++ = v;
    return p;
}

/* NEGATIVE: the pointer carries on from one row to the next. */
void rows(int m, int n, double *out)
{
    double *p = out;
    for (int r = 0; r < m; r++)
        for (int i = 0; i < n; i++)
            *p++ = r + 0.25 * i;
}

int main(void)
{
    int n = 3000;
    double *a = calloc(2 * n + 8, sizeof *a), *b = calloc(2 * n + 8, sizeof *b);
    float *f = calloc(n + 1, sizeof *f), *g = calloc(n + 1, sizeof *g);
    for (int i = 0; i < n; i++) f[i] = (float)(i % 11);
    fill(n, a, 3);
    copy(n, b, a);
    scale(n, a + n, b, 3.0);
    add_from_one((size_t)n, b + 2, a);
    shift((size_t)n, g, f);
    int kept = keep_positive(n, b, a);
    double *end = append(5, a + n, -1.0);
    rows(7, 11, b + 100);
    /* Overlapping source and destination: the run-time tests fail, the loops run as written. */
    copy(n, a + 1, a);
    scale(n, b, b + 2, 0.5);
    shift((size_t)n, f + 1, f);
    double s = kept + (double)(end - a);
    for (int i = 0; i < 2 * n + 8; i++) s += (a[i] + 2 * b[i]) * (1 + i % 7);
    for (int i = 0; i < n + 1; i++) s += (f[i] + g[i]) * (1 + i % 5);
    printf("%.17g\n", s);
    free(a); free(b); free(f); free(g);
    return 0;
}
"""


def test_stepped_pointers_are_read_as_indices():
    from lifter import LiftOptions, lift_source

    result = lift_source(PROGRAMS["pointer_steps"], "test.c", LiftOptions(target="openmp", min_parallel_work=0))
    loops = {}
    for e in result.loops:
        loops.setdefault(e["function"], []).append(e)
    for name in ("fill", "copy", "scale", "add_from_one", "shift"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    assert "p[i] = 0.5 * i;" in result.output and "dst[i] = src[i];" in result.output
    assert "for (int lift_k = 0; lift_k < n; lift_k++)" in result.output
    assert "*(d[i - 1]) += 2.0 * *(s[i - 1])" not in result.output and "d[i - 1] += 2.0 * s[i - 1];" in result.output
    assert "for (size_t lift_k = 0; lift_k < n; lift_k++)" in result.output
    assert not loops["keep_positive"][0]["parallel"], loops["keep_positive"][0]["reason"]
    # read after the loop: stepped past it there (reach17)
    assert loops["append"][0]["parallelized"], loops["append"][0]["reason"]
    assert "p[i] = v; p += (n > 0 ? n : 0);" in result.output
    assert not any(e["parallel"] for e in loops["rows"]), [e["reason"] for e in loops["rows"]]
    assert "*p++ = r + 0.25 * i;" in result.output  # left as written


# -- sizes used as indices (item 5) -----------------------------------------------------------
PROGRAMS["padded_rows"] = r"""
#include <stdio.h>
#include <stdlib.h>

/* Ghost rows of a grid of (ny + 2) rows of (nx + 2): the sizes are row indices. */
void ghost_rows(int nx, int ny, double *u)
{
    for (int i = 0; i < nx + 2; i++) {
        u[i] = u[(nx + 2) + i];
        u[(ny + 1) * (nx + 2) + i] = u[ny * (nx + 2) + i];
    }
}

void last_rows(int nx, int ny, const double *u, double *out)
{
    for (int i = 0; i < nx + 2; i++)
        out[(ny + 1) * (nx + 2) + i] = 0.5 * (u[(ny + 1) * (nx + 2) + i] + u[ny * (nx + 2) + i]);
}

/* The ghost columns: nx is a column index, and nx + 1 stays in the row only where nx >= 0. */
void ghost_columns(int nx, int ny, double *u)
{
    for (int j = 1; j <= ny; j++) {
        u[j * (nx + 2)] = u[j * (nx + 2) + 1];
        u[j * (nx + 2) + nx + 1] = u[j * (nx + 2) + nx];
    }
}

/* NEGATIVE: the last row is copied into the row above the first, read by the next i. */
void wrap(int nx, int ny, double *u)
{
    for (int i = 0; i < nx + 1; i++)
        u[(ny + 1) * (nx + 2) + i + 1] = u[(ny + 1) * (nx + 2) + i] + u[ny * (nx + 2) + i];
}

int main(void)
{
    int nx = 41, ny = 17;
    double *u = malloc((nx + 2) * (ny + 2) * sizeof *u), *v = malloc((nx + 2) * (ny + 2) * sizeof *v);
    for (int k = 0; k < (nx + 2) * (ny + 2); k++) { u[k] = k % 13; v[k] = 0; }
    ghost_rows(nx, ny, u);
    last_rows(nx, ny, u, v);
    wrap(nx, ny, u);
    ghost_columns(nx, ny, u);
    /* No interior column (a negative nx): the run-time test of the sizes fails. */
    ghost_columns(-1, ny, u + 5);
    /* Zero rows: the ghost rows are the same memory as the interior's neighbours. */
    ghost_rows(nx, 0, u + 3);
    last_rows(nx, 0, u, u + 1);
    double s = 0;
    for (int k = 0; k < (nx + 2) * (ny + 2); k++) s += (u[k] + 2 * v[k]) * (1 + k % 7);
    printf("%.17g\n", s);
    free(u); free(v);
    return 0;
}
"""


def test_sizes_used_as_row_and_column_indices():
    loops = loops_by_function(PROGRAMS["padded_rows"])
    for name in ("ghost_rows", "last_rows"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    columns = loops["ghost_columns"][0]
    assert columns["parallelized"], columns["reason"]
    assert columns["condition"] == "nx >= 0", columns["condition"]
    assert not loops["wrap"][0]["parallel"]
    assert "dependence on u" in loops["wrap"][0]["reason"], loops["wrap"][0]["reason"]


# -- rows through an array of row pointers (item 4) --------------------------------------------
PROGRAMS["row_pointers"] = r"""
#include <stdio.h>
#include <stdlib.h>

typedef struct { int n, m; double **rows; } Mat;

void fill(int n, int m, double **rows)
{
    for (int i = 0; i < n; i++) {
        double *r = rows[i];
        for (int j = 0; j < m; j++)
            r[j] = i * 0.5 + j;
    }
}

void row_sums(int n, int m, double **rows, double *out)
{
    for (int i = 0; i < n; i++) {
        const double *r = rows[i];
        double s = 0;
        for (int j = 0; j < m; j++)
            s += r[j];
        out[i] = s;
    }
}

/* NEGATIVE: the rows of a field are loaded pointers no test before the loop names. */
void scale_field(Mat *a, double s)
{
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < a->m; j++)
            a->rows[i][j] *= s;
}

/* NEGATIVE: the row pointer is moved, so it names no one row. */
void skip(int n, int m, double **rows)
{
    for (int i = 0; i < n; i++) {
        double *r = rows[i];
        r++;
        for (int j = 0; j < m - 1; j++)
            r[j] += 1.0;
    }
}

int main(void)
{
    int n = 60, m = 40;
    double *block = malloc(n * m * sizeof *block), *out = malloc(n * sizeof *out);
    double **rows = malloc(n * sizeof *rows), **window = malloc(n * sizeof *window);
    for (int i = 0; i < n; i++) { rows[i] = block + i * m; window[i] = block + i % 3; }
    Mat a = {n, m, rows};
    fill(n, m, rows);
    scale_field(&a, 0.5);
    skip(n, m, rows);
    row_sums(n, m, rows, out);
    double s = 0;
    for (int i = 0; i < n; i++) s += out[i] * (1 + i % 5);
    /* Overlapping rows and a row of the output among them: the run-time tests fail. */
    fill(n, m - 3, window);
    a.rows = window; a.m = m - 3;
    scale_field(&a, 0.5);
    row_sums(n, m, rows, block + 7);
    for (int k = 0; k < n * m; k++) s += block[k] * (1 + k % 7);
    printf("%.17g\n", s);
    free(block); free(out); free(rows); free(window);
    return 0;
}
"""


def test_rows_through_row_pointers():
    loops = loops_by_function(PROGRAMS["row_pointers"])
    for name in ("fill", "row_sums"):
        loop = loops[name][0]
        assert loop["parallelized"], (name, loop["reason"])
        assert "lift_rows_double(rows, 0, n - 1" in loop["remark"], loop["remark"]
    # Before, a field's rows were read as a 2-D array and the loop parallelized with no test.
    assert not any(e["parallel"] for e in loops["scale_field"]), loops["scale_field"][0]["reason"]
    assert "a->rows[*]" in loops["scale_field"][0]["reason"]
    assert not loops["skip"][0]["parallel"], loops["skip"][0]["reason"]


# -- one pass over an index range for every range read through it (item 6) --------------------
PROGRAMS["gathers"] = r"""
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int ne, nn;
    int *conn;     /* 4 nodes per element */
    double *x, *y, *z;
    double *area, *mass;
} Mesh;

void measure(Mesh *m)
{
    for (int e = 0; e < m->ne; e++) {
        double sx = 0, sy = 0, sz = 0;
        for (int k = 0; k < 4; k++) {
            sx += m->x[m->conn[4 * e + k]];
            sy += m->y[m->conn[4 * e + k]];
            sz += m->z[m->conn[4 * e + k]];
        }
        m->area[e] = sx * sy;
        m->mass[e] = sz + sx;
    }
}

int main(void)
{
    int ne = 400, nn = 600;
    Mesh m = {ne, nn, malloc(4 * ne * sizeof(int)), NULL, NULL, NULL, NULL, NULL};
    double *nodes = malloc(3 * nn * sizeof(double)), *out = malloc(2 * ne * sizeof(double));
    m.x = nodes; m.y = nodes + nn; m.z = nodes + 2 * nn;
    m.area = out; m.mass = out + ne;
    for (int e = 0; e < ne; e++)
        for (int k = 0; k < 4; k++) m.conn[4 * e + k] = (e * 7 + k * 13) % nn;
    for (int i = 0; i < 3 * nn; i++) nodes[i] = (i % 17) * 0.125;
    measure(&m);
    double s = 0;
    for (int e = 0; e < 2 * ne; e++) s += out[e] * (1 + e % 5);
    /* The masses written over the z coordinates, the other ranges apart: the one pass must
       still find the overlap of that range, and the loop runs as written. */
    m.mass = m.z + 5;
    measure(&m);
    for (int i = 0; i < 3 * nn; i++) s += nodes[i] * (1 + i % 3);
    printf("%.17g\n", s);
    free(m.conn); free(nodes); free(out);
    return 0;
}
"""


def test_one_pass_over_an_index_range_for_all_its_ranges():
    loop = loops_by_function(PROGRAMS["gathers"])["measure"][0]
    assert loop["parallelized"], loop["reason"]
    # x, y and z through m->conn against area and mass: six ranges, one pass (six before)
    assert loop["condition"].count("lift_gather") == 1, loop["condition"]
    assert "lift_gathers_apart_int((const int *)(m->conn), 0L, " in loop["condition"]
    assert ", 6, (const char *)(m->x)" in loop["condition"], loop["condition"]


@needs_gcc
@pytest.mark.parametrize("threads", [1, 2, 8])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_give_identical_results(tmp_path, name, threads):
    check_program(PROGRAMS[name], f"{name}.c", tmp_path, threads)
