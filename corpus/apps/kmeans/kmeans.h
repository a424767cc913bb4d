/* kmeans.h - Lloyd's algorithm: assign every point to its nearest centre, move every
 * centre to the mean of its points, until no point changes or an iteration limit. */
#ifndef KMEANS_KMEANS_H
#define KMEANS_KMEANS_H

int kmeans(int n, int d, int k, const double *x, double *centers, int *member, int max_iter);
double inertia(int n, int d, const double *x, const double *centers, const int *member);

#endif
