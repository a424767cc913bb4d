/* force.c - the force on each particle from the particles in its own and the 26 surrounding
 * cells (a full neighbour search, no Newton's third law): every particle writes only its own
 * force and energy, so particles are independent. */
#include "force.h"

/* the cell (cx, cy, cz), wrapped around the periodic box */
static int wrapped_cell(int cx, int cy, int cz, int nc)
{
    cx = (cx + nc) % nc;
    cy = (cy + nc) % nc;
    cz = (cz + nc) % nc;
    return (cx * nc + cy) * nc + cz;
}

/* the periodic image of a coordinate difference closest to zero */
static double minimum_image(double d, double box)
{
    if (d > 0.5 * box)
        return d - box;
    if (d < -0.5 * box)
        return d + box;
    return d;
}

static void lj(int n, int nc, double box, double cutoff, const double *restrict x, const int *restrict cell,
               const int *restrict start, const int *restrict sorted, double *restrict f, double *restrict epot)
{
    double rc2 = cutoff * cutoff;
    double sr6c = 1.0 / (rc2 * rc2 * rc2);
    double shift = 4.0 * sr6c * (sr6c - 1.0);
    for (int i = 0; i < n; i++) {
        double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
        double fx = 0.0, fy = 0.0, fz = 0.0, e = 0.0;
        int ci = cell[i];
        int cx = ci / (nc * nc), cy = ci / nc % nc, cz = ci % nc;
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dz = -1; dz <= 1; dz++) {
                    int c = wrapped_cell(cx + dx, cy + dy, cz + dz, nc);
                    for (int k = start[c]; k < start[c + 1]; k++) {
                        int j = sorted[k];
                        if (j == i)
                            continue;
                        double rx = minimum_image(xi - x[3 * j], box);
                        double ry = minimum_image(yi - x[3 * j + 1], box);
                        double rz = minimum_image(zi - x[3 * j + 2], box);
                        double r2 = rx * rx + ry * ry + rz * rz;
                        if (r2 < rc2) {
                            double sr2 = 1.0 / r2;
                            double sr6 = sr2 * sr2 * sr2;
                            double fr = 48.0 * sr6 * (sr6 - 0.5) * sr2;
                            fx += fr * rx;
                            fy += fr * ry;
                            fz += fr * rz;
                            e += 4.0 * sr6 * (sr6 - 1.0) - shift;
                        }
                    }
                }
        f[3 * i] = fx;
        f[3 * i + 1] = fy;
        f[3 * i + 2] = fz;
        epot[i] = 0.5 * e;
    }
}

static double total(int n, const double *e)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += e[i];
    return sum;
}

double compute_forces(System *s)
{
    lj(s->n, s->cells.ncell, s->box, s->cutoff, s->x, s->cells.cell, s->cells.start, s->cells.sorted, s->f,
       s->epot);
    return total(s->n, s->epot);
}
