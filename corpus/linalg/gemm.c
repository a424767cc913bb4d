/* lift-bench: -DNI=1400 -DNJ=1400 -DNK=1400 */
/*
 * gemm.c - general matrix-matrix product  C = alpha*A*B + beta*C
 * PolyBench-like style: C99 VLA parameters, loop variables declared
 * at the top of the kernel.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef NI
#define NI 64
#endif
#ifndef NJ
#define NJ 72
#endif
#ifndef NK
#define NK 80
#endif

static void init_array(int ni, int nj, int nk, double *alpha, double *beta,
                       double C[ni][nj], double A[ni][nk], double B[nk][nj])
{
    *alpha = 1.5;
    *beta = 1.2;
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

/* The hot loop nest. */
static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                        double C[ni][nj], double A[ni][nk], double B[nk][nj])
{
    int i, j, k;

    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++) {
            C[i][j] *= beta;
            for (k = 0; k < nk; k++)
                C[i][j] += alpha * A[i][k] * B[k][j];
        }
}

static double checksum(int ni, int nj, double C[ni][nj])
{
    double s = 0.0;
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++)
            s += C[i][j] * (1 + (i * nj + j) % 7);
    return s;
}

int main(void)
{
    double alpha, beta;
    double (*C)[NJ] = malloc(sizeof(double[NI][NJ]));
    double (*A)[NK] = malloc(sizeof(double[NI][NK]));
    double (*B)[NJ] = malloc(sizeof(double[NK][NJ]));
    if (!A || !B || !C) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    init_array(NI, NJ, NK, &alpha, &beta, C, A, B);
    kernel_gemm(NI, NJ, NK, alpha, beta, C, A, B);

    printf("%s: %.10e\n", "gemm_C", checksum(NI, NJ, C));
    free(A);
    free(B);
    free(C);
    return 0;
}
