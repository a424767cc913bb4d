/* lift-bench: -DN=800 */
/* lift-bench large: -DN=1400 */
/*
 * floyd_warshall.c - all-pairs shortest path lengths of a weighted directed graph.
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef N
#define N 60
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void dumpi(const char *name, int n, int X[n][n])
{
    long s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            s += (long)X[i][j] * (1 + (i * n + j) % 7);
    printf("%s: %ld\n", name, s);
#ifdef DUMP_ARRAYS
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            printf("%d\n", X[i][j]);
#endif
}

static void init_array(int n, int path[n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            path[i][j] = i * j % 7 + 1;
            if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0)
                path[i][j] = 999;  /* no edge: a weight above any path's */
        }
}

static void kernel_floyd_warshall(int n, int path[n][n])
{
    int i, j, k;
#pragma scop
    for (k = 0; k < n; k++)
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++)
                path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
#pragma endscop
}

int main(void)
{
    int (*path)[N] = malloc(sizeof(int[N][N]));
    if (!path) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, path);
    double t0 = now();
    kernel_floyd_warshall(N, path);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dumpi("floyd_warshall_path", N, path);
    free(path);
    return 0;
}
