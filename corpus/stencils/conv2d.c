/* lift-bench: -DN=3000 -DREPS=60 */
/*
 * conv2d.c - repeated 3x3 convolution (blur) of an image, ping-pong
 * between two buffers; interior points only, borders are copied.
 * Style: malloc'd linearized images, a static inline index helper,
 * a small weight table.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 64
#endif
#ifndef REPS
#define REPS 4
#endif

static inline size_t at(int i, int j, int n)
{
    return (size_t)i * n + j;
}

/* weights sum to 1, so repeated application stays bounded */
static const double W[3][3] = {
    {0.0625, 0.125, 0.0625},
    {0.125,  0.25,  0.125},
    {0.0625, 0.125, 0.0625},
};

static void kernel_conv2d(int n, const double *restrict in, double *restrict out)
{
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++) {
            double acc = 0.0;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    acc += W[a][b] * in[at(i + a - 1, j + b - 1, n)];
            out[at(i, j, n)] = acc;
        }
}

static void copy_border(int n, const double *restrict in, double *restrict out)
{
    for (int k = 0; k < n; k++) {
        out[at(0, k, n)] = in[at(0, k, n)];
        out[at(n - 1, k, n)] = in[at(n - 1, k, n)];
        out[at(k, 0, n)] = in[at(k, 0, n)];
        out[at(k, n - 1, n)] = in[at(k, n - 1, n)];
    }
}

int main(void)
{
    const int n = N;
    double *img = malloc(at(n, 0, n) * sizeof(double));
    double *tmp = malloc(at(n, 0, n) * sizeof(double));
    if (!img || !tmp)
        return 1;

    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            img[at(i, j, n)] = (double)((i * 7 + j * 13) % 256) / 255.0;

    for (int r = 0; r < REPS; r++) {
        kernel_conv2d(n, img, tmp);
        copy_border(n, img, tmp);
        double *sw = img;
        img = tmp;
        tmp = sw;
    }

    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            s += img[at(i, j, n)] * (1 + (i * n + j) % 7);
    printf("%s: %.10e\n", "conv2d_img", s);

    free(img);
    free(tmp);
    return 0;
}
