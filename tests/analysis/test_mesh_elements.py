"""Element loops of unstructured-mesh codes (issue 16, items 1, 4 and 7): a helper reading node
arrays through a struct-pointer parameter's fields (`d->x[elemToNode[k]]`), a pointer local
naming the element's slice of the connectivity (`const int *elemToNode = &d->nodelist[4*i];`),
and the gather `d->x[d->nodelist[4*i + k]]`. Each loop over elements is parallel under a
run-time test that one pass over the connectivity the loop reads bounds the gathered nodes
(`lift_gathers_apart_*`, one pass for x and y); the second run places `vnew` inside `x` (`d->vnew == d->x + 3`), where
the tests must fail and the loops run as written. Differential at 1, 2 and 8 threads, and the
refusals: the index array written in the loop, the gather under an `if`, a helper writing the
field the bound reads, a pointer local set again."""
import pytest
from pycparser import c_parser

from lifter.analysis.call_summaries import FieldAccess, Gather
from lifter.analysis.symbols import SymbolTable, Typedefs
from tests.harness import have_gcc, loops_by_function, prepare, write_program

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>

typedef double Real_t;
typedef int Index_t;
typedef struct {
    Index_t numElem, numNode;
    Index_t *nodelist;
    Index_t *flag;
    Real_t *x, *y, *vnew, *volo;
} Domain;

static void collect_nodes(const Domain *d, const Index_t *elemToNode, Real_t xl[4], Real_t yl[4])
{
    for (int k = 0; k < 4; ++k) {
        xl[k] = d->x[elemToNode[k]];
        yl[k] = d->y[elemToNode[k]];
    }
}

/* a pointer local naming the element's nodes, read through subscripts */
static void calc_alias(Domain *d)
{
    for (Index_t i = 0; i < d->numElem; ++i) {
        const Index_t *elemToNode = &d->nodelist[4 * i];
        Real_t xl[4], yl[4];
        for (int k = 0; k < 4; ++k) {
            xl[k] = d->x[elemToNode[k]];
            yl[k] = d->y[elemToNode[k]];
        }
        d->vnew[i] = (xl[0] + xl[2]) * (yl[1] - yl[3] + 0.5) / d->volo[i];
    }
}

/* a helper reading node arrays through the struct, handed the element's nodes */
static void calc_helper(Domain *d)
{
    for (Index_t i = 0; i < d->numElem; ++i) {
        const Index_t *elemToNode = &d->nodelist[4 * i];
        Real_t xl[4], yl[4];
        collect_nodes(d, elemToNode, xl, yl);
        d->vnew[i] = (xl[1] + yl[2]) / d->volo[i] + xl[3];
    }
}

/* the gather written out */
static void calc_gather(Domain *d)
{
    for (Index_t i = 0; i < d->numElem; ++i) {
        Real_t s = 0.0;
        for (int k = 0; k < 4; ++k)
            s += d->x[d->nodelist[4 * i + k] + 1] * 0.25 + d->y[d->nodelist[4 * i + k]];
        d->vnew[i] = s * d->volo[i];
    }
}

/* NEGATIVE: the index array is written in the loop */
static void renumber(Domain *d)
{
    const Index_t n = d->numElem;
    for (Index_t i = 0; i < n; ++i) {
        d->nodelist[4 * i] = d->nodelist[4 * i + 1];
        d->vnew[i] = d->x[d->nodelist[4 * i]] + d->x[d->nodelist[4 * i + 2]];
    }
}

/* NEGATIVE: the gather is under an `if` */
static void masked(Domain *d)
{
    for (Index_t i = 0; i < d->numElem; ++i) {
        Real_t v = 0.0;
        if (d->flag[i])
            v = d->x[d->nodelist[4 * i + 3]];
        d->vnew[i] = v + 1.0;
    }
}

static void drop_last(Domain *d, Index_t i)
{
    d->vnew[i] = d->x[i];
    if (i == d->numElem - 1 && d->numElem > 1)
        d->numElem = d->numElem - 1;
}

/* NEGATIVE: a helper writes the field the bound reads */
static void shrinking(Domain *d)
{
    for (Index_t i = 0; i < d->numElem; ++i)
        drop_last(d, i);
}

static void copy_elem(Domain *d, Index_t i)
{
    d->vnew[i] = d->volo[i] * 2.0 + d->numNode;
}

/* a helper that reads a field the bound does not, and writes another array field: the bound
   stays a parameter (the loop is sequential for the write of any element of d->vnew) */
static void copying(Domain *d)
{
    for (Index_t i = 0; i < d->numElem; ++i)
        copy_elem(d, i);
}

/* NEGATIVE: the pointer local is set again */
static void repointed(Domain *d)
{
    const Index_t n = d->numElem;
    for (Index_t i = 0; i < n; ++i) {
        const Index_t *nodes = &d->nodelist[4 * i];
        if (d->flag[i])
            nodes = &d->nodelist[0];
        d->vnew[i] = d->x[nodes[0]] + d->x[nodes[1]];
    }
}

static double checksum(const Domain *d)
{
    double s = 0.0;
    for (Index_t i = 0; i < d->numElem; i++)
        s += d->vnew[i] * (1 + i % 7);
    return s;
}

int main(void)
{
    const int nx = 60;
    Domain d;
    d.numElem = nx * nx;
    d.numNode = (nx + 1) * (nx + 1);
    d.nodelist = malloc(sizeof(Index_t) * 4 * d.numElem);
    d.flag = malloc(sizeof(Index_t) * d.numElem);
    /* node arrays with room behind them: vnew may be placed inside x (the overlap run) */
    Real_t *xs = calloc(d.numNode + d.numElem + 8, sizeof(Real_t));
    d.x = xs;
    d.y = calloc(d.numNode + 1, sizeof(Real_t));
    Real_t *own = calloc(d.numElem, sizeof(Real_t));
    d.volo = calloc(d.numElem, sizeof(Real_t));
    for (int n = 0; n <= d.numNode; n++)
        d.y[n] = 1.0 + (n % 5) * 0.5;
    for (int j = 0; j < nx; j++)
        for (int i = 0; i < nx; i++) {
            int el = j * nx + i;
            d.nodelist[4 * el + 0] = j * (nx + 1) + i;
            d.nodelist[4 * el + 1] = j * (nx + 1) + i + 1;
            d.nodelist[4 * el + 2] = (j + 1) * (nx + 1) + i + 1;
            d.nodelist[4 * el + 3] = (j + 1) * (nx + 1) + i;
            d.flag[el] = el % 3 == 0;
            d.volo[el] = 1.0 + (el % 4);
        }
    for (int overlap = 0; overlap < 2; overlap++) {
        /* the second run writes vnew over x itself, 3 elements on: the tests must fail */
        d.vnew = overlap ? xs + 3 : own;
        for (int n = 0; n < d.numNode + d.numElem + 8; n++)
            xs[n] = 0.5 + (n % 13) * 0.25;
        calc_alias(&d);
        printf("alias %d: %.10e\n", overlap, checksum(&d));
        calc_helper(&d);
        printf("helper %d: %.10e\n", overlap, checksum(&d));
        calc_gather(&d);
        printf("gather %d: %.10e\n", overlap, checksum(&d));
    }
    d.vnew = own;
    for (int n = 0; n < d.numNode + d.numElem + 8; n++)
        xs[n] = 0.5 + (n % 13) * 0.25;
    masked(&d);
    printf("masked: %.10e\n", checksum(&d));
    repointed(&d);
    printf("repointed: %.10e\n", checksum(&d));
    copying(&d);
    printf("copying: %.10e\n", checksum(&d));
    renumber(&d);
    printf("renumber: %.10e\n", checksum(&d));
    shrinking(&d);
    printf("shrinking: %.10e %d\n", checksum(&d), d.numElem);
    free(d.nodelist);
    free(d.flag);
    free(xs);
    free(d.y);
    free(own);
    free(d.volo);
    return 0;
}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("mesh")
    return prepare(write_program(workdir, "mesh", PROGRAM), workdir)


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_element_loops_match_the_original(built, threads):
    built.check(threads)


def test_element_loops_are_parallel_under_a_pass_over_the_connectivity():
    loops = loops_by_function(PROGRAM)
    for function in ("calc_alias", "calc_helper", "calc_gather"):
        outer = next(e for e in loops[function] if e["var"] == "i")
        assert outer["parallelized"], (function, outer["reason"])
        # x and y through the same connectivity range: one pass over it for both (issue 16)
        assert "lift_gathers_apart_int((const int *)(d->nodelist), 0L, 4L*(long)(d->numElem) - 1L + 1, 2, " \
            "(const char *)(d->x)" in outer["condition"], outer["condition"]
        assert "(const char *)(d->y)" in outer["condition"], outer["condition"]
        assert outer["condition"].count("d->nodelist") == 1, outer["condition"]
    # the helper reads `d->numNode` and writes elements of `d->vnew`: neither is the bound `d->numElem`
    copying = loops["copying"][0]
    assert copying["reason"].startswith("may output dependence on d->vnew"), copying["reason"]


def test_element_loops_that_stay_sequential_say_why():
    loops = loops_by_function(PROGRAM)
    unbounded = "'d->x' and 'd->vnew' may overlap and their accessed ranges cannot be bounded at run time"
    for function in ("renumber", "masked"):
        outer = next(e for e in loops[function] if e["var"] == "i")
        assert not outer["parallelized"] and outer["reason"].startswith(unbounded), (function, outer["reason"])
    shrinking = loops["shrinking"][0]
    assert not shrinking["parallel"] and shrinking["reason"].startswith("struct field"), shrinking["reason"]
    repointed = loops["repointed"][0]
    # (set again, `nodes` is no alias: its `&` may write what it points to, as before)
    assert not repointed["parallelized"] and "d->nodelist" in repointed["reason"], repointed["reason"]


SUMMARIES = """
typedef struct { int n; int *nodes; double *x, *y, *out; } mesh_t;
static void gather(const mesh_t *m, const int *nodes, double xl[4])
{
    for (int k = 0; k < 4; k++)
        xl[k] = m->x[nodes[k] + 1] + m->y[nodes[k]];
}
static void gather_if(const mesh_t *m, const int *nodes, double xl[4])
{
    for (int k = 0; k < 4; k++)
        if (nodes[k] >= 0)
            xl[k] = m->x[nodes[k]];
}
static void put(mesh_t *m, int i, double v) { m->out[i] = v * m->n; }
static void shrink(mesh_t *m) { m->n = m->n - 1; }
static void outer(mesh_t *m, const int *nodes, double xl[4]) { gather(m, nodes, xl); put(m, 0, xl[0]); }
"""


def test_summaries_carry_field_arrays_read_and_written_and_gathers():
    ast = c_parser.CParser().parse(SUMMARIES)
    s = SymbolTable(ast, Typedefs(ast)).call_effects
    element = next(iter(s["gather"].fields)).element
    assert s["gather"].fields == {FieldAccess(0, "->x", element, False, True), FieldAccess(0, "->y", element, False, True)}
    assert s["gather"].through_fields == {0} and s["gather"].gathers == (Gather(0, "->x", 1, (1,)), Gather(0, "->y", 1, (0,)))
    assert s["gather_if"].gathers == ()  # (a branch: the index may not be read everywhere its span says)
    assert s["put"].fields == {FieldAccess(0, "->out", element, True, True), FieldAccess(0, "->n", element, False)}
    assert s["shrink"].fields == {FieldAccess(0, "->n", element, True), FieldAccess(0, "->n", element, False)}
    # composed through a call; a callee's gathers are not passed on
    assert s["outer"].fields == s["gather"].fields | s["put"].fields and s["outer"].gathers == ()


# The helper reads `c->v`; the caller writes `c[i].v`, keyed as an element of `c`, not `c->v`:
# the call keeps its read of the whole block, which meets that write.
BLOCK = r"""#include <stdio.h>
typedef struct { double v, w; } cell_t;
static double first(const cell_t *c) { return c->v; }
static void spread(cell_t *c, int n)
{
    for (int i = 0; i < n; i++)
        c[i].v = first(c) + i;
}
int main(void)
{
    static cell_t c[1000];
    c[0].v = 2.0;
    spread(c, 1000);
    double s = 0.0;
    for (int i = 0; i < 1000; i++)
        s += c[i].v * (1 + i % 7);
    printf("%.10e\n", s);
    return 0;
}
"""


def test_a_helper_reaching_fields_still_meets_the_callers_element_writes(tmp_path):
    entry = loops_by_function(BLOCK)["spread"][0]
    assert not entry["parallel"], entry
    diff = prepare(write_program(tmp_path, "block", BLOCK), tmp_path)
    for threads in (1, 2, 8):
        diff.check(threads)
