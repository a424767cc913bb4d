/* main.c - the kmeans mini-application: cluster synthetic points, print the result.
 *
 * usage: kmeans [N [K [ITERATIONS]]]   (N points of D coordinates; defaults below)
 */
#include <stdio.h>
#include <stdlib.h>

#include "kmeans.h"
#include "points.h"

#ifndef N
#define N 500000
#endif
#ifndef D
#define D 8
#endif
#ifndef K
#define K 16
#endif
#ifndef ITERATIONS
#define ITERATIONS 20
#endif

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int k = argc > 2 ? atoi(argv[2]) : K;
    int iters = argc > 3 ? atoi(argv[3]) : ITERATIONS;
    if (n < 1 || k < 1 || k > n || iters < 1) {
        fprintf(stderr, "usage: %s [N [K [ITERATIONS]]]\n", argv[0]);
        return 2;
    }
    double *x = points_new(n, D, k);
    double *centers = malloc(sizeof(double) * (size_t)k * D);
    int *member = malloc(sizeof(int) * (size_t)n);
    if (!centers || !member) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    int it = kmeans(n, D, k, x, centers, member, iters);
    long check = 0;
    for (int i = 0; i < n; i++)
        check += (long)member[i] * (i % 101);
    printf("iterations: %d\n", it);
    printf("membership: %ld\n", check);
    printf("inertia: %.10e\n", inertia(n, D, x, centers, member));
    printf("center0: %.10e\n", centers[0]);
    free(x);
    free(centers);
    free(member);
    return 0;
}
