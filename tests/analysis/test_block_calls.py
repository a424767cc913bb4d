"""`memset`/`memcpy`/`memmove` of whole rows (analysis/block_calls.py): the K elements the size
argument counts (`K * sizeof(double)`, `sizeof *p * K`) are the call's accesses, so a loop that
clears or copies one row per iteration runs in parallel; rows that overlap, or a size counted in
bytes another way, keep it in order."""
from __future__ import annotations

import pytest

from tests.harness import have_gcc, loops_by_function, prepare

PROGRAM = """#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef N
#define N 30
#endif
#ifndef M
#define M 17
#endif

static void clear(double *a, int n, int m)
{
    for (int i = 0; i < n; i++) {
        memset(&a[i * m], 0, m * sizeof(double));
        for (int j = i % 3; j < m; j += 3)
            a[i * m + j] = i + 1;
    }
}

static void copy(double *dst, const double *src, int n, int m)
{
    for (int i = 0; i < n; i++)
        memcpy(dst + i * m, &src[i * m], sizeof *dst * m);
}

static void shift(double *a, int n, int m)
{
    for (int i = 0; i < n; i++)
        memmove(&a[i * m], &a[i * m + 1], (m - 1) * sizeof(a[0]));
}

static void cascade(double *a, int n, int m)
{
    /* each row is a copy of the one before: a flow dependence from row to row */
    for (int i = 1; i < n; i++)
        memcpy(&a[i * m], &a[(i - 1) * m], m * sizeof(double));
}

static void overlap(double *a, int n, int m)
{
    /* one element past the row: the next row's first element, which that row sets */
    for (int i = 0; i < n - 1; i++) {
        memset(&a[i * m], 0, (m + 1) * sizeof(double));
        a[i * m] = i + 2;
    }
}

static void bytes(double *a, int n, int m)
{
    /* half a row in bytes: a count of doubles only for even m (m * 8 is a row: test_reach17) */
    for (int i = 0; i < n; i++)
        memset(&a[i * m], 0, m * 4);
}

int main(void)
{
    double *a = malloc(sizeof(double) * N * M), *b = malloc(sizeof(double) * N * M);
    for (int k = 0; k < N * M; k++) {
        a[k] = (double)(k % 11) / 4.0;
        b[k] = (double)(k % 7) / 8.0;
    }
    clear(a, N, M);
    copy(b, a, N / 2, M);
    shift(b, N, M);
    cascade(b, N / 3, M);
    overlap(a, N, M);
    bytes(a + M * (N - 2), 2, M);
    double s = 0.0;
    for (int k = 0; k < N * M; k++)
        s += a[k] * (1 + k % 5) + b[k] * (1 + k % 3);
    printf("s: %.10e\\n", s);
    free(a);
    free(b);
    return 0;
}
"""


def test_row_block_calls_run_in_parallel():
    loops = loops_by_function(PROGRAM)
    for function in ("clear", "copy", "shift"):
        assert loops[function][0]["parallelized"], (function, loops[function][0])


def test_overlapping_or_unmeasured_blocks_keep_their_order():
    loops = loops_by_function(PROGRAM)
    for function in ("cascade", "overlap", "bytes"):
        assert not loops[function][0]["parallelized"], (function, loops[function][0])


@pytest.mark.skipif(not have_gcc(), reason="needs gcc")
@pytest.mark.parametrize("size", [3, 30])
def test_block_calls_match_the_original(tmp_path, size):
    source = tmp_path / "blocks.c"
    source.write_text(PROGRAM)
    diff = prepare(source, tmp_path, defines=[f"N={size}"])
    for threads in (1, 2, 8):
        diff.check(threads)
