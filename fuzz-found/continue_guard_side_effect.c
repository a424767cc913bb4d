/* Found while reducing idioms --target cuda, seed 2111734535 of master seed 6005 (issue 15).
   A non-affine `if (c) continue;` at the end of a loop body was a guard of the statements after
   it, and no statement followed: what its test reads and writes was in no statement of the
   model. Here the test counts (`cnt++`), so the loop was parallelized and the count lost
   updates (8 threads: "62501 ..."). Fixed: the test of such a guard is a statement of the body
   (analysis/scop.py, `_item`). gcc -O1: "100001 10.000000". */
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    int n = 100001;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    int cnt = 0;
    for (int i = 0; i < n; i++)
        b[i] = i % 7;
    for (int i = 0; i < n; i++) {
        a[i] = b[i] * 2.0;
        if (cnt++ > n)
            continue;
    }
    printf("%d %f\n", cnt, a[n - 1]);
    free(a);
    free(b);
    return 0;
}
