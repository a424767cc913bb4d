/* lift-bench: -DNQ=60 -DNR=50 -DNP=70 */
/* lift-bench large: -DNQ=140 -DNR=150 -DNP=160 */
/*
 * doitgen.c - multiresolution analysis kernel: every row A[r][q][.] of a 3-D array
 *         is replaced by its product with the matrix C4 (through a row buffer sum).
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef NQ
#define NQ 10
#endif
#ifndef NR
#define NR 12
#endif
#ifndef NP
#define NP 14
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

static void init_array(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np])
{
    for (int r = 0; r < nr; r++)
        for (int q = 0; q < nq; q++)
            for (int p = 0; p < np; p++)
                A[r][q][p] = (double)((r * q + p) % np) / np;
    for (int s = 0; s < np; s++)
        for (int p = 0; p < np; p++)
            C4[s][p] = (double)(s * p % np) / np;
}

static void kernel_doitgen(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np], double sum[np])
{
    int r, q, p, s;
#pragma scop
    for (r = 0; r < nr; r++)
        for (q = 0; q < nq; q++) {
            for (p = 0; p < np; p++) {
                sum[p] = 0.0;
                for (s = 0; s < np; s++)
                    sum[p] += A[r][q][s] * C4[s][p];
            }
            for (p = 0; p < np; p++)
                A[r][q][p] = sum[p];
        }
#pragma endscop
}

int main(void)
{
    double (*A)[NQ][NP] = malloc(sizeof(double[NR][NQ][NP]));
    double (*C4)[NP] = malloc(sizeof(double[NP][NP]));
    double *sum = malloc(sizeof(double[NP]));
    if (!A || !C4 || !sum) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(NR, NQ, NP, A, C4);
    double t0 = now();
    kernel_doitgen(NR, NQ, NP, A, C4, sum);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("doitgen_A", NR * NQ, NP, (double (*)[NP])A);
    free(A);
    free(C4);
    free(sum);
    return 0;
}
