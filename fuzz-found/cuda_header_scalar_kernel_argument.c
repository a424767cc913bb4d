/* fuzz-found (brink --target cuda, master seed 16003, program seed 1093348981), reduced by hand.
   `m = n - 2;` in the i loop (host), then the j loop on the GPU with an inner `k <= m`: the model
   reads that header as the value n - 2 (index_scalars.py), so no statement of the kernel reads
   `m` and it was no kernel argument, but the kernel's text names it. nvcc: `identifier "m" is
   undefined` (g++ on the emulation: `'m' was not declared in this scope`). Fixed: the scalars that
   headers inside a kernel read (`Loop.header_scalars`) are passed by value
   (backend/cuda_kernels.py, `_bind`). gcc -O1: "14814354". */
#include <stdio.h>
static long A[10][10], B[10][10], X[10][10];
static void product(int n)
{
    int i, j, k, m = 0;
    for (i = 1; i < n - 1; i++) {
        m = n - 2;
        for (j = 1; j < n - 1; j++) {
            B[i][j] = X[i][j] % 5;
            for (k = 1; k <= m; k++)
                X[i][j] += A[i][k] * B[k][j];
        }
    }
}
int main(void)
{
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++) {
            A[i][j] = (i * 3 + j * 5) % 7;
            B[i][j] = (i * 3 + j * 5 + 1) % 7;
            X[i][j] = (i * 3 + j * 5 + 2) % 7;
        }
    product(10);
    long h = 0;
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++)
            h = h * 3 + X[i][j] + B[i][j];
    printf("%ld\n", h % 100000007);
    return 0;
}
