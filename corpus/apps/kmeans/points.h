/* points.h - n points of d coordinates, stored x[i * d + j], around k hidden centres. */
#ifndef KMEANS_POINTS_H
#define KMEANS_POINTS_H

double *points_new(int n, int d, int k);

#endif
