/* fuzz-found (loops --target cuda, master seed 6004, program seed 1802763014), reduced by hand.
   kernel(A1, A1, ...): A0 and A1 are one array. The `k` loop writing A2 goes to the GPU, the
   second `k` loop stays on the host inside the same data scope and writes A1, so A0's memory:
   the device copy of A0, made once before the nest, went stale and the next kernel read old
   values. The scope's run-time test only kept apart the device buffers (A0, A2). Fixed: arrays
   that host code inside the nest writes, under a name that may share a buffer's memory, are
   kept apart from every buffer too, else the nest runs on the host (backend/cuda.py,
   `_host_writes`; cuda_data.py, `_alias_condition`). gcc -O1: "13050911318251759463". */
#include <stdio.h>
#define N 9
#define K 10
static unsigned A1[19];
static unsigned A2[27][3];
static void kernel(int p, unsigned *A0, unsigned *A1, unsigned (*A2)[3])
{
    for (int i = 1; i < N - 1; i++)
        for (int j = K - 1; j >= 0; j--) {
            for (int k = 0; k < K; k++)
                A2[k - i + 7][0] = (A0[i + 1] | A0[i + 3]);
            for (int k = 0; k < p; k++) {
                A1[2 * k] = A0[k] + A0[k + 5];
                A2[2 * j + 7][1] -= A0[i + 2];
            }
        }
}
int main(void)
{
    unsigned long h = 0;
    unsigned x = 12345u;
    for (int i = 0; i < 19; i++) {
        x = x * 1103515245u + 12345u;
        A1[i] = (x >> 8) % 1000u;
    }
    for (int i = 0; i < 27; i++)
        for (int j = 0; j < 3; j++) {
            x = x * 1103515245u + 12345u;
            A2[i][j] = (x >> 8) % 1000u;
        }
    kernel(K, A1, A1, A2);
    for (int i = 0; i < 19; i++)
        h = h * 31u + A1[i];
    for (int i = 0; i < 27; i++)
        for (int j = 0; j < 3; j++)
            h = h * 31u + A2[i][j];
    printf("%lu\n", h);
    return 0;
}
