/* fuzz-found (idioms seed 1847020750, --skip-idioms empty,and,struct,atomic), reduced by hand.
   Known class: shared/repro/ivar_after_distributed.c (liveness of a loop variable read after
   its loop, in a time loop that lift distributes). The time loop is split in three: the
   first is `parallel for collapse(2) private(i) reduction(^: s)` over (t, i), the second
   `for t: c += i` then reads i, which no loop left with its last value.
   gcc -O1: "12 0 3"; lift (min_parallel_work=0), gcc -O2 -fopenmp, 1/2/8 threads: "0 0 3". */
#include <stdio.h>
unsigned a[10];
double b[10][10];
int main(int argc, char **argv)
{
    int i, m = argc + 5;
    unsigned s = 0;
    unsigned long c = 0;
    (void)argv;
    for (int t = 0; t < 2; t++) {
        for (i = 1; i < m; i++)
            s ^= a[i];
        c += i;
        for (int i = 0; i < 10; i++)
            for (int j = 1; j < 10; j++)
                b[i][j] = 1.5 * i;
    }
    printf("%lu %u %g\n", c, s, b[2][2]);
    return 0;
}
