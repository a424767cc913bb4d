"""Real-code shapes of issue 16, third round (helper reach17): each program is written the way
application code is, lifted with the profitability guard off, checked for its verdicts (the
unsafe variants stay sequential, with the reason) and run against the original at 1, 2 and 8
threads, with inputs that make every run-time test fail as well as pass."""
from __future__ import annotations

import pytest

from tests.harness import check_program, have_gcc, loops_by_function

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

PROGRAMS: dict[str, str] = {}

# -- delinearization (item 1) -----------------------------------------------------------------
PROGRAMS["carried_rows"] = r"""
#include <stdio.h>
#include <stdlib.h>

#define NC 4

/* The components first-multiplied: 4*j*nx + 4*i + c is cell (j, i)'s component c. */
void scale(int nx, int ny, double *q, const double *w)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            for (int c = 0; c < NC; c++)
                q[NC*j*nx + NC*i + c] = q[NC*j*nx + NC*i + c] * w[c];
}

/* Each cell takes its right neighbour's values; the last cell of a row the next row's first. */
void shift_left(int nx, int ny, double *q)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            for (int c = 0; c < NC; c++)
                q[(j*nx + i)*NC + c] = q[(j*nx + i + 1)*NC + c];
}

/* A bound i <= nx: the last column is the next row's first element. */
void widen(int nx, int ny, double *q, const double *r)
{
    for (int j = 1; j < ny; j++)
        for (int i = 0; i <= nx; i++)
            q[j*nx + i] = 2.0 * r[(j - 1)*nx + i];
}

/* Each element doubled; the element after a row's end is the next row's first: doubled twice. */
void twice(int nx, int ny, double *q)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i <= nx; i++)
            q[j*nx + i] = q[j*nx + i] * 2.0;
}

/* The left neighbour, wrapping to the previous row's last element: a recurrence along the buffer. */
void sweep(int nx, int ny, double *q)
{
    for (int j = 1; j < ny; j++)
        for (int i = 0; i < nx; i++)
            q[j*nx + i] += 0.5 * q[j*nx + i - 1];
}

/* NEGATIVE: two rows ahead, no carry of one row reads it. */
void far(int nx, int ny, double *q)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            q[j*nx + i] = q[j*nx + i + 2*nx + 1] + 1.0;
}

int main(void)
{
    int nx = 29, ny = 17;
    long size = (long)NC * (nx + 1) * (ny + 4);
    double *q = malloc(size * sizeof *q), *r = malloc(size * sizeof *r);
    double w[NC] = {1.0, 0.5, 0.25, 2.0};
    for (long k = 0; k < size; k++) { q[k] = k % 5; r[k] = (k * 3) % 7; }
    scale(nx, ny, q, w);
    shift_left(nx, ny, q);
    widen(nx, ny, q, r);
    twice(nx, ny, q);
    sweep(nx, ny, q);
    far(nx, ny, q);
    /* Rows of no columns: the run-time test nx >= 1 fails. */
    widen(0, ny, q + 1, r);
    twice(0, ny, q + 2);
    /* The weights are the grid's first cell, the output overlaps the input: tests fail. */
    scale(nx, ny, q, q + 1);
    widen(nx, ny, q + 3, q);
    double s = 0;
    for (long k = 0; k < size; k++) s += (q[k] + 3 * r[k]) * (1 + k % 7);
    printf("%.17g\n", s);
    free(q); free(r);
    return 0;
}
"""


def test_rows_that_carry_into_the_next_are_read_exactly():
    loops = loops_by_function(PROGRAMS["carried_rows"])
    assert loops["scale"][0]["parallelized"], loops["scale"][0]["reason"]
    shift = loops["shift_left"]
    assert not shift[0]["parallel"] and not shift[1]["parallel"]
    assert shift[2]["parallelized"], shift[2]["reason"]  # the components are apart
    widen = loops["widen"]
    assert not widen[0]["parallel"] and "output dependence on q" in widen[0]["reason"], widen[0]["reason"]
    assert widen[1]["parallelized"] and widen[1]["condition"].endswith("nx >= 1"), widen[1]
    # the element after a row's end is doubled at (j, nx) and at (j + 1, 0): a product over rows,
    # whose section OpenMP would be given in rows, not elements (a stack overflow): sequential
    assert not loops["twice"][0]["parallelized"] and "read in rows" in loops["twice"][0]["reason"]
    assert loops["twice"][1]["parallelized"], loops["twice"][1]["reason"]
    assert not any(e["parallel"] for e in loops["sweep"]), [e["reason"] for e in loops["sweep"]]
    assert "dependence on q" in loops["sweep"][1]["reason"], loops["sweep"][1]["reason"]
    assert not loops["far"][0]["parallel"], loops["far"][0]["reason"]


# -- pointer steps (item 2) -------------------------------------------------------------------
PROGRAMS["pointer_steps"] = r"""
#include <stdio.h>
#include <stdlib.h>

/* Two values per iteration: real and imaginary parts. */
void interleave(int n, const double *re, const double *im, double *out)
{
    double *p = out;
    for (int i = 0; i < n; i++) {
        *p++ = re[i];
        *p++ = im[i];
    }
}

/* Filled from the end, with the pointer stepped before each store. */
void reverse(int n, const double *x, double *out)
{
    double *p = out + n;
    for (int i = 0; i < n; i++)
        *--p = x[i];
}

void backwards(int n, const double *x, double *out)
{
    double *p = out + n - 1;
    for (int i = 0; i < n; i++)
        *p-- = 2.0 * x[i];
}

/* The pointer is read after the loop: where the next block starts. */
double *append(int n, double *p, double v)
{
    for (int i = 0; i < n; i++)
        *p++ = v;
    return p;
}

/* The pointer carries on from one row to the next: stepped past each row. */
void rows(int m, int n, double *out)
{
    double *p = out;
    for (int r = 0; r < m; r++) {
        for (int i = 0; i < n; i++)
            *p++ = r + 0.25 * i;
    }
}

/* NEGATIVE for the row loop: stepped past each row, the pointer carries on. */
void rows_unbraced(int m, int n, double *out)
{
    double *p = out;
    for (int r = 0; r < m; r++)
        for (int i = 0; i < n; i++)
            *p++ = r - 0.5 * i;
}

size_t pack(size_t n, const float *a, float *dst)
{
    float *d = dst;
    while (n--) {
        *d++ = *a++;
        *d++ = 0.0f;
    }
    return (size_t)(d - dst);
}

/* NEGATIVE: the steps are under a condition. */
int compact(int n, const double *x, double *out)
{
    double *p = out;
    for (int i = 0; i < n; i++) {
        *p++ = x[i];
        if (x[i] > 0)
            *p++ = x[i];
    }
    return (int)(p - out);
}

int main(void)
{
    int n = 2000;
    double *a = calloc(4 * n + 16, sizeof *a), *b = calloc(4 * n + 16, sizeof *b);
    float *f = calloc(n + 1, sizeof *f), *g = calloc(2 * n + 4, sizeof *g);
    for (int i = 0; i < n; i++) { a[i] = (i * 7) % 11 - 5; f[i] = (float)(i % 13); }
    interleave(n, a, a + n, b);
    reverse(n, b, a + 2 * n);
    backwards(n, a + 2 * n, b + 2 * n);
    double *end = append(7, b + 3 * n, -1.0);
    end = append(5, end, -2.0);
    rows(9, 13, a + 3 * n);
    rows_unbraced(7, 11, b + 3 * n);
    size_t packed = pack((size_t)n, f, g);
    int kept = compact(n, a, b + 100);
    /* Overlaps: the run-time tests fail. */
    interleave(n, b, b + 1, b + 2);
    reverse(n, a, a + 1);
    backwards(n, a + 5, a);
    double s = kept + (double)(end - b) + (double)packed;
    for (int i = 0; i < 4 * n + 16; i++) s += (a[i] + 2 * b[i]) * (1 + i % 7);
    for (int i = 0; i < 2 * n + 4; i++) s += g[i] * (1 + i % 5);
    printf("%.17g\n", s);
    free(a); free(b); free(f); free(g);
    return 0;
}
"""


def test_pointers_stepped_twice_backwards_and_read_after_the_loop():
    from lifter import LiftOptions, lift_source

    result = lift_source(PROGRAMS["pointer_steps"], "test.c", LiftOptions(target="openmp", min_parallel_work=0))
    loops = {}
    for e in result.loops:
        loops.setdefault(e["function"], []).append(e)
    for name in ("interleave", "reverse", "backwards", "append", "pack"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    assert "p[2 * i] = re[i];" in result.output and "p[2 * i + 1] = im[i];" in result.output
    assert "p[-i - 1] = x[i];" in result.output and "p[-i] = 2.0 * x[i];" in result.output
    assert "p[i] = v; p += (n > 0 ? n : 0);" in result.output
    assert "} d += 2 * (n > 0 ? n : 0);" in result.output
    rows = loops["rows"]
    assert not rows[0]["parallel"] and rows[1]["parallelized"], [e["reason"] for e in rows]
    assert not any(e["parallel"] for e in loops["rows_unbraced"])  # no block to step it past the loop in
    assert not loops["compact"][0]["parallel"]
    # the `while (n--)` loop is reported by its counter, as written
    assert loops["pack"][0]["var"] == "n" and "loop over 'n'" in loops["pack"][0]["remark"]
    assert not any("lift_k" in str(e) for e in result.loops)

# -- block calls (item 3) ---------------------------------------------------------------------
PROGRAMS["block_calls"] = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The interior of each row cleared: the block starts one past the row's first element. */
void clear_inner(int n, int m, double *a)
{
    for (int i = 0; i < n; i++)
        memset(a + i * m + 1, 0, (m - 2) * sizeof *a);
}

/* Rows of bytes: the size counts chars. */
void copy_bytes(int n, int m, unsigned char *dst, const unsigned char *src)
{
    for (int i = 0; i < n; i++)
        memcpy(dst + i * m, src + i * m, m);
}

/* A row less its last half element; and rows counted in bytes. */
void copy_short(int n, int m, double *dst, const double *src)
{
    for (int i = 0; i < n; i++)
        memcpy(dst + i * m, src + i * m, m * sizeof(double) - 4);
}

void zero_rows(int n, int m, double *a)
{
    for (int i = 0; i < n; i++)
        memset(a + i * m, 0, m * 8);
}

/* NEGATIVE: four bytes into the next row's first element, which that row writes whole. */
void copy_long(int n, int m, double *dst, const double *src)
{
    for (int i = 0; i < n; i++)
        memcpy(dst + i * m, src + i * m, m * sizeof(double) + 4);
}

/* NEGATIVE: each row's copy reads the row before, written by the previous iteration. */
void smear(int n, int m, float *a)
{
    for (int i = 1; i < n; i++)
        memmove(a + i * m - 1, a + (i - 1) * m, m * sizeof(float));
}

int main(void)
{
    int n = 301, m = 37;
    double *a = malloc((n + 2) * m * sizeof *a), *b = malloc((n + 2) * m * sizeof *b);
    unsigned char *c = malloc((n + 2) * m), *d = malloc((n + 2) * m);
    float *f = malloc((n + 2) * m * sizeof *f);
    for (int k = 0; k < (n + 2) * m; k++) {
        a[k] = k % 13; b[k] = (k * 7) % 5 + 0.25; c[k] = (unsigned char)(k * 31); d[k] = 0;
        f[k] = (float)(k % 11);
    }
    clear_inner(n, m, a);
    copy_bytes(n, m, d, c);
    copy_short(n, m, b + m, a);
    copy_long(n, m, a, b);
    smear(n, m, f);
    zero_rows(n / 2, m, b + 3);
    /* Each copy lands on rows later copies read (no one copy overlaps itself, which memcpy
     * does not allow): the run-time tests fail. */
    copy_bytes(n - 2, m, c + m + 5, c);
    copy_short(n - 2, m, a + m + 1, a);
    double s = 0;
    for (int k = 0; k < (n + 2) * m; k++)
        s += (a[k] + 2 * b[k] + c[k] + 3 * d[k] + f[k]) * (1 + k % 7);
    printf("%.17g\n", s);
    free(a); free(b); free(c); free(d); free(f);
    return 0;
}
"""


def test_block_calls_with_offset_pointers_and_byte_counts():
    loops = loops_by_function(PROGRAMS["block_calls"])
    for name in ("clear_inner", "copy_bytes", "copy_short", "zero_rows"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    for name in ("copy_long", "smear"):
        assert not loops[name][0]["parallel"], (name, loops[name][0]["reason"])
        assert "dependence on" in loops[name][0]["reason"], loops[name][0]["reason"]

# -- bucket scatters with the step a statement of its own (item 4) ----------------------------
PROGRAMS["scatter_steps"] = r"""
#include <stdio.h>
#include <stdlib.h>

/* The offset stepped down first, then used: the placement of a counting sort. */
void place_down(long n, const int *key, int *end, int *out)
{
    for (long i = 0; i < n; i++) {
        int b = key[i] & 255;
        end[b]--;
        out[end[b]] = key[i];
    }
}

/* The offset used, then stepped up. */
void place_up(long n, const int *key, long *fill, int *out)
{
    for (long i = 0; i < n; i++) {
        int b = (key[i] >> 3) & 127;
        out[fill[b]] = 2 * key[i] + 1;
        ++fill[b];
    }
}

/* (the target's name before the offsets' in the alphabet, as the accesses are sorted) */
void place_plus(long n, const int *key, unsigned *next, int *col)
{
    for (long i = 0; i < n; i++) {
        int b = key[i] % 97;
        col[next[b]] = key[i];
        next[b] += 1;
    }
}

/* NEGATIVE: the value stored reads the offset it steps. */
void place_self(long n, const int *key, int *fill, int *out)
{
    for (long i = 0; i < n; i++) {
        int b = key[i] & 63;
        out[fill[b]] = fill[b];
        fill[b]++;
    }
}

/* NEGATIVE: stepped up before the store (each item takes the offset after its own). */
void place_after(long n, const int *key, int *fill, int *out)
{
    for (long i = 0; i < n; i++) {
        int b = key[i] & 63;
        fill[b]++;
        out[fill[b]] = key[i];
    }
}

/* Two places per item: a key and its payload, the offset stepped after. */
void place_pairs(long n, const int *key, int *fill, int *out)
{
    for (long i = 0; i < n; i++) {
        int b = key[i] & 31;
        out[fill[b]] = key[i];
        out[fill[b] + 1] = -key[i];
        fill[b] += 2;
    }
}

/* Three places per item, counted down from each bin's end. */
void place_triples(long n, const int *key, long *end, double *out)
{
    for (long i = 0; i < n; i++) {
        int b = key[i] % 50;
        end[b] -= 3;
        out[end[b] + 2] = 0.5 * key[i];
        out[end[b]] = key[i];
        out[end[b] + 1] = b;
    }
}

/* NEGATIVE: a place stored twice, none at + 1. */
void place_twice(long n, const int *key, int *fill, int *out)
{
    for (long i = 0; i < n; i++) {
        int b = key[i] & 31;
        out[fill[b]] = key[i];
        out[fill[b]] = -key[i];
        fill[b] += 2;
    }
}

static unsigned long digest(long n, const int *v)
{
    unsigned long h = 7;
    for (long i = 0; i < n; i++) h = h * 31 + (unsigned long)v[i];
    return h;
}

int main(void)
{
    long n = 200000;
    int *key = malloc(n * sizeof *key), *out = calloc(n + 1, sizeof *out);
    int *end = calloc(256, sizeof *end), *fill64 = calloc(64, sizeof *fill64);
    long *fill = calloc(128, sizeof *fill);
    unsigned *ufill = calloc(97, sizeof *ufill);
    for (long i = 0; i < n; i++) key[i] = (int)((i * 2654435761u) >> 7) & 0xffff;
    for (long i = 0; i < n; i++) end[key[i] & 255]++;
    for (int b = 1; b < 256; b++) end[b] += end[b - 1];
    place_down(n, key, end, out);
    printf("%lu %lu\n", digest(n, out), digest(256, end));
    for (long i = 0; i < n; i++) fill[((key[i] >> 3) & 127) + 1 < 128 ? ((key[i] >> 3) & 127) + 1 : 0] += 0;
    long at = 0;
    for (int b = 0; b < 128; b++) { long c = 0; for (long i = 0; i < n; i++) c += ((key[i] >> 3) & 127) == b; fill[b] = at; at += c; }
    place_up(n, key, fill, out);
    printf("%lu %ld\n", digest(n, out), fill[127]);
    at = 0;
    for (int b = 0; b < 97; b++) { unsigned c = 0; for (long i = 0; i < n; i++) c += key[i] % 97 == b; ufill[b] = (unsigned)at; at += c; }
    place_plus(n, key, ufill, out);
    printf("%lu %u\n", digest(n, out), ufill[96]);
    for (int b = 0; b < 64; b++) fill64[b] = b * 3;
    place_self(n / 100, key, fill64, out);
    place_after(n / 100, key, fill64, out);
    int *fill32 = calloc(32, sizeof *fill32), *pairs = calloc(2 * n + 64, sizeof *pairs);
    long *end50 = calloc(50, sizeof *end50);
    double *triples = calloc(3 * n, sizeof *triples);
    at = 0;
    for (int b = 0; b < 32; b++) { long c = 0; for (long i = 0; i < n; i++) c += (key[i] & 31) == b; fill32[b] = (int)at; at += 2 * c; }
    place_pairs(n, key, fill32, pairs);
    at = 0;
    for (int b = 0; b < 50; b++) { long c = 0; for (long i = 0; i < n; i++) c += key[i] % 50 == b; at += 3 * c; end50[b] = at; }
    place_triples(n, key, end50, triples);
    for (int b = 0; b < 32; b++) fill32[b] = 4 * b;
    place_twice(n / 100, key, fill32, pairs + n);
    double st = 0;
    for (long i = 0; i < 3 * n; i++) st += triples[i] * (1 + i % 7);
    printf("%lu %lu %.17g %ld\n", digest(2 * n + 64, pairs), digest(32, fill32), st, end50[49]);
    /* Bins that overlap: the run-time checks fail, the loops run as written. */
    for (int b = 0; b < 32; b++) fill32[b] = 5 * b;
    place_pairs(3000, key, fill32, pairs);
    for (int b = 0; b < 50; b++) end50[b] = 3000 + b;
    place_triples(2000, key, end50, triples);
    printf("%lu %lu\n", digest(2 * n + 64, pairs), digest(32, fill32));
    free(fill32); free(pairs); free(end50); free(triples);
    /* Offsets whose ranges overlap: the run-time checks fail, the loop runs as written. */
    for (int b = 0; b < 256; b++) end[b] = 1000 + b;
    place_down(5000, key, end, out);
    for (int b = 0; b < 128; b++) fill[b] = 3 * b;
    place_up(5000, key, fill, out);
    printf("%lu %lu %lu\n", digest(n, out), digest(256, end), digest(64, fill64));
    free(key); free(out); free(end); free(fill); free(ufill); free(fill64);
    return 0;
}
"""


def test_scatters_whose_step_is_a_statement_of_its_own():
    from lifter import LiftOptions, lift_source

    result = lift_source(PROGRAMS["scatter_steps"], "test.c", LiftOptions(target="openmp", min_parallel_work=0))
    loops = {e["function"]: e for e in result.loops}
    for name in ("place_down", "place_up", "place_plus", "place_pairs", "place_triples"):
        assert loops[name]["parallelized"] and "bucket scatter" in loops[name]["remark"], (name, loops[name])
    for name in ("place_self", "place_after", "place_twice"):
        assert not loops[name]["parallel"] and "bucket scatter" not in loops[name]["remark"], loops[name]
    assert "out[--lift_own[b - lift_lo]] = key[i];" in result.output
    assert "out[lift_own[b - lift_lo]++] = (2 * key[i]) + 1;" in result.output
    assert "out[lift_own[b - lift_lo]] = key[i]; out[lift_own[b - lift_lo] + 1] = -key[i]; " \
        "lift_own[b - lift_lo] += 2;" in result.output
    assert "lift_row[b - lift_lo] += 3;" in result.output

# -- a pointer to an array's struct element (item 5) ------------------------------------------
PROGRAMS["element_pointers"] = r"""
#include <stdio.h>
#include <stdlib.h>

typedef struct { double x, v, m; int tag; } Body;

void kick(int n, Body *b, double dt)
{
    for (int i = 0; i < n; i++) {
        Body *q = &b[i];
        q->v -= dt * q->x / q->m;
        q->x += dt * q->v;
    }
}

double mass(int n, const Body *b)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        const Body *q = b + i;
        s += q->m;
    }
    return s;
}

/* NEGATIVE: the element is picked by a value in memory, two iterations may pick one. */
void kick_some(int n, Body *b, const int *pick, double dt)
{
    for (int i = 0; i < n; i++) {
        Body *q = &b[pick[i]];
        q->x += dt;
    }
}

/* NEGATIVE: q[1] is the next body, which the next iteration writes. */
void smooth(int n, Body *b)
{
    for (int i = 0; i < n - 1; i++) {
        Body *q = &b[i];
        q->x = 0.5 * (q->x + q[1].x);
    }
}

int main(void)
{
    int n = 5000;
    Body *b = malloc(n * sizeof *b);
    int *pick = malloc(n * sizeof *pick);
    for (int i = 0; i < n; i++) {
        b[i].x = (i % 17) - 8.0; b[i].v = (i % 5) * 0.1; b[i].m = 1.0 + i % 3; b[i].tag = i;
        pick[i] = (i * 7) % 13;
    }
    kick(n, b, 0.01);
    double m = mass(n, b);
    kick_some(n, b, pick, 0.5);
    smooth(n, b);
    double s = m;
    for (int i = 0; i < n; i++) s += (b[i].x + 2 * b[i].v) * (1 + i % 7);
    printf("%.17g\n", s);
    free(b); free(pick);
    return 0;
}
"""


def test_pointers_to_struct_elements_are_the_elements():
    loops = loops_by_function(PROGRAMS["element_pointers"])
    for name in ("kick", "mass"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    for name in ("kick_some", "smooth"):
        assert not loops[name][0]["parallel"], (name, loops[name][0]["reason"])

@needs_gcc
@pytest.mark.parametrize("threads", [1, 2, 8])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_give_identical_results(tmp_path, name, threads):
    check_program(PROGRAMS[name], f"{name}.c", tmp_path, threads)
