"""A counting sort's final placement, `sorted[--r->rank[k]] = k` (NPB IS's full_verify): the
bucket scatter (transform/bucket_scatter.py) with the offsets counted down and reached through a
struct member or a pointer parameter, whose number is unknown: the buckets' least and greatest
are found by a first pass, and a cost model decides whether the threads' rows pay. The lifted
program computes what the original does (the placed keys and the offsets left behind) at 1, 2
and 8 threads, also where the run-time checks send it back to the loop as written: offsets whose
ranges overlap, an output that overlaps the offsets, offsets among the keys the loop reads. Two scatters sharing their offsets in one
loop keep their remark."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import have_gcc, prepare, write_program

PLACEMENTS = r"""#include <stdio.h>
#include <stdlib.h>

typedef struct {
    long n;
    int *keys;
    int *rank;  /* rank[k]: the number of keys <= k */
} Ranks;

/* every key at its rank, the last of equal keys first */
void place(const Ranks *r, int *sorted)
{
    for (long i = 0; i < r->n; i++) {
        int k = r->keys[i];
        sorted[--r->rank[k]] = k;
    }
}

/* records by the low bits of their key, counted down from each bin's end */
void place_records(long n, const int *key, const long *payload, unsigned *end, long *out)
{
    for (long i = 0; i < n; i++) {
        int bin = (key[i] & 1023) + 100;
        out[--end[bin]] = payload[i] * 2 + bin;
    }
}

/* offsets that may lie among the keys: tested at run time */
void place_low(long n, const int *key, int *end, int *out)
{
    for (long i = 0; i < n; i++) {
        int b = key[i] & 63;
        out[--end[b]] = key[i];
    }
}

/* two scatters share the offsets: stays sequential */
void two_scatters(long n, const int *key, int *pos, int *out)
{
    for (long i = 0; i < n; i++) {
        int b = key[i] & 255;
        out[pos[b]++] = key[i];
        out[pos[b]++] = -key[i];
    }
}

static long digest(long n, const int *v)
{
    long h = 0;
    for (long i = 0; i < n; i++)
        h = (h * 31 + v[i]) % 1000000007L;
    return h;
}

static void ranks(const Ranks *r, int lo, int hi)
{
    for (int k = 0; k < hi; k++)
        r->rank[k] = 0;
    for (long i = 0; i < r->n; i++)
        r->rank[r->keys[i]]++;
    for (int k = lo + 1; k < hi; k++)
        r->rank[k] += r->rank[k - 1];
}

int main(void)
{
    long n = 200000;
    int lo = 1000, hi = 3000;
    Ranks r = {n, malloc(sizeof(int) * (size_t)n), malloc(sizeof(int) * (size_t)(n + hi))};
    int *sorted = malloc(sizeof(int) * (size_t)n);
    for (long i = 0; i < n; i++)
        r.keys[i] = lo + (int)((i * 2654435761u) % (unsigned)(hi - lo));
    long h = 0;
    ranks(&r, lo, hi);
    place(&r, sorted);  /* the buckets from lo: each thread's rows start there */
    h = digest(n, sorted) * 7 + digest(hi, r.rank);
    for (int k = 0; k < hi; k++) r.rank[k] = (int)n;  /* every range ends at n: they overlap */
    place(&r, sorted);
    h = h * 7 + digest(n, sorted) + digest(hi, r.rank);
    ranks(&r, lo, hi);
    Ranks in_place = {n - hi, r.keys, r.rank};  /* the output overlaps the offsets */
    place(&in_place, r.rank + 1);
    h = h * 7 + digest(n, r.rank);
    unsigned *end = malloc(sizeof(unsigned) * 1124);
    long *payload = malloc(sizeof(long) * (size_t)n), *out = malloc(sizeof(long) * (size_t)n);
    for (int b = 0; b < 1124; b++) end[b] = 0;
    for (long i = 0; i < n; i++) payload[i] = i * 7 % 1000, end[(r.keys[i] & 1023) + 100]++;
    for (int b = 101; b < 1124; b++) end[b] += end[b - 1];
    place_records(n, r.keys, payload, end, out);
    for (long i = 0; i < n; i++) h = (h * 31 + out[i]) % 1000000007L;
    for (int b = 0; b < 1124; b++) h = (h * 31 + end[b]) % 1000000007L;
    int *low = malloc(sizeof(int) * (size_t)(n + 64)), *lend = malloc(sizeof(int) * 64);
    for (long i = 0; i < n; i++) low[64 + i] = (int)(i * 2654435761u % 64u) + 64 * (int)(i % 5);
    for (int b = 0; b < 64; b++) lend[b] = (int)n / 64 * (b + 1) + (b == 63 ? (int)n % 64 : 0);
    for (int b = 0; b < 64; b++) low[b] = lend[b];
    place_low(n, low + 64, lend, sorted);  /* apart */
    h = h * 7 + digest(n, sorted) + digest(64, lend);
    int *spread = calloc((size_t)n + 1024, sizeof(int));
    for (int b = 0; b < 64; b++) low[64 + n / 2 + b] = (int)n / 64 * (b + 1);
    place_low(n - 64, low + 64, low + 64 + n / 2, spread + 512);  /* the offsets among the keys read */
    h = h * 7 + digest(n + 1024, spread) + digest(n + 64, low);
    int *pos = calloc(256, sizeof(int)), *two = malloc(sizeof(int) * (size_t)(2 * n));
    two_scatters(n, r.keys, pos, two);
    printf("%ld %ld\n", h, digest(2 * n, two));
    free(r.keys); free(r.rank); free(sorted); free(end); free(payload); free(out); free(pos); free(two); free(low); free(lend); free(spread);
    return 0;
}
"""


def _lifted():
    return lift_source(PLACEMENTS, "p.c", LiftOptions(min_parallel_work=0))


def _loop(function: str) -> dict:
    return next(e for e in _lifted().loops if e["function"] == function)


def test_placements_are_bucket_scatters_and_two_scatters_are_not():
    for function in ("place", "place_records", "place_low"):
        e = _loop(function)
        assert e["parallelized"] and "bucket scatter" in e["remark"], (function, e["remark"])
        assert "the buckets' least and greatest found by a first pass, and when the cost model" in e["remark"]
    e = _loop("two_scatters")
    assert not e["parallelized"] and "bucket scatter" not in e["remark"], e["remark"]
    text = _lifted().output
    assert "sorted[--lift_own[k - lift_lo]] = k;" in text
    assert "out[--lift_own[bin - lift_lo]] = (payload[i] * 2) + bin;" in text


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_placements_compute_what_the_original_does(tmp_path):
    diff = prepare(write_program(tmp_path, "placements", PLACEMENTS), tmp_path)
    for threads in (1, 2, 8):
        diff.check(threads)
