/* kmeans.c - the two steps of Lloyd's algorithm. The assignment (n x k distances) is the
 * hot loop: points are independent. The update scatters points into their centres' sums,
 * a histogram-like step that is left sequential. */
#include <stdlib.h>

#include "kmeans.h"

static double distance2(int d, const double *a, const double *b)
{
    double s = 0.0;
    for (int j = 0; j < d; j++) {
        double t = a[j] - b[j];
        s += t * t;
    }
    return s;
}

/* the centre closest to point p (the first one on ties) */
static int nearest(int d, int k, const double *p, const double *centers)
{
    int best = 0;
    double best_d = distance2(d, p, centers);
    for (int c = 1; c < k; c++) {
        double dc = distance2(d, p, &centers[c * d]);
        if (dc < best_d) {
            best_d = dc;
            best = c;
        }
    }
    return best;
}

/* Points and centres are read, memberships written: restrict says they are disjoint,
 * which the calls' (unbounded) ranges would not let a run-time check tell. */
static int assign(int n, int d, int k, const double *restrict x, const double *restrict centers,
                  int *restrict member)
{
    int changed = 0;
    for (int i = 0; i < n; i++) {
        int c = nearest(d, k, &x[i * d], centers);
        changed += c != member[i];
        member[i] = c;
    }
    return changed;
}

static void update(int n, int d, int k, const double *x, const int *member, double *centers, int *count)
{
    for (int c = 0; c < k; c++) {
        count[c] = 0;
        for (int j = 0; j < d; j++)
            centers[c * d + j] = 0.0;
    }
    for (int i = 0; i < n; i++) {
        int c = member[i];
        count[c]++;
        for (int j = 0; j < d; j++)
            centers[c * d + j] += x[i * d + j];
    }
    for (int c = 0; c < k; c++)
        for (int j = 0; j < d; j++)
            if (count[c] > 0)
                centers[c * d + j] /= count[c];
}

int kmeans(int n, int d, int k, const double *x, double *centers, int *member, int max_iter)
{
    int *count = malloc(sizeof(int) * (size_t)k);
    if (!count)
        return -1;
    for (int i = 0; i < n; i++)
        member[i] = -1;
    for (int c = 0; c < k * d; c++) /* the first k points as the initial centres */
        centers[c] = x[c];
    int it = 0;
    while (it < max_iter) {
        it++;
        if (assign(n, d, k, x, centers, member) == 0)
            break;
        update(n, d, k, x, member, centers, count);
    }
    free(count);
    return it;
}

double inertia(int n, int d, const double *x, const double *centers, const int *member)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += distance2(d, &x[i * d], &centers[member[i] * d]);
    return s;
}
