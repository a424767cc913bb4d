/* lift-bench: -DN=200000 -DTSTEPS=8000 */
/*
 * jacobi1d.c - 3-point Jacobi relaxation in 1D, two arrays used
 * alternately (A -> B, then B -> A) in each time step.
 * Style: malloc'd vectors, restrict pointer parameters.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 400
#endif
#ifndef TSTEPS
#define TSTEPS 20
#endif

static void kernel_jacobi1d(int tsteps, int n, double *restrict A,
                            double *restrict B)
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 1; i < n - 1; i++)
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
        for (int i = 1; i < n - 1; i++)
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
    }
}

int main(void)
{
    double *A = malloc(N * sizeof(double));
    double *B = malloc(N * sizeof(double));
    if (!A || !B)
        return 1;

    for (int i = 0; i < N; i++) {
        A[i] = (double)((i * 37 + i / 5) % 101) / 101.0;
        B[i] = 0.0;
    }

    kernel_jacobi1d(TSTEPS, N, A, B);

    double sa = 0.0, sb = 0.0;
    for (int i = 0; i < N; i++) {
        sa += A[i] * (1 + i % 7);
        sb += B[i] * (1 + i % 7);
    }
    printf("%s: %.10e\n", "jacobi1d_A", sa);
    printf("%s: %.10e\n", "jacobi1d_B", sb);

    free(A);
    free(B);
    return 0;
}
