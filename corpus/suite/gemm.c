/* lift-bench: -DNI=500 -DNJ=550 -DNK=600 */
/* lift-bench large: -DNI=1000 -DNJ=1100 -DNK=1200 */
/*
 * gemm.c - general matrix product C = alpha*A*B + beta*C.
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef NI
#define NI 40
#endif
#ifndef NJ
#define NJ 44
#endif
#ifndef NK
#define NK 48
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void dump2(const char *name, int n, int m, double X[n][m])
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += X[i][j] * (1 + (i * m + j) % 7);
    printf("%s: %.10e\n", name, s);
#ifdef DUMP_ARRAYS
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            printf("%.10e\n", X[i][j]);
#endif
}

static void init_array(int ni, int nj, int nk, double C[ni][nj], double A[ni][nk], double B[nk][nj])
{
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++)
            C[i][j] = (double)((i * j + 1) % ni) / ni;
    for (int i = 0; i < ni; i++)
        for (int k = 0; k < nk; k++)
            A[i][k] = (double)(i * (k + 1) % nk) / nk;
    for (int k = 0; k < nk; k++)
        for (int j = 0; j < nj; j++)
            B[k][j] = (double)(k * (j + 2) % nj) / nj;
}

static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                        double C[ni][nj], double A[ni][nk], double B[nk][nj])
{
    int i, j, k;
#pragma scop
    for (i = 0; i < ni; i++) {
        for (j = 0; j < nj; j++)
            C[i][j] *= beta;
        for (k = 0; k < nk; k++)
            for (j = 0; j < nj; j++)
                C[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}

int main(void)
{
    double (*C)[NJ] = malloc(sizeof(double[NI][NJ]));
    double (*A)[NK] = malloc(sizeof(double[NI][NK]));
    double (*B)[NJ] = malloc(sizeof(double[NK][NJ]));
    if (!A || !B || !C) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(NI, NJ, NK, C, A, B);
    double t0 = now();
    kernel_gemm(NI, NJ, NK, 1.5, 1.2, C, A, B);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("gemm_C", NI, NJ, C);
    free(A);
    free(B);
    free(C);
    return 0;
}
