/* lift-bench: -DNI=400 -DNJ=450 -DNK=500 -DNL=550 -DNM=600 */
/* lift-bench large: -DNI=800 -DNJ=900 -DNK=1000 -DNL=1100 -DNM=1200 */
/*
 * 3mm.c - three matrix products: E = A*B, F = C*D, G = E*F.
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
#ifndef NM
#define NM 48
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

static void init_array(int ni, int nj, int nk, int nl, int nm, double A[ni][nk], double B[nk][nj],
                       double C[nj][nm], double D[nm][nl])
{
    for (int i = 0; i < ni; i++)
        for (int k = 0; k < nk; k++)
            A[i][k] = (double)((i * k + 1) % ni) / (5 * ni);
    for (int k = 0; k < nk; k++)
        for (int j = 0; j < nj; j++)
            B[k][j] = (double)((k * (j + 1) + 2) % nj) / (5 * nj);
    for (int j = 0; j < nj; j++)
        for (int m = 0; m < nm; m++)
            C[j][m] = (double)(j * (m + 3) % nl) / (5 * nl);
    for (int m = 0; m < nm; m++)
        for (int l = 0; l < nl; l++)
            D[m][l] = (double)((m * (l + 2) + 2) % nk) / (5 * nk);
}

static void kernel_3mm(int ni, int nj, int nk, int nl, int nm, double E[ni][nj], double A[ni][nk],
                       double B[nk][nj], double F[nj][nl], double C[nj][nm], double D[nm][nl],
                       double G[ni][nl])
{
    int i, j, k;
#pragma scop
    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++) {
            E[i][j] = 0.0;
            for (k = 0; k < nk; k++)
                E[i][j] += A[i][k] * B[k][j];
        }
    for (i = 0; i < nj; i++)
        for (j = 0; j < nl; j++) {
            F[i][j] = 0.0;
            for (k = 0; k < nm; k++)
                F[i][j] += C[i][k] * D[k][j];
        }
    for (i = 0; i < ni; i++)
        for (j = 0; j < nl; j++) {
            G[i][j] = 0.0;
            for (k = 0; k < nj; k++)
                G[i][j] += E[i][k] * F[k][j];
        }
#pragma endscop
}

int main(void)
{
    double (*E)[NJ] = malloc(sizeof(double[NI][NJ]));
    double (*A)[NK] = malloc(sizeof(double[NI][NK]));
    double (*B)[NJ] = malloc(sizeof(double[NK][NJ]));
    double (*F)[NL] = malloc(sizeof(double[NJ][NL]));
    double (*C)[NM] = malloc(sizeof(double[NJ][NM]));
    double (*D)[NL] = malloc(sizeof(double[NM][NL]));
    double (*G)[NL] = malloc(sizeof(double[NI][NL]));
    if (!E || !A || !B || !F || !C || !D || !G) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(NI, NJ, NK, NL, NM, A, B, C, D);
    double t0 = now();
    kernel_3mm(NI, NJ, NK, NL, NM, E, A, B, F, C, D, G);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("3mm_G", NI, NL, G);
    free(E);
    free(A);
    free(B);
    free(F);
    free(C);
    free(D);
    free(G);
    return 0;
}
