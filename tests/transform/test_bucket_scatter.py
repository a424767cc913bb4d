"""A counting sort's scatter, `buf[fill[b]++] = keys[i]` (NPB IS's bucket placement), runs on all
threads (transform/bucket_scatter.py): each thread counts its share's buckets, then stores at
offsets of its own. The lifted program computes what the original does at 1, 2 and 8 threads,
also where the run-time checks send it back to the loop as written (buckets whose ranges overlap,
a target that is the array being read). Loops of other shapes keep their remarks: a call, a read
at another index, offsets in a pointer, and a bucket or value that reads the offsets or the target
(the threads would see their own offsets, or items another thread stores)."""
import pytest

from lifter import LiftOptions, lift_source
from tests.harness import compile_c, have_gcc, outputs_match, run

SCATTERS = r"""#include <stdio.h>
#include <stdlib.h>
#define NB 256

/* keys into their buckets: every bucket's range starts where the one before ends */
void scatter(long n, const int *keys, int *buf, const int *start, long *last)
{
    int fill[NB];
    for (int b = 0; b < NB; b++)
        fill[b] = start[b];
    for (long i = 0; i < n; i++) {
        int b = keys[i] >> 8;
        buf[fill[b]++] = keys[i] ^ (int)(i & 1);
    }
    *last = 0;
    for (int b = 0; b < NB; b++)
        *last += fill[b] * (long)(b + 1);
}

/* a call makes the value: not a scatter the pass takes */
static int twice(int v) { return 2 * v; }
void called(long n, const int *keys, int *buf, const int *start)
{
    int fill[NB];
    for (int b = 0; b < NB; b++)
        fill[b] = start[b];
    for (long i = 0; i < n; i++) {
        int b = keys[i] >> 8;
        buf[fill[b]++] = twice(keys[i]);
    }
}

/* a read at another index than the loop's own */
void shifted(long n, const int *keys, int *buf, const int *start)
{
    int fill[NB];
    for (int b = 0; b < NB; b++)
        fill[b] = start[b];
    for (long i = 0; i < n - 1; i++) {
        int b = keys[i] >> 8;
        buf[fill[b]++] = keys[i + 1];
    }
}

/* the offsets in the caller's array: its length is not known here, the buckets' range is found first */
void pointed(long n, const int *keys, int *buf, int *fill)
{
    for (long i = 0; i < n; i++) {
        int b = keys[i] >> 8;
        buf[fill[b]++] = keys[i];
    }
}

/* the value reads the offsets, the bucket reads the target, the bucket reads the offsets */
void offsets_read(long n, const int *keys, int *buf, const int *start)
{
    int fill[NB];
    for (int b = 0; b < NB; b++)
        fill[b] = start[b];
    for (long i = 0; i < n; i++) {
        int b = keys[i] >> 8;
        buf[fill[b]++] = keys[i] + fill[(b + 1) % NB];
    }
}

void target_read(long n, const int *keys, int *buf, const int *start)
{
    int fill[NB];
    for (int b = 0; b < NB; b++)
        fill[b] = start[b];
    for (long i = 0; i < n; i++) {
        int b = buf[i] >> 8;
        buf[fill[b]++] = keys[i];
    }
}

void bucket_from_offsets(long n, const int *keys, int *buf, const int *start)
{
    int fill[NB];
    for (int b = 0; b < NB; b++)
        fill[b] = start[b];
    for (long i = 0; i < n; i++) {
        int b = fill[keys[i] & 255] >> 12;
        buf[fill[b]++] = keys[i];
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
    long n = 300000;
    int *keys = malloc(sizeof(int) * (size_t)n), *buf = malloc(sizeof(int) * (size_t)n);
    int start[NB], same[NB], count[NB] = {0};
    for (long i = 0; i < n; i++)
        keys[i] = (int)((i * 2654435761u) % 65536u);
    for (long i = 0; i < n; i++)
        count[keys[i] >> 8]++;
    for (int b = 0, at = 0; b < NB; b++) {
        start[b] = at;
        same[b] = 0;
        at += count[b];
    }
    long last = 0, h = 0;
    scatter(n, keys, buf, start, &last);
    h = digest(n, buf);
    /* every bucket from 0: the ranges overlap, later items overwrite earlier ones as written */
    for (long i = 0; i < n; i++) buf[i] = -1;
    scatter(n, keys, buf, same, &last);
    h = h * 7 + digest(n, buf) + last;
    /* in place: the target is the array read */
    int *copy = malloc(sizeof(int) * (size_t)n);
    for (long i = 0; i < n; i++) copy[i] = keys[i];
    scatter(n, copy, copy, start, &last);
    h = h * 7 + digest(n, copy) + last;
    called(n, keys, buf, start);
    h = h * 7 + digest(n, buf);
    shifted(n, keys, buf, start);
    h = h * 7 + digest(n, buf);
    int fill[NB];
    for (int b = 0; b < NB; b++) fill[b] = start[b];
    pointed(n, keys, buf, fill);
    target_read(n, keys, buf, start);  /* (buf holds keys here: the buckets stay in fill) */
    offsets_read(n, keys, buf, start);
    bucket_from_offsets(n, keys, buf, start);
    printf("%ld %ld\n", h, digest(n, buf));
    free(keys); free(buf); free(copy);
    return 0;
}
"""


def _lifted():
    return lift_source(SCATTERS, "s.c", LiftOptions(min_parallel_work=0))


def test_scatter_runs_on_all_threads_and_other_shapes_keep_their_remarks():
    loops = {}
    for e in _lifted().loops:
        loops.setdefault(e["function"], []).append(e)
    scatter = max(loops["scatter"], key=lambda e: e["line"] if "buckets" in e["remark"] else 0)
    assert scatter["parallelized"]
    assert scatter["remark"] == (
        "loop over 'i' parallelized as a bucket scatter: each thread counts the buckets 'b' of its share of the "
        "iterations, then stores its items at its own offsets into 'buf' (in parallel when 2 * n > 0, with 8 items or "
        "more per offset in 'fill', every bucket lies in 'fill', the buckets' ranges of 'buf' come in order without overlapping, and the part written "
        "overlaps nothing the loop reads)")
    assert max(loops["pointed"], key=lambda e: e["line"])["parallelized"]  # offsets in a pointer: apps16
    for function in ("called", "shifted", "offsets_read", "target_read", "bucket_from_offsets"):
        last = max(loops[function], key=lambda e: e["line"])
        assert not last["parallelized"] and "bucket scatter" not in last["remark"], (function, last["remark"])
    assert _lifted().output.count("*lift_rows = ") == 2  # only the scatters that qualify


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
def test_scatter_computes_what_the_original_does(tmp_path):
    original, lifted = tmp_path / "orig.c", tmp_path / "lifted.c"
    original.write_text(SCATTERS)
    lifted.write_text(_lifted().output)
    compile_c(original, tmp_path / "orig", ["-O2"])
    compile_c(lifted, tmp_path / "lifted", ["-O2", "-fopenmp", "-Wall", "-Werror", "-Wno-unknown-pragmas"])
    compile_c(lifted, tmp_path / "plain", ["-O2"])  # without OpenMP the loop runs as written
    want = run(tmp_path / "orig")
    assert outputs_match(want, run(tmp_path / "plain"), 0.0)
    for threads in (1, 2, 8):
        assert outputs_match(want, run(tmp_path / "lifted", threads), 0.0)
