/* lift-bench: -DN=1200 */
/*
 * floyd_warshall.c - all-pairs shortest paths on a dense graph with
 * non-negative integer edge weights.
 * Style: PolyBench-like VLA kernel over int, explicit comparison.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 60
#endif

#define NO_EDGE 100000

static void init_graph(int n, int path[n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j)
                path[i][j] = 0;
            else if ((i * j) % 7 == 0 || (i + j) % 13 == 0)
                path[i][j] = NO_EDGE;
            else
                path[i][j] = 1 + (i * 31 + j * 17) % 97;
        }
}

static void kernel_floyd_warshall(int n, int path[n][n])
{
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (path[i][k] + path[k][j] < path[i][j])
                    path[i][j] = path[i][k] + path[k][j];
}

int main(void)
{
    int (*path)[N] = malloc(sizeof(int[N][N]));
    if (!path)
        return 1;

    init_graph(N, path);
    kernel_floyd_warshall(N, path);

    long s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += (long)path[i][j] * (1 + (i * N + j) % 7);
    printf("%s: %ld\n", "floyd_warshall_path", s);

    free(path);
    return 0;
}
