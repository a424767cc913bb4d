"""Row loops that scatter into the range their iteration owns (analysis/owned_rows.py): NPB IS's
ranking of each bucket's keys, `key_rank[buf[k]]++` for the keys of bucket `b`, with
`key_rank[b << SHIFT ..]` zeroed and summed by the same iteration. The loop over the buckets
runs in parallel when a pass over the keys finds each in its own bucket's range; the lifted
program computes what the original does at 1, 2 and 8 threads, also where that pass fails (a key
outside its bucket's range, the ranges overlapping the keys) and the loop runs as written.
Near misses keep their remarks: a row loop whose iteration owns nothing else of the array, and
one that writes the index array it gathers through."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import have_gcc, prepare, write_program

RANKS = r"""#include <stdio.h>
#include <stdlib.h>
#define SHIFT 5
#define NB 64
#define MAXKEY (NB << SHIFT)

/* rank[k] = the number of keys <= k, bucket by bucket: the keys of bucket b are buf[start[b] ..
   start[b + 1] - 1] and, when the bucketing was right, all lie in [b << SHIFT, (b + 1) << SHIFT) */
void rank_keys(const int *start, const int *buf, int *rank)
{
    for (int b = 0; b < NB; b++) {
        int first = b << SHIFT, end = (b + 1) << SHIFT;
        for (int k = first; k < end; k++)
            rank[k] = 0;
        for (long k = start[b]; k < start[b + 1]; k++)
            rank[buf[k]]++;
        int total = start[b];
        for (int k = first; k < end; k++) {
            total += rank[k];
            rank[k] = total;
        }
    }
}

/* counts one bucket ahead of its range, the index array's keys one bucket lower (d = 32) */
void count_shifted(const long *start, const short *idx, long *count)
{
    for (int b = 1; b < NB; b++) {
        for (int k = 0; k < 1 << SHIFT; k++)
            count[(b << SHIFT) + k] = k;
        for (long k = start[b]; k < start[b + 1]; k++)
            count[idx[k] + 32] += 2;
    }
}

/* nothing of last is the iteration's own: stays sequential */
void unowned(const int *start, const int *buf, int *last)
{
    for (int b = 0; b < NB; b++)
        for (long k = start[b]; k < start[b + 1]; k++)
            last[buf[k]] = b;
}

/* the row loop also writes the keys it gathers through: stays sequential */
void rewrites_keys(const int *start, int *buf, int *rank)
{
    for (int b = 0; b < NB; b++) {
        for (int k = b << SHIFT; k < (b + 1) << SHIFT; k++)
            rank[k] = 0;
        for (long k = start[b]; k < start[b + 1]; k++) {
            rank[buf[k]] += 1;
            buf[k] ^= 1;
        }
    }
}

static long digest(long n, const int *v)
{
    long h = 0;
    for (long i = 0; i < n; i++)
        h = (h * 31 + v[i]) % 1000000007L;
    return h;
}

int main(void)
{
    long n = 200000;
    int *keys = malloc(sizeof(int) * (size_t)n), *buf = malloc(sizeof(int) * (size_t)n);
    int *rank = malloc(sizeof(int) * (MAXKEY + 64)), start[NB + 1], fill[NB], count[NB] = {0};
    long lstart[NB + 1], *lcount = malloc(sizeof(long) * (MAXKEY + 64));
    short *idx = malloc(sizeof(short) * (size_t)n);
    for (long i = 0; i < n; i++)
        keys[i] = (int)((i * 2654435761u) % (unsigned)MAXKEY);
    for (long i = 0; i < n; i++)
        count[keys[i] >> SHIFT]++;
    start[0] = 0;
    for (int b = 0; b < NB; b++)
        start[b + 1] = start[b] + count[b], fill[b] = start[b];
    for (long i = 0; i < n; i++)
        buf[fill[keys[i] >> SHIFT]++] = keys[i];
    long h = 0;
    rank_keys(start, buf, rank);  /* every key in its bucket's range */
    h = digest(MAXKEY, rank);
    buf[start[7] + 3] = (9 << SHIFT) + 1;  /* a key in another bucket's range: runs as written */
    rank_keys(start, buf, rank);
    h = h * 7 + digest(MAXKEY, rank);
    buf[start[7] + 3] = MAXKEY + 17;  /* beyond every range */
    rank_keys(start, buf, rank);
    h = h * 7 + digest(MAXKEY + 64, rank);
    buf[start[7] + 3] = 7 << SHIFT;
    int *both = malloc(sizeof(int) * (size_t)(n + MAXKEY));  /* the ranks overlap the keys */
    for (long i = 0; i < n; i++) both[MAXKEY / 2 + i] = buf[i];
    rank_keys(start, both + MAXKEY / 2, both);
    h = h * 7 + digest(n + MAXKEY / 2, both);
    for (int b = 0; b <= NB; b++) lstart[b] = start[b];
    for (long i = 0; i < n; i++) idx[i] = (short)(buf[i] - (1 << SHIFT));
    for (long i = 0; i < MAXKEY + 64; i++) lcount[i] = 0;
    count_shifted(lstart, idx, lcount);
    for (long i = 0; i < MAXKEY + 64; i++) h = (h * 31 + lcount[i]) % 1000000007L;
    idx[start[20]] = 3;  /* outside bucket 20's range */
    count_shifted(lstart, idx, lcount);
    for (long i = 0; i < MAXKEY + 64; i++) h = (h * 31 + lcount[i]) % 1000000007L;
    for (long i = 0; i < MAXKEY; i++) rank[i] = 0;
    unowned(start, buf, rank);
    rewrites_keys(start, buf, rank);
    printf("%ld %ld %ld\n", h, digest(MAXKEY, rank), digest(n, buf));
    free(keys); free(buf); free(rank); free(both); free(lcount); free(idx);
    return 0;
}
"""


def _lifted():
    return lift_source(RANKS, "r.c", LiftOptions(min_parallel_work=0))


def _outer(function: str) -> dict:
    return min((e for e in _lifted().loops if e["function"] == function), key=lambda e: e["line"])


def test_ranking_runs_in_parallel_under_the_pass_and_near_misses_stay_sequential():
    rank = _outer("rank_keys")
    assert rank["parallelized"], rank["remark"]
    assert "lift_owned_rows_int__int(buf, start, 0, 0, 63, 32, 0, 32, 31, 0, 0)" in rank["remark"]
    shifted = _outer("count_shifted")
    assert shifted["parallelized"], shifted["remark"]
    assert "lift_owned_rows_short__long(idx, start, 0, 1, 63, 32, 0, 32, 31, 32, 32)" in shifted["remark"]
    for function in ("unowned", "rewrites_keys"):
        e = _outer(function)
        assert not e["parallelized"] and "owned" not in e["remark"], (function, e["remark"])
    text = _lifted().output
    assert text.count("static int lift_owned_rows_") == 2  # one inspector per pair of types


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_ranking_computes_what_the_original_does(tmp_path):
    diff = prepare(write_program(tmp_path, "ranks", RANKS), tmp_path)
    for threads in (1, 2, 8):
        diff.check(threads)
