/* force.c - Lennard-Jones forces (epsilon = sigma = 1, potential shifted to 0 at the cutoff).
 * Each pair is visited once, from its higher-indexed atom: a cell lists its atoms in
 * increasing index, so the scan of a neighbour cell stops at the first atom j >= i.  The
 * neighbour gets the opposite force (Newton's third law): f[j] is a scatter. */
#include "md.h"

static int wrap(int c, int n)
{
    return c < 0 ? c + n : c >= n ? c - n : c;
}

static double minimum_image(double d, double box)
{
    if (d > 0.5 * box)
        return d - box;
    if (d < -0.5 * box)
        return d + box;
    return d;
}

double compute_forces(System *s, const CellList *cl)
{
    int n = s->natoms;
    int nc = cl->ncell;
    double *f = s->f;
    const double *x = s->x;
    double rc2 = s->cutoff * s->cutoff;
    double src6 = 1.0 / (rc2 * rc2 * rc2);
    double ecut = 4.0 * src6 * (src6 - 1.0);
    double epot = 0.0;

    for (int i = 0; i < 3 * n; i++)
        f[i] = 0.0;
    OMP(omp parallel for schedule(dynamic, 64) reduction(+:epot, f[:3 * n]))
    for (int i = 0; i < n; i++) {
        int ci = cl->cell_of[i];
        int cx = ci % nc, cy = (ci / nc) % nc, cz = ci / (nc * nc);
        for (int dz = -1; dz <= 1; dz++) {
            for (int dy = -1; dy <= 1; dy++) {
                for (int dx = -1; dx <= 1; dx++) {
                    int c = wrap(cx + dx, nc) + nc * (wrap(cy + dy, nc) + nc * wrap(cz + dz, nc));
                    for (int k = cl->start[c]; k < cl->start[c + 1]; k++) {
                        int j = cl->atoms[k];
                        if (j >= i)
                            break;
                        double rx = minimum_image(x[3 * i + 0] - x[3 * j + 0], s->box);
                        double ry = minimum_image(x[3 * i + 1] - x[3 * j + 1], s->box);
                        double rz = minimum_image(x[3 * i + 2] - x[3 * j + 2], s->box);
                        double r2 = rx * rx + ry * ry + rz * rz;
                        if (r2 < rc2) {
                            double sr2 = 1.0 / r2;
                            double sr6 = sr2 * sr2 * sr2;
                            double fr = 48.0 * sr6 * (sr6 - 0.5) * sr2;
                            f[3 * i + 0] += fr * rx;
                            f[3 * i + 1] += fr * ry;
                            f[3 * i + 2] += fr * rz;
                            f[3 * j + 0] -= fr * rx;
                            f[3 * j + 1] -= fr * ry;
                            f[3 * j + 2] -= fr * rz;
                            epot += 4.0 * sr6 * (sr6 - 1.0) - ecut;
                        }
                    }
                }
            }
        }
    }
    return epot;
}
