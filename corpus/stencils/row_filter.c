/* lift-bench: -DNY=3000 -DNX=3000 -DREPS=20 */
/* A separable filter the way image codes write it: one row buffer, allocated once
 * before the loop over rows, filled with the horizontal pass and read by the vertical
 * one in every row (a scratch array privatized per thread), plus a fixed-size window. */
#include <stdio.h>
#include <stdlib.h>

#ifndef NY
#define NY 120
#endif
#ifndef NX
#define NX 100
#endif
#ifndef REPS
#define REPS 2
#endif
#define TAPS 5

static void kernel_row_filter(int ny, int nx, const double *img, double *out)
{
    double *row = malloc(sizeof(double) * nx);
    double w[TAPS];
    if (!row)
        exit(1);
    for (int i = 1; i < ny - 1; i++) {
        for (int j = 0; j < nx; j++)
            row[j] = 0.25 * img[(i - 1) * nx + j] + 0.5 * img[i * nx + j] + 0.25 * img[(i + 1) * nx + j];
        for (int t = 0; t < TAPS; t++)
            w[t] = 1.0 / (1 + (t - TAPS / 2) * (t - TAPS / 2) + i % 3);
        for (int j = TAPS / 2; j < nx - TAPS / 2; j++) {
            double s = 0.0;
            for (int t = 0; t < TAPS; t++)
                s += w[t] * row[j + t - TAPS / 2];
            out[i * nx + j] = s;
        }
    }
    free(row);
}

int main(void)
{
    double *img = malloc(sizeof(double) * NY * NX), *out = calloc((size_t)NY * NX, sizeof(double));
    for (int i = 0; i < NY; i++)
        for (int j = 0; j < NX; j++)
            img[i * NX + j] = (double)((i * 7 + j * 13) % 31) / 31.0;
    for (int r = 0; r < REPS; r++) {
        kernel_row_filter(NY, NX, img, out);
        for (int k = 0; k < NY * NX; k++)
            img[k] = 0.5 * (img[k] + out[k]);
    }
    double sum = 0.0;
    for (int k = 0; k < NY * NX; k++)
        sum += out[k] * (1 + k % 7);
    printf("out: %.10e\n", sum);
    free(img);
    free(out);
    return 0;
}
