"""The fixed C support at the top of every MPI output, and the exchange code for one array.

Every rank knows every rank's block, so each rank fills two tables with one interval of rows
per rank, `lift_mpi_need` (rows the next unit reads there) and `lift_mpi_have` (rows the last
distributed writer wrote there), and `lift_mpi_exchange` sends and receives exactly the
intersections `have[q] & need[r]`, q != r, with `MPI_Isend`/`MPI_Irecv`: the halo, computed the
same way on both sides, so sends and receives always pair up. A gather is the same exchange with
every rank needing every row. Non-root ranks write their standard output to /dev/null: after
the gathers every rank holds the original's values, so rank 0 prints what the original prints.
With `-DLIFT_MPI_PROFILE`, each rank prints at exit (to stderr) the bytes it sent in halos and
in gathers, and the number of halo exchanges, so tests compare them with the ranges.
"""
from __future__ import annotations

PRELUDE = r"""#include <mpi.h> /* lift: MPI target */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
static int lift_mpi_rank, lift_mpi_size = 1;
static long *lift_mpi_need, *lift_mpi_have; /* per rank r: rows [2r, 2r+1) */
static long long lift_mpi_halo_bytes, lift_mpi_gather_bytes, lift_mpi_halo_calls;
static inline long lift_min(long a, long b) { return a < b ? a : b; }
static inline long lift_max(long a, long b) { return a > b ? a : b; }
static inline void lift_mpi_finalize(void)
{
#ifdef LIFT_MPI_PROFILE
    fprintf(stderr, "lift-mpi: rank %d of %d: halo %lld bytes, gather %lld bytes, %lld exchanges\n",
            lift_mpi_rank, lift_mpi_size, lift_mpi_halo_bytes, lift_mpi_gather_bytes, lift_mpi_halo_calls);
#endif
    fflush(stdout);
    MPI_Finalize();
}
static inline void lift_mpi_setup(void)
{
    int ready;
    MPI_Initialized(&ready);
    if (ready)
        return;
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &lift_mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &lift_mpi_size);
    lift_mpi_need = malloc(2 * sizeof(long) * (size_t)lift_mpi_size);
    lift_mpi_have = malloc(2 * sizeof(long) * (size_t)lift_mpi_size);
    if (!lift_mpi_need || !lift_mpi_have)
        abort();
    if (lift_mpi_rank != 0 && !freopen("/dev/null", "w", stdout))
        abort();
    atexit(lift_mpi_finalize);
}
/* Block r of the iterations [lb, end): the first (count % size) blocks are one longer. */
static inline void lift_mpi_block(long lb, long end, int r, long *lo, long *hi)
{
    long n = end > lb ? end - lb : 0, q, rem;
    lift_mpi_setup();
    q = n / lift_mpi_size;
    rem = n % lift_mpi_size;
    *lo = lb + r * q + (r < rem ? r : rem);
    *hi = *lo + q + (r < rem ? 1 : 0);
}
/* Rows of `row` bytes from `base`: receive need[me] & have[q], send need[q] & have[me]. */
static inline void lift_mpi_exchange(char *base, size_t row, long long *counter)
{
    MPI_Request *req = malloc(2 * sizeof *req * (size_t)lift_mpi_size);
    MPI_Datatype rows;
    int n = 0, me = lift_mpi_rank;
    if (!req)
        abort();
    MPI_Type_contiguous((int)row, MPI_BYTE, &rows);
    MPI_Type_commit(&rows);
    for (int q = 0; q < lift_mpi_size; q++) {
        long lo, hi;
        if (q == me)
            continue;
        lo = lift_max(lift_mpi_need[2 * me], lift_mpi_have[2 * q]);
        hi = lift_min(lift_mpi_need[2 * me + 1], lift_mpi_have[2 * q + 1]);
        if (lo < hi)
            MPI_Irecv(base + (size_t)lo * row, (int)(hi - lo), rows, q, 0, MPI_COMM_WORLD, &req[n++]);
        lo = lift_max(lift_mpi_need[2 * q], lift_mpi_have[2 * me]);
        hi = lift_min(lift_mpi_need[2 * q + 1], lift_mpi_have[2 * me + 1]);
        if (lo < hi) {
            MPI_Isend(base + (size_t)lo * row, (int)(hi - lo), rows, q, 0, MPI_COMM_WORLD, &req[n++]);
            *counter += (long long)(hi - lo) * (long long)row;
        }
    }
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    MPI_Type_free(&rows);
    free(req);
}
"""


def table_line(table: str, lower: str, upper: str, first: str, last: str) -> str:
    """Fill one table for rank lift_q: the rows [first, last] of the block of [lower, upper]."""
    return (f"lift_mpi_block({lower}, ({upper}) + 1, lift_q, &lift_lo, &lift_hi); "
            f"lift_mpi_{table}[2 * lift_q] = lift_lo < lift_hi ? ({first}) : 0; "
            f"lift_mpi_{table}[2 * lift_q + 1] = lift_lo < lift_hi ? ({last}) + 1 : 0;")


def exchange(name: str, have: str, need: str | None, what: str) -> str:
    """One statement: the halo of array `name` (`need` fills the needed rows per rank), or with
    `need` None, the gather of every row to every rank. `have` fills the rows each rank wrote."""
    if need is None:
        need = "lift_mpi_need[2 * lift_q] = LONG_MIN / 4; lift_mpi_need[2 * lift_q + 1] = LONG_MAX / 4;"
        counter, count = "&lift_mpi_gather_bytes", ""
    else:
        counter, count = "&lift_mpi_halo_bytes", " lift_mpi_halo_calls++;"
    return (f"{{ /* lift-mpi: {what} of '{name}' */ long lift_lo, lift_hi; "
            f"for (int lift_q = 0; lift_q < lift_mpi_size; lift_q++) {{ {have} {need} }} "
            f"lift_mpi_exchange((char *)({name}), sizeof(({name})[0]), {counter});{count} }}")
