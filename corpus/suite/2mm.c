/* lift-bench: -DNI=400 -DNJ=450 -DNK=500 -DNL=550 */
/* lift-bench large: -DNI=800 -DNJ=900 -DNK=1100 -DNL=1200 */
/*
 * 2mm.c - two chained matrix products: D = alpha*A*B*C + beta*D (tmp = alpha*A*B first).
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef NI
#define NI 32
#endif
#ifndef NJ
#define NJ 36
#endif
#ifndef NK
#define NK 40
#endif
#ifndef NL
#define NL 44
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

static void init_array(int ni, int nj, int nk, int nl, double A[ni][nk], double B[nk][nj],
                       double C[nj][nl], double D[ni][nl])
{
    for (int i = 0; i < ni; i++)
        for (int k = 0; k < nk; k++)
            A[i][k] = (double)((i * k + 1) % ni) / ni;
    for (int k = 0; k < nk; k++)
        for (int j = 0; j < nj; j++)
            B[k][j] = (double)(k * (j + 1) % nj) / nj;
    for (int j = 0; j < nj; j++)
        for (int l = 0; l < nl; l++)
            C[j][l] = (double)((j * (l + 3) + 1) % nl) / nl;
    for (int i = 0; i < ni; i++)
        for (int l = 0; l < nl; l++)
            D[i][l] = (double)(i * (l + 2) % nk) / nk;
}

static void kernel_2mm(int ni, int nj, int nk, int nl, double alpha, double beta, double tmp[ni][nj],
                       double A[ni][nk], double B[nk][nj], double C[nj][nl], double D[ni][nl])
{
    int i, j, k;
#pragma scop
    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++) {
            tmp[i][j] = 0.0;
            for (k = 0; k < nk; k++)
                tmp[i][j] += alpha * A[i][k] * B[k][j];
        }
    for (i = 0; i < ni; i++)
        for (j = 0; j < nl; j++) {
            D[i][j] *= beta;
            for (k = 0; k < nj; k++)
                D[i][j] += tmp[i][k] * C[k][j];
        }
#pragma endscop
}

int main(void)
{
    double (*tmp)[NJ] = malloc(sizeof(double[NI][NJ]));
    double (*A)[NK] = malloc(sizeof(double[NI][NK]));
    double (*B)[NJ] = malloc(sizeof(double[NK][NJ]));
    double (*C)[NL] = malloc(sizeof(double[NJ][NL]));
    double (*D)[NL] = malloc(sizeof(double[NI][NL]));
    if (!tmp || !A || !B || !C || !D) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(NI, NJ, NK, NL, A, B, C, D);
    double t0 = now();
    kernel_2mm(NI, NJ, NK, NL, 1.5, 1.2, tmp, A, B, C, D);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("2mm_D", NI, NL, D);
    free(tmp);
    free(A);
    free(B);
    free(C);
    free(D);
    return 0;
}
