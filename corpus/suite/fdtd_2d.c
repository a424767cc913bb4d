/* lift-bench: -DNX=500 -DNY=600 -DTMAX=200 */
/* lift-bench large: -DNX=1000 -DNY=1200 -DTMAX=500 */
/*
 * fdtd_2d.c - 2-D finite-difference time-domain (Yee) update of the fields ex, ey
 *         and hz, with a source term on the row ey[0][.] at every step.
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef NX
#define NX 30
#endif
#ifndef NY
#define NY 36
#endif
#ifndef TMAX
#define TMAX 6
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

static void init_array(int tmax, int nx, int ny, double ex[nx][ny], double ey[nx][ny], double hz[nx][ny],
                       double fict[tmax])
{
    for (int t = 0; t < tmax; t++)
        fict[t] = (double)t;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            ex[i][j] = ((double)i * (j + 1)) / nx;
            ey[i][j] = ((double)i * (j + 2)) / ny;
            hz[i][j] = ((double)i * (j + 3)) / nx;
        }
}

static void kernel_fdtd_2d(int tmax, int nx, int ny, double ex[nx][ny], double ey[nx][ny], double hz[nx][ny],
                           double fict[tmax])
{
    int t, i, j;
#pragma scop
    for (t = 0; t < tmax; t++) {
        for (j = 0; j < ny; j++)
            ey[0][j] = fict[t];
        for (i = 1; i < nx; i++)
            for (j = 0; j < ny; j++)
                ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
        for (i = 0; i < nx; i++)
            for (j = 1; j < ny; j++)
                ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
        for (i = 0; i < nx - 1; i++)
            for (j = 0; j < ny - 1; j++)
                hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
    }
#pragma endscop
}

int main(void)
{
    double (*ex)[NY] = malloc(sizeof(double[NX][NY]));
    double (*ey)[NY] = malloc(sizeof(double[NX][NY]));
    double (*hz)[NY] = malloc(sizeof(double[NX][NY]));
    double *fict = malloc(sizeof(double[TMAX]));
    if (!ex || !ey || !hz || !fict) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(TMAX, NX, NY, ex, ey, hz, fict);
    double t0 = now();
    kernel_fdtd_2d(TMAX, NX, NY, ex, ey, hz, fict);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("fdtd_2d_ex", NX, NY, ex);
    dump2("fdtd_2d_ey", NX, NY, ey);
    dump2("fdtd_2d_hz", NX, NY, hz);
    free(ex);
    free(ey);
    free(hz);
    free(fict);
    return 0;
}
