/* fuzz-found (brink --target cuda, master seed 16003, program seed 2054594437), reduced by hand.
   The `j` loop goes to the GPU; the memset, modelled since session 15 as a write of row i - 1
   (analysis/block_calls.py), has no GPU version and runs on the host inside the data scope. The
   rows it wrote went to the device bounded by the rows the GPU writes (rows 1 .. n - 1, not row
   0), and at the scope's end the device's stale row 0 came back over the memset's. Fixed: a
   host statement's rows are those of its own subscripts, else the whole buffer's
   (backend/cuda_region_data.py, `_node_rows`). gcc -O1: "4824766466953668351"; the emulated .cu printed "4101557902924529854". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void block(char *a, int n, int m)
{
    for (int i = 1; i < n; i++) {
        memset(a + (i - 1) * m, 1, (m - 1) * sizeof(a[0]));
        for (int j = 0; j < m; j++)
            a[i * m + j] += (char)(j & 3);
    }
}
int main(void)
{
    char *a = malloc(47);
    for (long i = 0; i < 47; i++)
        a[i] = (char)(i % 23);
    block(a, 9, 3);
    long h = 0;
    for (long i = 0; i < 47; i++)
        h = h * 31 + a[i];
    printf("%ld\n", h);
    free(a);
    return 0;
}
