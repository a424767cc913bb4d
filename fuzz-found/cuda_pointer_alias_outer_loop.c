/* fuzz-found (brink --target cuda, master seed 16500, program seeds 1664156935 and 146628313),
   reduced by hand. `double *w = dst + j * n;` in the j loop (host), then the i loop on the GPU
   writing `*w++` (pointer_steps.py: `w[i]`) or `w[i]` itself: pointer_aliases.py reads `w[i]` as
   `dst[j * n + i]`, so the kernel was given `dst`, but its text still said `w`. nvcc: `identifier
   "w" is undefined` (g++ on the emulation: `'w' was not declared in this scope`). Fixed: a kernel
   whose text names a local declared in the host code around it that it is not given stays on the
   host, with a remark (backend/cuda_kernels.py, `_bind`). gcc -O1: "4.7461943884830673e+53
   4.7461943884830673e+53". */
#include <stdio.h>
#include <stdlib.h>

static void indexed(double *dst, const double *src, int n)
{
    for (int j = 0; j < 3; j++) {
        double *w = dst + j * n;
        for (int i = 0; i < n; i++)
            w[i] = src[j * n + i] + j;
    }
}

static void stepped(double *dst, const double *src, int n)
{
    for (int j = 0; j < 3; j++) {
        double *w = dst + j * n;
        for (int i = 0; i < n; i++)
            *w++ = src[j * n + i] + j;
    }
}

static double digest(const double *b, int n)
{
    double h = 0;
    for (int i = 0; i < n; i++)
        h = h * 1.5 + b[i];
    return h;
}

int main(void)
{
    double *a = malloc(sizeof(double) * 300), *b = malloc(sizeof(double) * 300);
    for (int i = 0; i < 300; i++)
        a[i] = b[i] = i % 7;
    indexed(a, a + 150, 40);
    stepped(b, b + 150, 40);
    printf("%.17g %.17g\n", digest(a, 300), digest(b, 300));
    free(a);
    free(b);
    return 0;
}
