/* lift-bench: -DNR=200 -DNQ=200 -DNP=200 */
/*
 * doitgen.c - multiresolution analysis kernel (3D tensor times matrix):
 *   A[r][q][p] = sum_s A[r][q][s] * C4[s][p]
 * Style: VLA kernel; the temporary row `sum` is a block-local VLA.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef NR
#define NR 20
#endif
#ifndef NQ
#define NQ 24
#endif
#ifndef NP
#define NP 30
#endif

static void init_array(int nr, int nq, int np, double A[nr][nq][np],
                       double C4[np][np])
{
    for (int r = 0; r < nr; r++)
        for (int q = 0; q < nq; q++)
            for (int p = 0; p < np; p++)
                A[r][q][p] = (double)((r * q + p) % np) / np;
    for (int s = 0; s < np; s++)
        for (int p = 0; p < np; p++)
            C4[s][p] = (double)(s * p % np) / ((double)np * np);
}

static void kernel_doitgen(int nr, int nq, int np, double A[nr][nq][np],
                           double C4[np][np])
{
    for (int r = 0; r < nr; r++)
        for (int q = 0; q < nq; q++) {
            double sum[np];
            for (int p = 0; p < np; p++) {
                sum[p] = 0.0;
                for (int s = 0; s < np; s++)
                    sum[p] += A[r][q][s] * C4[s][p];
            }
            for (int p = 0; p < np; p++)
                A[r][q][p] = sum[p];
        }
}

int main(void)
{
    double (*A)[NQ][NP] = malloc(sizeof(double[NR][NQ][NP]));
    double (*C4)[NP] = malloc(sizeof(double[NP][NP]));
    if (!A || !C4)
        return 1;

    init_array(NR, NQ, NP, A, C4);
    kernel_doitgen(NR, NQ, NP, A, C4);

    double cs = 0.0;
    long idx = 0;
    for (int r = 0; r < NR; r++)
        for (int q = 0; q < NQ; q++)
            for (int p = 0; p < NP; p++, idx++)
                cs += A[r][q][p] * (1 + idx % 7);
    printf("%s: %.10e\n", "doitgen_A", cs);

    free(A);
    free(C4);
    return 0;
}
