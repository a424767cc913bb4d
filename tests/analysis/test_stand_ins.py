"""Stand-in parameters: loop bounds and subscripts that are not affine (`k * dim`, `g->n`,
`s.len`) but cannot change in the loop nest are modelled as parameters, and printed back
as the C expression. Negative cases: the "invariant" is written in the loop, directly, by
a field of the same name through another pointer, or through an `int *` that may point to
it; those loops stay unmodelled (sequential) and print exactly what the original prints."""
from __future__ import annotations

import shutil

import pytest

from lifter import LiftOptions, lift_source
from lifter.analysis.affine import c_name, isl_name, is_stand_in
from tests.harness import check_program, have_gcc, loops_by_function

needs_gcc = pytest.mark.skipif(not have_gcc(), reason="needs gcc")


def test_stand_in_names_are_readable_distinct_and_print_back_as_c():
    a, b = isl_name("k * dim"), isl_name("g->n")
    assert a.startswith("w_k_dim") and b.startswith("w_g_n")
    assert isl_name("k * dim") == a and isl_name("k*dim") != a  # one name per text
    assert c_name(f"2 * {a} + v_n") == "2 * (k * dim) + n"
    assert c_name("v_w_k_dim") == "w_k_dim"  # a C variable that looks like a stand-in
    assert is_stand_in("g->n") and not is_stand_in("n")


PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>

struct grid { int n; int nx, ny; double *u; double *v; };
typedef struct { long len; double *data; } vec;

void field_bound(struct grid *g)
{
    for (int i = 0; i < g->n; i++)
        g->u[i] = 2.0 * g->v[i] + i;
}

void product_bound(double *a, int k, int dim)
{
    for (int t = 0; t < k * dim; t++)
        a[t] = t * 0.5;
}

void struct_value(vec s, double *out)
{
    for (long i = 0; i < s.len; i++)
        out[i] = s.data[i] * 3.0;
}

void field_product(struct grid *g)
{
    for (int i = 0; i < g->nx * g->ny; i++)
        g->v[i] = g->v[i] + 1.0;
}

/* Delinearized with a struct field as the row length. */
void smooth(struct grid *g, double *w)
{
    for (int i = 1; i < g->nx - 1; i++)
        for (int j = 1; j < g->ny - 1; j++)
            w[i * g->ny + j] = 0.25 * (g->v[(i - 1) * g->ny + j] + g->v[(i + 1) * g->ny + j]
                                       + g->v[i * g->ny + j - 1] + g->v[i * g->ny + j + 1]);
}

/* NEGATIVE: the bound is written in the loop. */
void bound_written(struct grid *g)
{
    for (int i = 0; i < g->n; i++) {
        g->u[i] = g->u[i] + 1.0;
        if (i == 3)
            g->n = g->n - 1;
    }
}

/* NEGATIVE: the bound is written through another pointer of the same type. */
void bound_written_elsewhere(struct grid *g, struct grid *h)
{
    for (int i = 0; i < g->n; i++) {
        g->u[i] = g->u[i] * 2.0;
        h->n = 40;
    }
}

/* NEGATIVE: the bound is written through an int pointer (here it points to it). */
void bound_written_through_int(struct grid *g, int *count)
{
    for (int i = 0; i < g->n; i++) {
        g->u[i] = g->u[i] + i;
        count[0] = 30;
    }
}

/* NEGATIVE: a factor of the product is written in the loop. */
void factor_written(double *a, int k, int dim)
{
    for (int t = 0; t < k * dim; t++) {
        a[t] = a[t] + t;
        if (t == 5)
            dim = 3;
    }
}

int main(void)
{
    struct grid g, h;
    g.n = 100; g.nx = 10; g.ny = 10;
    g.u = calloc(100, sizeof(double));
    g.v = calloc(100, sizeof(double));
    for (int i = 0; i < 100; i++) g.v[i] = i * 0.25;
    field_bound(&g);
    field_product(&g);
    double *w = calloc(100, sizeof(double));
    smooth(&g, w);
    for (int i = 0; i < 100; i++) g.u[i] += w[i];
    free(w);
    double a[600];
    product_bound(a, 20, 30);
    vec s; s.len = 50; s.data = g.u;
    double out[50];
    struct_value(s, out);
    bound_written(&g);
    g.n = 100;
    bound_written_elsewhere(&g, &g);
    g.n = 100;
    bound_written_through_int(&g, &g.n);
    factor_written(a, 20, 30);
    double sum = 0;
    for (int i = 0; i < 100; i++) sum += g.u[i] * (i % 7) + g.v[i] * (i % 5);
    for (int i = 0; i < 50; i++) sum += out[i] * (i % 3);
    for (int i = 0; i < 600; i++) sum += a[i] * (i % 11);
    printf("%.17g %d %d\n", sum, g.n, h.n = 0);
    free(g.u); free(g.v);
    return 0;
}
"""


def test_invariant_bounds_are_modelled_and_parallel():
    loops = loops_by_function(PROGRAM)
    for name in ("field_bound", "product_bound", "struct_value", "field_product", "smooth"):
        assert loops[name][0]["parallelized"], (name, loops[name][0]["reason"])
    assert "g->n" in loops["field_bound"][0]["condition"]


def test_bounds_written_in_the_loop_stay_sequential():
    loops = loops_by_function(PROGRAM)
    for name in ("bound_written", "bound_written_elsewhere", "bound_written_through_int", "factor_written"):
        assert not loops[name][0]["parallel"], name
        assert "invariant" in loops[name][0]["reason"], loops[name][0]["reason"]


def test_lifted_text_uses_the_expressions_not_the_stand_in_names():
    text = lift_source(PROGRAM, "c.c", LiftOptions(min_parallel_work=0)).output
    assert "w_" not in text


@needs_gcc
@pytest.mark.parametrize("threads", [1, 2, 8])
def test_program_gives_identical_results(tmp_path, threads):
    check_program(PROGRAM, "stand_ins.c", tmp_path, threads)


@needs_gcc
def test_cuda_output_computes_the_same(tmp_path):
    from tests.backend.test_cuda import CXX, host_part, same_results

    if shutil.which(CXX) is None:
        pytest.skip("needs g++ (emulated CUDA)")
    output = same_results(PROGRAM, tmp_path)
    assert "w_" not in host_part(output)
    assert "void kernel_field_bound_i" in output and "void kernel_smooth_i" in output


UNION = """
union cell { int n; int m; };
struct box { union cell c; double *u; };
void fill(struct box *b)
{
    for (int i = 0; i < b->c.n; i++) {
        b->u[i] = i;
        b->c.m = 1;
    }
}
"""


def test_a_field_sharing_storage_in_a_union_is_no_stand_in():
    (loop,) = lift_source(UNION, "u.c", LiftOptions(min_parallel_work=0)).loops
    assert not loop["parallel"] and "invariant" in loop["reason"]
