/* lift-bench: -DNX=1500 -DNY=1500 -DTMAX=100 */
/*
 * fdtd2d.c - 2D finite-difference time-domain kernel (Yee scheme) on
 * the fields ex, ey and hz, with a source term on row 0 of ey.
 * Style: PolyBench-like VLA kernel.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef NX
#define NX 60
#endif
#ifndef NY
#define NY 70
#endif
#ifndef TMAX
#define TMAX 20
#endif

static void init_array(int tmax, int nx, int ny, double ex[nx][ny],
                       double ey[nx][ny], double hz[nx][ny], double fict[tmax])
{
    for (int t = 0; t < tmax; t++)
        fict[t] = (double)t / tmax;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            ex[i][j] = ((double)i * (j + 1)) / nx / ny;
            ey[i][j] = ((double)i * (j + 2)) / nx / ny;
            hz[i][j] = ((double)i * (j + 3)) / nx / ny;
        }
}

static void kernel_fdtd2d(int tmax, int nx, int ny, double ex[nx][ny],
                          double ey[nx][ny], double hz[nx][ny], double fict[tmax])
{
    for (int t = 0; t < tmax; t++) {
        for (int j = 0; j < ny; j++)
            ey[0][j] = fict[t];
        for (int i = 1; i < nx; i++)
            for (int j = 0; j < ny; j++)
                ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
        for (int i = 0; i < nx; i++)
            for (int j = 1; j < ny; j++)
                ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
        for (int i = 0; i < nx - 1; i++)
            for (int j = 0; j < ny - 1; j++)
                hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j]
                                             + ey[i + 1][j] - ey[i][j]);
    }
}

static double checksum(int nx, int ny, double f[nx][ny])
{
    double s = 0.0;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            s += f[i][j] * (1 + (i * ny + j) % 7);
    return s;
}

int main(void)
{
    double (*ex)[NY] = malloc(sizeof(double[NX][NY]));
    double (*ey)[NY] = malloc(sizeof(double[NX][NY]));
    double (*hz)[NY] = malloc(sizeof(double[NX][NY]));
    double *fict = malloc(TMAX * sizeof(double));
    if (!ex || !ey || !hz || !fict)
        return 1;

    init_array(TMAX, NX, NY, ex, ey, hz, fict);
    kernel_fdtd2d(TMAX, NX, NY, ex, ey, hz, fict);

    printf("%s: %.10e\n", "fdtd2d_ex", checksum(NX, NY, ex));
    printf("%s: %.10e\n", "fdtd2d_ey", checksum(NX, NY, ey));
    printf("%s: %.10e\n", "fdtd2d_hz", checksum(NX, NY, hz));

    free(ex);
    free(ey);
    free(hz);
    free(fict);
    return 0;
}
