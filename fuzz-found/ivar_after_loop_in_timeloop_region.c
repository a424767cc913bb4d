/* fuzz-found (idioms seed 457049657, --skip-idioms empty,and,struct,atomic), reduced by hand.
   Known class: shared/repro/ivar_after_timeloop_region.c. One parallel loop (no nest) in a
   time loop, after a loop of calls; lift makes the time loop an `omp parallel` region with
   `single` around the calls and `omp for` on the loop, and the `s += i` after it (in a
   `single`) reads an `i` the `omp for` left unspecified (no lastprivate).
   gcc -O1: "8 0"; lift (min_parallel_work=0), gcc -O2 -fopenmp, 2 threads: "13 0". */
#include <stdio.h>
unsigned U[20][20];
static void bump(int q) { U[q][0] += 1u; }
static void kernel(int m, int tsteps)
{
    int i = 0;
    unsigned long s = 0;
    for (int t = 0; t < tsteps; t++) {
        for (i = 0; i < 13; i++)
            bump(i);
        for (i = 0; i < m - 1; i++)
            U[i + 1][i] += U[i + 1][i + 1] - U[i][i];
        s += (unsigned long)i;
    }
    printf("%lu %u\n", s, U[3][2]);
}
int main(void) { kernel(9, 1); return 0; }
