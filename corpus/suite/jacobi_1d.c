/* lift-bench: -DN=2000 -DTSTEPS=500 */
/* lift-bench large: -DN=4000 -DTSTEPS=1000 */
/*
 * jacobi_1d.c - 3-point Jacobi stencil in 1-D, two arrays alternating each time step.
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef N
#define N 60
#endif
#ifndef TSTEPS
#define TSTEPS 10
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void dump1(const char *name, int n, double x[n])
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * (1 + i % 7);
    printf("%s: %.10e\n", name, s);
#ifdef DUMP_ARRAYS
    for (int i = 0; i < n; i++)
        printf("%.10e\n", x[i]);
#endif
}

static void init_array(int n, double A[n], double B[n])
{
    for (int i = 0; i < n; i++) {
        A[i] = (double)((i * i + 2) % n) / n;
        B[i] = (double)((i * i + 3) % n) / n;
    }
}

static void kernel_jacobi_1d(int tsteps, int n, double A[n], double B[n])
{
    int t, i;
#pragma scop
    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
        for (i = 1; i < n - 1; i++)
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
    }
#pragma endscop
}

int main(void)
{
    double *A = malloc(sizeof(double[N])), *B = malloc(sizeof(double[N]));
    if (!A || !B) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, A, B);
    double t0 = now();
    kernel_jacobi_1d(TSTEPS, N, A, B);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump1("jacobi_1d_A", N, A);
    free(A);
    free(B);
    return 0;
}
