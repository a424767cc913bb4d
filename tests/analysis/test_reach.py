"""Idioms of real applications that lift parallelizes (issue 16): each program is written the
way application code is, lifted with the profitability guard off, checked for its verdicts
(the unsafe variants stay sequential, with the reason) and run against the original at 1, 2
and 8 threads."""
from __future__ import annotations

import pytest

from lifter.frontend.loop_form import canonical
from tests.harness import check_program, have_gcc, loops_by_function

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

PROGRAMS: dict[str, str] = {}

# -- parenthesized loop header parts (item 13) ------------------------------------------------
PROGRAMS["parens"] = r"""
#include <stdio.h>
#define N 1000
#define LEN (N)
static double a[N], b[N];

void scale(int n)
{
    for (int i = 0; i < (n); i++)
        a[i] = 2.0 * b[i] + i;
}

void shift(int n)
{
    for (int i = (1); (i) < n - 1; (i)++)
        b[i] = a[i - 1] + a[i + 1];
}

void stride(void)
{
    for (int i = 0; i < LEN; i += (2))
        a[i] = a[i] * 0.5 + b[i];
}

/* NEGATIVE for OpenMP (gcc rejects the pragma): a test wrapped in parentheses. */
void wrapped(int n)
{
    for (int i = 0; (i < n); i++)
        b[i] = b[i] + a[i];
}

int main(void)
{
    for (int i = 0; i < N; i++) b[i] = (i % 17) * 0.25;
    scale(N); shift(N); stride(); wrapped(N);
    double s = 0;
    for (int i = 0; i < N; i++) s += a[i] * (i % 5) + b[i] * (i % 3);
    printf("%.17g\n", s);
    return 0;
}
"""


def test_canonical_headers_follow_gcc():
    for ok in ("for (int i = 0; i < (n); i++)", "for (int i = (0); (i) < n; (i)++)",
               "for (i = 0; i < n; i += (2))", "for (i = 0; i < n; (i += 2))", "for (i = 0; i < n; ++(i))"):
        assert canonical(ok, "i"), ok
    for bad in ("for (i = 0; (i < n); i++)", "for ((i = 0); i < n; i++)", "for ((i) = 0; i < n; i++)", ""):
        assert not canonical(bad, "i"), bad


def test_parenthesized_header_parts_are_parallelized():
    loops = loops_by_function(PROGRAMS["parens"])
    for name in ("scale", "shift", "stride"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    assert not loops["wrapped"][0]["parallelized"]
    assert "canonical" in loops["wrapped"][0]["reason"]


# -- break that leaves only an inner loop (item 6) --------------------------------------------
PROGRAMS["breaks"] = r"""
#include <stdio.h>
#include <stdlib.h>
#define N 300
#define M 64
static double grid[N][M];
static int first[N], pos[N];
static double samples[N];

/* A search inside each row: the break leaves only the inner loop. */
void first_above(double limit)
{
    for (int i = 0; i < N; i++) {
        int k = -1;
        for (int j = 0; j < M; j++)
            if (grid[i][j] > limit) { k = j; break; }
        first[i] = k;
    }
}

/* The search's loop variable, declared outside, read after the inner loop. */
void position(double limit)
{
    int i, j;
    for (i = 0; i < N; i++) {
        for (j = 0; j < M; j++)
            if (grid[i][j] > limit)
                break;
        pos[i] = j;
    }
}

/* Rejection sampling: each sample retries until accepted. */
void rejection(void)
{
    for (int i = 0; i < N; i++) {
        unsigned s = 1234u + 7u * i;
        double x = 0;
        for (int t = 0; t < 100; t++) {
            s = s * 1103515245u + 12345u;
            x = (s >> 8) / 16777216.0;
            if (x * x < 0.5)
                break;
        }
        samples[i] = x;
    }
}

/* NEGATIVE: the break leaves the candidate loop itself. */
void stop_early(double limit)
{
    for (int i = 0; i < N; i++) {
        if (grid[i][0] > limit)
            break;
        grid[i][1] = grid[i][0] * 2.0;
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            grid[i][j] = ((i * 37 + j * 11) % 101) / 100.0;
    first_above(0.9); position(0.95); rejection(); stop_early(0.99);
    long s = 0; double d = 0;
    for (int i = 0; i < N; i++) { s += first[i] * (i % 7) + pos[i] * (i % 5); d += samples[i] * i + grid[i][1]; }
    printf("%ld %.17g\n", s, d);
    return 0;
}
"""


def test_a_break_of_an_inner_loop_blocks_only_that_loop():
    loops = loops_by_function(PROGRAMS["breaks"])
    for name in ("first_above", "position", "rejection"):
        outer, inner = loops[name]
        assert outer["parallelized"], (name, outer["reason"])
        assert not inner["parallel"] and inner["reason"] == "break or continue in the loop body", inner
    (stop,) = loops["stop_early"]
    assert not stop["parallel"] and "break" in stop["reason"]


# -- shifts and bit operations (item 2) -------------------------------------------------------
PROGRAMS["shifts"] = r"""
#include <stdio.h>
#define LOGB 6
#define NBINS (1 << LOGB)
#define MASK (NBINS - 1)
#define NKEYS (1 << 12)
#define NBLOCKS (NKEYS >> LOGB)
#define PAD (~(-16))
static int keys[NKEYS], digit[NKEYS], count[NBINS], table[NBINS];
static double full[NKEYS], half[NKEYS >> 1], tiled[NKEYS];

void clear_counts(void)
{
    for (int b = 0; b < NBINS; b++)
        count[b] = b & 1;
}

void digits(int shift)
{
    for (int i = 0; i < NKEYS; i++)
        digit[i] = (keys[i] >> shift) & MASK;
}

void lookup(int *out)
{
    for (int i = 0; i < NKEYS; i++)
        out[i] = table[i & MASK] + i;
}

void downsample(void)
{
    for (int i = 0; i < (NKEYS >> 1); i++)
        half[i] = full[i << 1] + full[(i << 1) + 1];
}

void blocks(void)
{
    for (int blk = 0; blk < NBLOCKS; blk++)
        for (int j = 0; j < NBINS; j++)
            tiled[(blk << LOGB) + j] = full[blk * NBINS + j] * (j ^ 5);
}

void masks(int n)
{
    for (int i = 0; i < n - PAD; i++)
        full[i] = full[i] + half[i >> 2];
}

/* NEGATIVE: the shifted value is negative in half of the iterations. */
void signed_shift(void)
{
    for (int i = -64; i < 64; i++)
        tiled[i + 64] = tiled[(i >> 1) + 128] + 1.0;
}

/* NEGATIVE: `|` of a variable is not affine. */
void or_index(void)
{
    for (int i = 0; i < NBINS; i++)
        tiled[i | 64] = tiled[i] * 0.5;
}

int main(void)
{
    for (int i = 0; i < NKEYS; i++) { keys[i] = (i * 7919) % 100003; full[i] = (i % 13) * 0.5; }
    for (int b = 0; b < NBINS; b++) table[b] = 3 * b;
    static int out[NKEYS];
    clear_counts(); digits(6); lookup(out); downsample(); blocks(); masks(NKEYS >> 2);
    signed_shift(); or_index();
    long s = 0; double d = 0;
    for (int i = 0; i < NKEYS; i++) { s += digit[i] * (i % 7) + out[i] % 11; d += tiled[i] * (i % 3) + full[i]; }
    for (int i = 0; i < (NKEYS >> 1); i++) d += half[i] * (i % 5);
    for (int b = 0; b < NBINS; b++) s += count[b];
    printf("%ld %.17g\n", s, d);
    return 0;
}
"""


def test_shifts_and_masks_are_affine_where_values_are_non_negative():
    loops = loops_by_function(PROGRAMS["shifts"])
    for name in ("clear_counts", "digits", "lookup", "downsample", "blocks", "masks"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    assert "may be negative" in loops["signed_shift"][0]["reason"]
    assert not loops["or_index"][0]["parallel"] and "dependence" in loops["or_index"][0]["reason"]


def test_constant_bit_expressions_fold_like_c():
    from pycparser import c_parser

    from lifter.analysis.affine import AffineTranslator

    def value(text):
        tree = c_parser.CParser().parse(f"int x = {text};")
        return AffineTranslator([], lambda name: name == "n").constant(tree.ext[0].init)

    assert value("1 << 6") == 64 and value("(1 << 12) >> 6") == 64 and value("~(-16)") == 15
    assert value("(64 - 1) & 100") == 36 and value("5 ^ 3") == 6 and value("8 | 3") == 11
    assert value("~0u") is None  # depends on the width of unsigned
    assert value("-1 << 2") is None and value("1 << 31") is None and value("1 << -1") is None


NEGATIVE_DIVISION_IN_CONDITION = r"""
double a[40];
void f(void)
{
    for (int i = -10; i < 10; i++)
        if (i / 2 == 0)        /* C: i in {-1, 0, 1}; a floor division would say {0, 1} */
            a[i + 10] = a[10 - i] + 1.0;
}
"""


def test_an_if_condition_divides_only_non_negative_values():
    (loop,) = loops_by_function(NEGATIVE_DIVISION_IN_CONDITION)["f"]
    assert not loop["parallel"] and "dependence" in loop["reason"], loop["reason"]


# -- per-iteration index scalars (item 8) -----------------------------------------------------
PROGRAMS["index_scalars"] = r"""
#include <stdio.h>
#include <stdlib.h>

/* 7-point stencil on a flattened grid, the index computed once per point. */
void stencil(double *out, const double *in, int nx, int ny, int nz)
{
    for (int z = 1; z < nz - 1; z++)
        for (int y = 1; y < ny - 1; y++)
            for (int x = 1; x < nx - 1; x++) {
                int c = x + y * nx + z * nx * ny;
                out[c] = in[c] * -6.0 + in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx]
                         + in[c - nx * ny] + in[c + nx * ny];
            }
}

/* The index variable is declared before the loop and read after it. */
int rows(double *out, const double *in, int nx, int ny)
{
    int c = 0;
    for (int y = 1; y < ny - 1; y++)
        for (int x = 1; x < nx - 1; x++) {
            c = x + y * nx;
            out[c] = 0.5 * (in[c - 1] + in[c + 1]);
        }
    c = nx * ny;
    return c;
}

/* Two index scalars, one built from the other. */
void pairs(double *out, const double *in, int nx, int ny)
{
    for (int y = 0; y < ny; y++) {
        int row = y * nx;
        for (int x = 0; x < nx; x++) {
            int at = row + x;
            out[at] = in[at] * 2.0 + y;
        }
    }
}

/* NEGATIVE: the index is changed between its definition and its use. */
void moved(double *out, const double *in, const int *shift, int nx, int ny)
{
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            int c = x + y * nx;
            c = c + shift[c];
            out[c] = in[x + y * nx];
        }
}

/* NEGATIVE: the index is assigned only under a condition; the other iterations reuse it. */
void conditional(double *out, const double *in, const double *mask, int nx, int ny)
{
    int c = 0;
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            if (mask[x + y * nx] > 0.5) {
                c = x + y * nx;
            }
            out[c] += in[x + y * nx];
        }
}

/* NEGATIVE: a pointer to the index may change it. */
void pointed(double *out, const double *in, int nx, int ny, int **where)
{
    int c = 0;
    *where = &c;
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            c = x + y * nx;
            in[c] > 0.5 ? (void)0 : (void)0;
            out[c] = in[c] + 1.0;
        }
    *where = NULL;
}

int main(void)
{
    int nx = 14, ny = 11, nz = 9, n = nx * ny * nz;
    double *a = calloc(n, sizeof(double)), *b = calloc(n, sizeof(double)), *m = calloc(n, sizeof(double));
    int *sh = calloc(n, sizeof(int)), *w;
    for (int i = 0; i < n; i++) { a[i] = (i % 23) * 0.125; m[i] = (i % 3) * 0.4; sh[i] = (i % 5 == 0) ? -(i % 7) : 0; }
    stencil(b, a, nx, ny, nz);
    int last = rows(a, b, nx, ny * nz);
    pairs(b, a, nx, ny * nz);
    moved(a, b, sh, nx, ny * nz);
    conditional(b, a, m, nx, ny * nz);
    pointed(a, b, nx, ny, &w);
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * (i % 7) + b[i] * (i % 5);
    printf("%d %.17g\n", last, s);
    free(a); free(b); free(m); free(sh);
    return 0;
}
"""


def test_index_scalars_are_read_as_their_values():
    loops = loops_by_function(PROGRAMS["index_scalars"])
    for name in ("stencil", "rows", "pairs"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    assert "c" in loops["rows"][0]["private"]
    for name in ("moved", "conditional", "pointed"):
        assert not any(loop["parallel"] for loop in loops[name]), name
    assert "out[c]" in loops["moved"][0]["reason"] and "out[c]" in loops["pointed"][0]["reason"]


PROGRAMS["index_fields"] = r"""
#include <stdio.h>
#include <stdlib.h>

typedef struct { int nx, ny, nz; double *u, *unew, *sx; } Grid;

/* The index scalar indexes buffers held in struct fields, with the sizes read from the struct. */
void grid_init(Grid *g)
{
    for (int z = 0; z < g->nz; z++)
        for (int y = 0; y < g->ny; y++)
            for (int x = 0; x < g->nx; x++) {
                int c = x + y * g->nx + z * g->nx * g->ny;
                g->u[c] = g->sx[x] * (y + 1) + z;
                g->unew[c] = 0.0;
            }
}

/* The plane size is computed once, before the loop nest. */
void grid_step(Grid *g)
{
    const double *u = g->u;
    double *unew = g->unew;
    int nxy = g->nx * g->ny;
    for (int z = 1; z < g->nz - 1; z++)
        for (int y = 1; y < g->ny - 1; y++)
            for (int x = 1; x < g->nx - 1; x++) {
                int c = x + y * g->nx + z * nxy;
                unew[c] = u[c] + 0.1 * (u[c - 1] + u[c + 1] + u[c - g->nx] + u[c + g->nx]
                                        + u[c - nxy] + u[c + nxy] - 6.0 * u[c]);
            }
}

/* NEGATIVE: the plane size is computed before a field it reads changes. */
void grid_resized(Grid *g)
{
    int nxy = g->nx * g->ny;
    g->ny = g->ny - 1;
    for (int z = 1; z < g->nz - 1; z++)
        for (int y = 1; y < g->ny - 1; y++)
            for (int x = 1; x < g->nx - 1; x++) {
                int c = x + y * g->nx + z * nxy;
                g->unew[c] = g->u[c] + g->u[c - nxy];
            }
    g->ny = g->ny + 1;
}

int main(void)
{
    Grid g = { 9, 7, 5, 0, 0, 0 };
    int n = g.nx * g.ny * g.nz;
    g.u = calloc(n, sizeof(double)); g.unew = calloc(n, sizeof(double)); g.sx = calloc(g.nx, sizeof(double));
    for (int x = 0; x < g.nx; x++) g.sx[x] = 0.5 * x;
    grid_init(&g);
    grid_step(&g);
    grid_resized(&g);
    double s = 0;
    for (int i = 0; i < n; i++) s += g.u[i] * (i % 7) + g.unew[i];
    printf("%.17g\n", s);
    free(g.u); free(g.unew); free(g.sx);
    return 0;
}
"""


def test_index_scalars_into_struct_field_buffers():
    loops = loops_by_function(PROGRAMS["index_fields"])
    for name in ("grid_init", "grid_step"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    assert not any(e["parallel"] for e in loops["grid_resized"])


# -- scalars written afresh after the loop (item 9) -------------------------------------------
PROGRAMS["scratch_scalars"] = r"""
#include <stdio.h>
#define N 200
#define M 50
static double a[N][M], rowsum[N];

/* Each time step: row sums into a scratch scalar, then a total that starts afresh. */
double smooth(int steps)
{
    double sum = 0.0, total = 0.0;
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < N; i++) {
            sum = 0.0;
            for (int j = 0; j < M; j++)
                sum += a[i][j];
            rowsum[i] = sum / M;
        }
        sum = 0.0;
        for (int i = 0; i < N; i++)
            sum += rowsum[i];
        total += sum;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < M; j++)
                a[i][j] = 0.5 * a[i][j] + 0.5 * rowsum[i];
    }
    return total;
}

/* NEGATIVE: the value left by the last row is read after the loop. */
double last_row(int steps)
{
    double sum = 0.0, seen = 0.0;
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < N; i++) {
            sum = 0.0;
            for (int j = 0; j < M; j++)
                sum += a[i][j];
            rowsum[i] = sum;
        }
        seen += sum;
    }
    return seen;
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            a[i][j] = ((i * 13 + j * 7) % 29) * 0.25;
    double x = smooth(4), y = last_row(2);
    printf("%.17g %.17g %.17g\n", x, y, rowsum[N / 2]);
    return 0;
}
"""


def test_a_scalar_assigned_afresh_after_the_loop_is_private():
    loops = loops_by_function(PROGRAMS["scratch_scalars"])
    rows = loops["smooth"][1]
    assert rows["parallelized"] and "sum" in rows["private"], rows["reason"]
    rows = loops["last_row"][1]
    assert not rows["parallel"] and rows["reason"] == \
        "scalar 'sum' is used after the loop but not written in every iteration"


# -- bounds read from memory (item 1) ---------------------------------------------------------
PROGRAMS["memory_bounds"] = r"""
#include <stdio.h>
#include <stdlib.h>

typedef struct { int n; int m; double *v; double *w; } grid_t;
typedef struct { int n; double *val; } cells_t;
typedef struct { cells_t *cells; double dt; } sim_t;
typedef struct { long count; int lookups; } input_t;

/* Read-only helpers without an effect summary (they read struct fields). */
static double row_norm(const grid_t *g, int i)
{
    double s = 0.0;
    for (int j = 0; j < g->m; j++)
        s += g->v[(i * g->m + j) % g->n] * g->v[(i * g->m + j) % g->n];
    return s;
}

static int active_cells(const sim_t *sim) { return sim->cells->n; }

/* NEGATIVE for the outer loop: the helper may have side effects for all the model knows. */
void census(sim_t *sim, double *count)
{
    for (int b = 0; b < sim->cells->n; b++)
        count[b] = active_cells(sim) - b;
}

static double lookup(const double *table, long n, double x)
{
    long lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        long mid = (lo + hi) / 2;
        if (table[mid] > x) hi = mid; else lo = mid;
    }
    return table[lo];
}

/* Bounds read from an array (NAS style `size[2] - 2`), the body writes doubles only. */
void relax(int size[3], const double *u, double *r)
{
    int k;
    for (k = 1; k <= size[2] - 2; k++)
        r[k] = 0.5 * (u[k - 1] + u[k + 1]) - u[k];
}

/* The outer loop calls a read-only helper: the inner loop's bound g->m stays a parameter. */
void scale_rows(grid_t *g, double *out)
{
    for (int i = 0; i < g->n; i++) {
        double s = row_norm(g, i);
        for (int j = 0; j < g->m; j++)
            out[i * g->m + j] = s * g->w[j];
    }
}

/* A chain of fields, and a write through another field of the same struct. */
void advance(sim_t *sim, double *out)
{
    for (int b = 0; b < sim->cells->n; b++) {
        sim->cells->val[b] = sim->cells->val[b] * (1.0 - sim->dt);
        out[b] = sim->cells->val[b] + b;
    }
}

/* A struct passed by value, and a helper with an effect summary. */
void lookups(input_t in, const double *table, double *restrict out)
{
    for (int i = 0; i < in.lookups; i++)
        out[i] = lookup(table, in.count, (i % 97) * 0.37);
}

static void shrink(grid_t *g) { if (g->n > 1) g->n = g->n - 1; }

/* NEGATIVE: a helper writes the bound. */
void shrinking(grid_t *g)
{
    for (int i = 0; i < g->n; i++) {
        g->w[i] = g->w[i] + 1.0;
        if (i == 2)
            shrink(g);
    }
}

/* NEGATIVE: the bound's array is written in the loop. */
void resizing(int size[3], double *r)
{
    for (int k = 1; k <= size[2] - 2; k++) {
        r[k] = r[k] + 1.0;
        size[2] = size[2] - (k == 3);
    }
}

/* NEGATIVE: an int pointer that may point to the bound is written. */
void counting(int size[3], double *r, int *hits)
{
    for (int k = 0; k < size[2]; k++) {
        r[k] = r[k] * 2.0;
        hits[0] = k;
    }
}

/* NEGATIVE: a field written in every iteration is memory, never private. */
void last_index(grid_t *g)
{
    for (int i = 0; i < g->n; i++) {
        g->m = i;
        g->v[i] = g->v[i] + 1.0;
    }
}

int main(void)
{
    int n = 40, m = 12;
    grid_t g = { n, m, calloc(n * m, sizeof(double)), calloc(n * m, sizeof(double)) };
    for (int i = 0; i < n * m; i++) { g.v[i] = (i % 11) * 0.5; g.w[i] = (i % 7) * 0.25; }
    double *out = calloc(n * m, sizeof(double)), *r = calloc(64, sizeof(double)), *u = calloc(64, sizeof(double));
    for (int i = 0; i < 64; i++) u[i] = (i * i % 13) * 0.1;
    int size[3] = { 10, 20, 30 };
    relax(size, u, r);
    scale_rows(&g, out);
    cells_t cells = { n, g.v };
    sim_t sim = { &cells, 0.125 };
    advance(&sim, r);
    double count[64];
    census(&sim, count);
    for (int i = 0; i < 40; i++) r[i] += count[i];
    double table[100];
    for (int i = 0; i < 100; i++) table[i] = i * 0.4;
    input_t in = { 100, 50 };
    lookups(in, table, u);
    shrinking(&g);
    resizing(size, r);
    counting(size, r, &size[2]);
    last_index(&g);
    double s = 0;
    for (int i = 0; i < n * m; i++) s += out[i] * (i % 5) + g.v[i] + g.w[i] * (i % 3);
    for (int i = 0; i < 64; i++) s += r[i] * (i % 7) + u[i];
    printf("%.17g %d %d %d %d\n", s, g.n, g.m, size[2], size[0]);
    free(g.v); free(g.w); free(out); free(r); free(u);
    return 0;
}
"""


def test_bounds_read_from_memory_are_parameters_where_nothing_writes_them():
    loops = loops_by_function(PROGRAMS["memory_bounds"])
    for name in ("relax", "advance", "lookups"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    outer, inner = loops["scale_rows"]
    assert inner["parallelized"] and "g->m" in inner["condition"], inner["reason"]
    # The call, for all the model knows, may write through `g` (and anything else).
    # (issue 18: a dependence through a write that may not happen is said as "may")
    # (issue 16 item 1: the helper's summary now carries its reads of `g->v[e]`, so the loop is
    # found parallel and stays sequential only for want of a bound on what it reads of `g->v`)
    assert outer["reason"].startswith(("call row_norm(g, i)", "flow dependence on g:", "may flow dependence on g:",
                                       "'g->v' and 'out' may overlap")), outer["reason"]
    assert loops["census"][0]["reason"].startswith(("call active_cells(sim)", "flow dependence on sim:", "may flow dependence on sim:"))
    for name, what in (("shrinking", "struct field"), ("resizing", "array element"), ("counting", "array element")):
        assert not loops[name][0]["parallel"] and loops[name][0]["reason"].startswith(what), name
    assert loops["last_index"][0]["reason"].startswith("output dependence on g->m")


# -- a struct passed by value (item 1: `in.count` with `in` a by-value parameter) ----------------
PROGRAMS["by_value_struct"] = r"""
#include <stdio.h>
#include <stdlib.h>
typedef struct { long count; int scale; } inputs_t;
typedef struct { long *ids; int *tags; } data_t;

/* No pointer reaches `in` (its address is never taken): integer writes through `d` cannot
   change in.count. */
void fill(inputs_t in, data_t d)
{
    for (long i = 0; i < in.count; i++) {
        d.ids[i] = i * in.scale;
        d.tags[i] = (int)(i % 7);
    }
}

/* NEGATIVE: the loop changes its own bound through the struct. */
void shrink(inputs_t in, data_t d)
{
    for (long i = 0; i < in.count; i++) {
        d.ids[i] += 1;
        in.count -= (i == 5);
    }
}

/* NEGATIVE: a pointer to `in` is taken, and an integer write may go through it. */
void through_pointer(inputs_t in, data_t d, long *other)
{
    long *where = in.scale > 0 ? &in.count : other;
    for (long i = 0; i < in.count; i++) {
        d.ids[i] = i;
        *where -= (i == 5);
    }
}

int main(void)
{
    inputs_t in = {4000, 3};
    data_t d = {calloc(in.count, sizeof(long)), calloc(in.count, sizeof(int))};
    long other = 0;
    fill(in, d);
    shrink(in, d);
    through_pointer(in, d, &other);
    long s = 0;
    for (long i = 0; i < in.count; i++)
        s += d.ids[i] % 1000 * (1 + i % 3) + d.tags[i];
    printf("%ld\n", s);
    free(d.ids);
    free(d.tags);
    return 0;
}
"""


def test_fields_of_a_struct_passed_by_value_are_parameters():
    loops = loops_by_function(PROGRAMS["by_value_struct"])
    assert loops["fill"][0]["parallelized"], loops["fill"][0]["reason"]
    for name in ("shrink", "through_pointer"):
        assert not loops[name][0]["parallelized"], name


def test_read_only_helpers():
    from lifter.analysis.read_only import read_only_functions
    from lifter.analysis.symbols import Typedefs, classify
    from pycparser import c_parser

    ast = c_parser.CParser().parse("""
        typedef struct { int n; double *v; } g_t;
        int count(const g_t *g) { return g->n; }
        double sum(const double *a, int n) { double s = 0; int i; for (i = 0; i < n; i++) s += a[i]; return s; }
        double twice(const double *a, int n) { double t[2]; t[0] = sum(a, n); t[1] = t[0]; return t[1]; }
        void shrink(g_t *g) { g->n--; }
        void clear(double *a) { a[0] = 0; }
        int grow(g_t g) { g.n++; return g.n; }
        int peek(g_t g) { double *p = g.v; p[0] = 1; return 0; }
        int escape(int n) { int *p = &n; *p = 2; return n; }
        int keep(int n) { static int last; last = n; return last; }
        int calls(const g_t *g) { shrink((g_t *)g); return 0; }
    """)
    found = read_only_functions(ast, Typedefs(ast), set(), classify)
    assert found == {"count", "sum", "twice", "grow"}


# -- a large solver nest (item 11) ------------------------------------------------------------
def block_solver() -> str:
    """An x_solve-like line solve written out as NAS BT writes it: 5x5 blocks unrolled into
    about 200 statements and 1,100 accesses in a 3-deep nest."""
    out = [r"""#include <stdio.h>
#define NX 12
#define NY 6
#define NZ 5
static double u[NZ][NY][NX][5], rhs[NZ][NY][NX][5], qs[NZ][NY][NX], rho_i[NZ][NY][NX];
static double fjac[NX][5][5], njac[NX][5][5], lhs[NX][3][5][5];
static double c1 = 1.4, c2 = 0.4, dt = 0.015, tx1 = 0.5, tx2 = 0.25, dx1 = 0.75;

void x_solve(int nx, int ny, int nz)
{
    int i, j, k;
    double tmp1, tmp2, tmp3;
    for (k = 1; k <= nz - 2; k++) {
        for (j = 1; j <= ny - 2; j++) {
            for (i = 0; i <= nx - 1; i++) {
                tmp1 = rho_i[k][j][i];
                tmp2 = tmp1 * tmp1;
                tmp3 = tmp1 * tmp2;"""]
    blocks = [(m, n) for m in range(5) for n in range(5)]
    for m, n in blocks:
        out.append(f"fjac[i][{m}][{n}] = {'c2 * ' if m == n else ''}u[k][j][i][{n}] * tmp1 + qs[k][j][i] * tmp2 * {m + 1};")
        out.append(f"njac[i][{m}][{n}] = {'c1 * tmp3 - ' if m == n else ''}u[k][j][i][{m}] * u[k][j][i][{n}] * tmp2;")
    out.append("}\nfor (i = 1; i <= nx - 2; i++) {\ntmp1 = dt * tx1;\ntmp2 = dt * tx2;")
    for m, n in blocks:
        d = " - tmp1 * dx1" if m == n else ""
        out.append(f"lhs[i][0][{m}][{n}] = -tmp2 * fjac[i - 1][{m}][{n}] - tmp1 * njac[i - 1][{m}][{n}]{d};")
        out.append(f"lhs[i][1][{m}][{n}] = {'1.0 + ' if m == n else ''}tmp1 * 2.0 * njac[i][{m}][{n}];")
        out.append(f"lhs[i][2][{m}][{n}] = tmp2 * fjac[i + 1][{m}][{n}] - tmp1 * njac[i + 1][{m}][{n}]{d};")
    out.append("}\nfor (i = 1; i <= nx - 2; i++) {")
    for m in range(5):
        out.append(f"rhs[k][j][i][{m}] = rhs[k][j][i][{m}] - "
                   + " - ".join(f"lhs[i][0][{m}][{p}] * rhs[k][j][i - 1][{p}]" for p in range(5)) + ";")
    for m, n in blocks:
        out.append(f"lhs[i][1][{m}][{n}] = lhs[i][1][{m}][{n}] - "
                   + " - ".join(f"lhs[i][0][{m}][{p}] * lhs[i - 1][2][{p}][{n}]" for p in range(5)) + ";")
    for m in range(5):
        out.append(f"tmp1 = 1.0 / lhs[i][1][{m}][{m}];")
        out += [f"lhs[i][2][{m}][{n}] = lhs[i][2][{m}][{n}] * tmp1;" for n in range(5)]
        out.append(f"rhs[k][j][i][{m}] = rhs[k][j][i][{m}] * tmp1;")
    out.append("}\nfor (i = nx - 3; i >= 0; i--) {")
    for m in range(5):
        out.append(f"rhs[k][j][i][{m}] = rhs[k][j][i][{m}] - "
                   + " - ".join(f"lhs[i][2][{m}][{n}] * rhs[k][j][i + 1][{n}]" for n in range(5)) + ";")
    out.append(r"""}
        }
    }
}

int main(void)
{
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                rho_i[k][j][i] = 1.0 / (1.0 + 0.01 * (i + j + k));
                qs[k][j][i] = 0.001 * (i * j % 7);
                for (int m = 0; m < 5; m++) {
                    u[k][j][i][m] = 0.1 * ((i + 2 * j + 3 * k + m) % 11);
                    rhs[k][j][i][m] = 0.01 * ((i * m + j + k) % 13);
                }
            }
    for (int i = 0; i < NX; i++)
        for (int m = 0; m < 5; m++)
            for (int n = 0; n < 5; n++)
                lhs[i][0][m][n] = lhs[i][1][m][n] = lhs[i][2][m][n] = (m == n) + 0.1;
    x_solve(NX, NY, NZ);
    double s = 0;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                for (int m = 0; m < 5; m++)
                    s += rhs[k][j][i][m] * ((i + m) % 5 + 1);
    printf("%.12g\n", s);
    return 0;
}
""")
    return "\n".join(out)


@needs_gcc
def test_a_block_solver_nest_is_analysed_within_the_budget(tmp_path):
    from tests.harness import prepare

    source = tmp_path / "x_solve.c"
    source.write_text(block_solver())
    program = prepare(source, tmp_path)
    loops = [e for e in program.loops if e["function"] == "x_solve"]
    assert not any("budget" in e["reason"] for e in loops), [e["reason"] for e in loops]
    rows = [e for e in loops if e["var"] == "i"]
    assert [e["parallelized"] for e in rows] == [True, True, False, False], [e["reason"] for e in rows]
    assert all("dependence on" in e["reason"] for e in rows[2:])  # the elimination's recurrences
    for threads in (1, 2, 8):
        program.check(threads)


@needs_gcc
@pytest.mark.parametrize("threads", [1, 2, 8])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_give_identical_results(tmp_path, name, threads):
    check_program(PROGRAMS[name], f"{name}.c", tmp_path, threads)
