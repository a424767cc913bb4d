/* Found by scripts/fuzz.py idioms --target cuda, seed 550919631 (fuzz10), reduced by hand.
   The sequential time loop keeps its data on the device and runs on one GPU thread; it calls
   the file-local helper bump, which the CUDA target made host+device (LIFT_HD), but bump names
   the file's static array U itself, host memory: nvcc rejected the .cu ("identifier "U" is
   undefined in device code"). Fixed in backend/cuda.py (check_calls): a loop that calls a
   helper naming a variable of the file (CFile.object_names) stays on the host. */
#include <stdio.h>
#define N 40
static unsigned U[N][N];
static double A[N][N], B[N];

static void bump(int q)
{
    U[q][0] += (unsigned)q + 1u;
}

int main(void)
{
    for (int p = 0; p < N; p++)
        for (int q = 0; q < N; q++) {
            U[p][q] = (unsigned)(p * 7 + q) % 13u;
            A[p][q] = (p + 2 * q) % 5;
        }
    for (int t = 0; t < 4; t++) {
        for (int i = N - 1; i >= 0; i--)
            A[i][i] = 1.5 * ((double)(U[i][i] & 255u) + B[i]);
        for (int i = 0; i < N; i++)
            bump(i);
    }
    double s = 0;
    unsigned long h = 0;
    for (int p = 0; p < N; p++)
        for (int q = 0; q < N; q++) {
            s += A[p][q] * (1 + (p + q) % 3);
            h = h * 31u + U[p][q];
        }
    printf("%.6f %lu\n", s, h);
    return 0;
}
