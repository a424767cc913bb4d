/* lift-bench: -DW=2000 -DH=1000 */
/* lift-bench large: -DW=4000 -DH=2200 */
/*
 * deriche.c - Deriche's recursive edge detection filter on a W x H image: a causal
 *         and an anticausal second-order recursion along each row, summed, then the same
 *         along each column.
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef W
#define W 64
#endif
#ifndef H
#define H 48
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

static void init_array(int w, int h, double img_in[w][h])
{
    for (int i = 0; i < w; i++)
        for (int j = 0; j < h; j++)
            img_in[i][j] = (double)((313 * i + 991 * j) % 65536) / 65535.0;
}

static void kernel_deriche(int w, int h, double alpha, double img_in[w][h], double img_out[w][h],
                           double y1[w][h], double y2[w][h])
{
    int i, j;
    double k, a1, a2, a3, a4, a5, a6, a7, a8, b1, b2, c1, c2;
    double xm1, tm1, ym1, ym2, xp1, xp2, tp1, tp2, yp1, yp2;
    k = (1.0 - exp(-alpha)) * (1.0 - exp(-alpha)) / (1.0 + 2.0 * alpha * exp(-alpha) - exp(-2.0 * alpha));
    a1 = a5 = k;
    a2 = a6 = k * exp(-alpha) * (alpha - 1.0);
    a3 = a7 = k * exp(-alpha) * (alpha + 1.0);
    a4 = a8 = -k * exp(-2.0 * alpha);
    b1 = 2.0 * exp(-alpha);
    b2 = -exp(-2.0 * alpha);
    c1 = c2 = 1.0;
#pragma scop
    for (i = 0; i < w; i++) {
        ym1 = 0.0;
        ym2 = 0.0;
        xm1 = 0.0;
        for (j = 0; j < h; j++) {
            y1[i][j] = a1 * img_in[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
            xm1 = img_in[i][j];
            ym2 = ym1;
            ym1 = y1[i][j];
        }
    }
    for (i = 0; i < w; i++) {
        yp1 = 0.0;
        yp2 = 0.0;
        xp1 = 0.0;
        xp2 = 0.0;
        for (j = h - 1; j >= 0; j--) {
            y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
            xp2 = xp1;
            xp1 = img_in[i][j];
            yp2 = yp1;
            yp1 = y2[i][j];
        }
    }
    for (i = 0; i < w; i++)
        for (j = 0; j < h; j++)
            img_out[i][j] = c1 * (y1[i][j] + y2[i][j]);
    for (j = 0; j < h; j++) {
        tm1 = 0.0;
        ym1 = 0.0;
        ym2 = 0.0;
        for (i = 0; i < w; i++) {
            y1[i][j] = a5 * img_out[i][j] + a6 * tm1 + b1 * ym1 + b2 * ym2;
            tm1 = img_out[i][j];
            ym2 = ym1;
            ym1 = y1[i][j];
        }
    }
    for (j = 0; j < h; j++) {
        tp1 = 0.0;
        tp2 = 0.0;
        yp1 = 0.0;
        yp2 = 0.0;
        for (i = w - 1; i >= 0; i--) {
            y2[i][j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2;
            tp2 = tp1;
            tp1 = img_out[i][j];
            yp2 = yp1;
            yp1 = y2[i][j];
        }
    }
    for (i = 0; i < w; i++)
        for (j = 0; j < h; j++)
            img_out[i][j] = c2 * (y1[i][j] + y2[i][j]);
#pragma endscop
}

int main(void)
{
    double (*img_in)[H] = malloc(sizeof(double[W][H]));
    double (*img_out)[H] = malloc(sizeof(double[W][H]));
    double (*y1)[H] = malloc(sizeof(double[W][H]));
    double (*y2)[H] = malloc(sizeof(double[W][H]));
    if (!img_in || !img_out || !y1 || !y2) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(W, H, img_in);
    double t0 = now();
    kernel_deriche(W, H, 0.25, img_in, img_out, y1, y2);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("deriche_out", W, H, img_out);
    free(img_in);
    free(img_out);
    free(y1);
    free(y2);
    return 0;
}
