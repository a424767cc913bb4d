/* lift-bench: -DNI=1200 -DNJ=1200 -DNK=1200 -DNL=1200 */
/*
 * two_mm.c - two chained matrix products:
 *   tmp = alpha * A * B
 *   D   = beta * D + tmp * C
 * Style: global fixed-size arrays; the first product accumulates in a
 * local scalar, the second one directly into D.
 */
#include <stdio.h>

#ifndef NI
#define NI 40
#endif
#ifndef NJ
#define NJ 50
#endif
#ifndef NK
#define NK 60
#endif
#ifndef NL
#define NL 70
#endif

static double A[NI][NK];
static double B[NK][NJ];
static double C[NJ][NL];
static double D[NI][NL];
static double tmp[NI][NJ];

static void init_arrays(void)
{
    for (int i = 0; i < NI; i++)
        for (int k = 0; k < NK; k++)
            A[i][k] = (double)((i * k + 1) % NI) / NI;
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++)
            B[k][j] = (double)(k * (j + 1) % NJ) / NJ;
    for (int j = 0; j < NJ; j++)
        for (int l = 0; l < NL; l++)
            C[j][l] = (double)((j * (l + 3) + 1) % NL) / NL;
    for (int i = 0; i < NI; i++)
        for (int l = 0; l < NL; l++)
            D[i][l] = (double)(i * (l + 2) % NK) / NK;
}

static void kernel_2mm(double alpha, double beta)
{
    /* tmp = alpha * A * B */
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++) {
            double acc = 0.0;
            for (int k = 0; k < NK; k++)
                acc += alpha * A[i][k] * B[k][j];
            tmp[i][j] = acc;
        }

    /* D = beta * D + tmp * C */
    for (int i = 0; i < NI; i++)
        for (int l = 0; l < NL; l++) {
            D[i][l] *= beta;
            for (int j = 0; j < NJ; j++)
                D[i][l] += tmp[i][j] * C[j][l];
        }
}

int main(void)
{
    init_arrays();
    kernel_2mm(1.5, 1.2);

    double s = 0.0, t = 0.0;
    for (int i = 0; i < NI; i++) {
        for (int l = 0; l < NL; l++)
            s += D[i][l] * (1 + (i * NL + l) % 7);
        for (int j = 0; j < NJ; j++)
            t += tmp[i][j] * (1 + (i * NJ + j) % 7);
    }
    printf("%s: %.10e\n", "2mm_D", s);
    printf("%s: %.10e\n", "2mm_tmp", t);
    return 0;
}
