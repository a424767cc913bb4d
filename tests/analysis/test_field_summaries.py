"""Call summaries through struct fields of pointer parameters, and pointers that C's aliasing
rules keep apart.

A helper that reads `high->energy` (a field through a pointer parameter) has a summary: the
call reads the argument's block, and the caller also sees it as `x->energy`, its own key for
that field. So an event loop in the style of XSBench (own seed per event, helpers that
binary-search and interpolate read-only tables reached through a struct passed by value,
`d.result[i]` written) runs in parallel: the tables cannot be bounded at run time, but they
hold doubles and ints and the loop writes `unsigned long`s, which C's aliasing rules keep
apart. A helper that writes a field through its pointer parameter still writes in the
caller (the loop stays sequential), and an output of the tables' own type that may point
into them keeps the loop sequential too. Differential at 1, 2 and 8 threads."""
import pytest

from tests.harness import check_program, have_gcc, loops_by_function

pytestmark = pytest.mark.skipif(not have_gcc(), reason="needs gcc")

PROGRAM = """#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

typedef struct {
    double energy;
    double total;
    double absorption;
} GridPoint;

typedef struct {
    long hits;
    double last;
} Counter;

typedef struct {
    GridPoint *grid;    /* nmat x ngrid, each row sorted by energy */
    double *conc;       /* one concentration per material */
    int *order;         /* material of each slot */
    unsigned long *result;
    int ngrid;
    int nmat;
} Data;

static double next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

static long grid_search(long n, double e, const GridPoint *grid)
{
    long lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (grid[mid].energy > e)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

static void interpolate(double e, const GridPoint *low, double *xs)
{
    const GridPoint *high = low + 1;
    double f = (high->energy - e) / (high->energy - low->energy);
    xs[0] = high->total - f * (high->total - low->total);
    xs[1] = high->absorption - f * (high->absorption - low->absorption);
}

static void macro_xs(double e, int mat, int ngrid, const GridPoint *grids, const double *conc, double *out)
{
    double xs[2];
    const GridPoint *row = &grids[mat * ngrid];
    long idx = grid_search(ngrid, e, row);
    interpolate(e, &row[idx], xs);
    out[0] = xs[0] * conc[mat];
    out[1] = xs[1] * conc[mat];
}

/* the event loop: parallel */
static void events(long n, Data d)
{
    for (long i = 0; i < n; i++) {
        uint64_t seed = 0x9E3779B97F4A7C15ULL ^ (uint64_t)(i * 2654435761u);
        double e = next_random(&seed);
        int mat = d.order[(int)(next_random(&seed) * d.nmat)];
        double macro[2];
        macro_xs(e, mat, d.ngrid, d.grid, d.conc, macro);
        d.result[i] = macro[0] > macro[1] ? 1 + (unsigned long)(1000 * macro[0])
                                          : 2 + (unsigned long)(1000 * macro[1]);
    }
}

static void count(Counter *c, double v)
{
    c->hits += 1;
    c->last = v;
}

/* the helper writes c->hits and c->last in every iteration: sequential */
static void counted_events(long n, Data d, Counter *c)
{
    for (long i = 0; i < n; i++) {
        double macro[2];
        macro_xs(0.001 * (i % 997), (int)(i % d.nmat), d.ngrid, d.grid, d.conc, macro);
        count(c, macro[0]);
        d.result[i] = (unsigned long)c->hits;
    }
}

static void heat(GridPoint *p, double by)
{
    p->total += by;
}

/* the helper writes a field of a grid point another iteration reads: sequential */
static void heat_events(long n, Data d)
{
    for (long i = 0; i < n; i++) {
        double macro[2];
        macro_xs(0.5, 0, d.ngrid, d.grid, d.conc, macro);
        heat(&d.grid[i % 7 + 1], 0.25);
        d.result[i] = (unsigned long)(1000 * macro[0]);
    }
}

/* out holds doubles, as the grid does: it may point into the grid, no test can bound the
   grid's range, so the loop stays sequential (main passes a pointer into the grid) */
static void lookups(long n, Data d, double *out)
{
    for (long i = 0; i < n; i++) {
        double macro[2];
        macro_xs(0.002 * (i % 499), (int)(i % d.nmat), d.ngrid, d.grid, d.conc, macro);
        out[i] = macro[0] + macro[1];
    }
}

int main(void)
{
    Data d;
    long n = 20000;
    d.ngrid = 300;
    d.nmat = 5;
    d.grid = malloc(sizeof(GridPoint) * d.ngrid * d.nmat);
    d.conc = malloc(sizeof(double) * d.nmat);
    d.order = malloc(sizeof(int) * d.nmat);
    d.result = malloc(sizeof(unsigned long) * n);
    for (int m = 0; m < d.nmat; m++) {
        d.conc[m] = 1.0 + 0.5 * m;
        d.order[m] = (m * 3) % d.nmat;
        for (int g = 0; g < d.ngrid; g++) {
            GridPoint *p = &d.grid[m * d.ngrid + g];
            p->energy = (double)g / (d.ngrid - 1);
            p->total = 1.0 + ((g * 7 + m) % 11) * 0.25;
            p->absorption = 0.5 + ((g * 5 + m) % 13) * 0.125;
        }
    }
    unsigned long check = 0;
    events(n, d);
    for (long i = 0; i < n; i++)
        check = (check * 31 + d.result[i]) % 1000000007UL;
    Counter c = {0, 0.0};
    counted_events(n, d, &c);
    for (long i = 0; i < n; i++)
        check = (check * 31 + d.result[i]) % 1000000007UL;
    heat_events(n, d);
    for (long i = 0; i < n; i++)
        check = (check * 31 + d.result[i]) % 1000000007UL;
    /* the output overlaps the grid points of material 1 onwards */
    double *out = &d.grid[d.ngrid].energy;
    lookups(d.ngrid * 3, d, out);
    double s = 0.0;
    for (long j = 0; j < 3L * d.ngrid * d.nmat; j++)
        s += ((double *)d.grid)[j];
    printf("check %lu hits %ld last %.9f grid %.9e\\n", check, c.hits, c.last, s);
    free(d.grid); free(d.conc); free(d.order); free(d.result);
    return 0;
}
"""


def _outer(function):
    return next(e for e in loops_by_function(PROGRAM)[function] if e["depth"] == 0)


def test_an_event_loop_with_helpers_reading_fields_through_pointers_is_parallel():
    entry = _outer("events")
    assert entry["parallelized"], (entry["reason"], entry["remark"])


def test_a_helper_writing_a_field_through_its_pointer_parameter_writes_in_the_caller():
    counted = _outer("counted_events")
    assert not counted["parallel"] and "c->" in counted["reason"], counted["reason"]
    heated = _outer("heat_events")
    assert not heated["parallel"], heated["remark"]


def test_an_output_of_the_tables_own_type_is_not_taken_apart_from_them():
    entry = _outer("lookups")
    assert not entry["parallelized"] and "overlap" in entry["reason"], entry["reason"]


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_field_summaries_compute_the_same(tmp_path, threads):
    check_program(PROGRAM, "fields.c", tmp_path, threads)


# Gathers through an index array: the range read from `a` is known only after a pass over `idx`
# (analysis/affine_gathers.py), so the element types keep `a` and `out` apart without one where
# they can. Signedness and qualifiers do not make types different, a character type reaches
# anything, and a struct reaches its members' types.
GATHERS = """
typedef struct { double w; long tag; } Item;

void long_from_double(long n, const int *idx, const double *a, long *out)
{
    for (long i = 0; i < n; i++)
        out[i] = (long)a[idx[i]];
}

void unsigned_from_int(long n, const int *idx, const int *a, unsigned *out)
{
    for (long i = 0; i < n; i++)
        out[i] = (unsigned)a[idx[i]] + 1u;
}

void long_from_char(long n, const int *idx, const char *a, long *out)
{
    for (long i = 0; i < n; i++)
        out[i] = a[idx[i]];
}

void long_from_item(long n, const int *idx, const Item *a, long *out)
{
    for (long i = 0; i < n; i++)
        out[i] = a[idx[i]].tag;
}

void int_from_item(long n, const int *idx, const Item *a, int *out)
{
    for (long i = 0; i < n; i++)
        out[i] = (int)a[idx[i]].w;
}
"""


def test_only_element_types_that_share_no_scalar_type_are_kept_apart():
    loops = loops_by_function(GATHERS)
    verdicts = {f: (loops[f][0]["parallelized"], "lift_gather_apart" in loops[f][0].get("condition", "")) for f in loops}
    assert verdicts == {"long_from_double": (True, False), "unsigned_from_int": (True, True),
                        "long_from_char": (True, True), "long_from_item": (False, False),
                        "int_from_item": (True, False)}, verdicts
    assert "overlap" in loops["long_from_item"][0]["reason"]  # (a field of the gathered elements: no pass)


# The caller writes a field that the helper reads through its pointer parameter: the call's
# read is seen under the caller's own key `c->last`, so the flow dependence is found.
FIELD_FLOW = """
typedef struct { long hits; double last; } Counter;

static double peek(const Counter *p) { return p->last; }

void once(long n, Counter *c, double *out)
{
    for (long i = 0; i < n; i++) {
        if (i == 5)
            c->last = 2.0;
        out[i] = peek(c);
    }
}
"""


def test_a_field_the_caller_writes_and_a_helper_reads_is_a_flow_dependence():
    entry = loops_by_function(FIELD_FLOW)["once"][0]
    assert not entry["parallel"] and "c->last" in entry["reason"], entry["reason"]
