/* lift-bench: -DNX=1500 -DNY=1500 -DNP=2000000 -DSTEPS=10 */
/* Interleaved components, as application codes lay out their state: a 2-D grid of cells
 * holding NC = 4 values each (density, two momenta, energy) at q[NC*(j*nx + i) + c], and
 * particles with positions and velocities at x[3*p + d], the components written out. */
#include <stdio.h>
#include <stdlib.h>

#ifndef NX
#define NX 120
#endif
#ifndef NY
#define NY 90
#endif
#ifndef NP
#define NP 5000
#endif
#ifndef STEPS
#define STEPS 3
#endif
#define NC 4

typedef struct {
    int nx, ny;
    double *q;    /* NC values per cell */
    double *qn;
} Grid;

typedef struct {
    long n;
    double *x;    /* 3 per particle */
    double *v;
    double *f;
} Particles;

/* Each component of a cell averaged with the same component of its four neighbours. */
static void kernel_smooth(int nx, int ny, const double *q, double *qn, const double *weight)
{
    for (int j = 1; j < ny - 1; j++)
        for (int i = 1; i < nx - 1; i++)
            for (int c = 0; c < NC; c++)
                qn[NC * (j * nx + i) + c] = weight[c] * q[NC * (j * nx + i) + c]
                    + 0.25 * (1.0 - weight[c]) * (q[NC * (j * nx + i - 1) + c] + q[NC * (j * nx + i + 1) + c]
                                                  + q[NC * ((j - 1) * nx + i) + c] + q[NC * ((j + 1) * nx + i) + c]);
}

/* The cell's momenta scaled by its density, each component written out. */
static void kernel_velocity(int nx, int ny, double *q)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            double rho = q[NC * (j * nx + i)];
            q[NC * (j * nx + i) + 1] = q[NC * (j * nx + i) + 1] / rho;
            q[NC * (j * nx + i) + 2] = q[NC * (j * nx + i) + 2] / rho;
        }
}

static void kernel_push(long n, double *x, double *v, const double *f, double dt)
{
    for (long p = 0; p < n; p++) {
        v[3 * p] += dt * f[3 * p];
        v[3 * p + 1] += dt * f[3 * p + 1];
        v[3 * p + 2] += dt * f[3 * p + 2] - dt * 9.81e-3;
        for (int d = 0; d < 3; d++)
            x[3 * p + d] += dt * v[3 * p + d];
    }
}

/* Part of each cell's density into the next cell's (a recurrence along each row). */
static void kernel_shift(int nx, int ny, double *q)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx - 1; i++)
            q[NC * (j * nx + i + 1)] += 1e-3 * q[NC * (j * nx + i)];
}

static void init(Grid *g, Particles *p)
{
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            double *cell = &g->q[NC * (j * g->nx + i)];
            cell[0] = 1.0 + (double)((i * 7 + j * 3) % 13) / 13.0;
            cell[1] = (double)((i + 2 * j) % 5) / 5.0;
            cell[2] = (double)((3 * i + j) % 7) / 7.0;
            cell[3] = 2.0 + (double)((i * j) % 11) / 11.0;
        }
    for (long k = 0; k < NC * (long)g->nx * g->ny; k++)
        g->qn[k] = g->q[k];
    for (long k = 0; k < 3 * p->n; k++) {
        p->x[k] = (double)(k % 101) / 101.0;
        p->v[k] = (double)(k % 17) / 17.0 - 0.5;
        p->f[k] = (double)(k % 23) / 23.0 - 0.5;
    }
}

int main(void)
{
    Grid g = {NX, NY, malloc(sizeof(double) * NC * NX * NY), malloc(sizeof(double) * NC * NX * NY)};
    Particles p = {NP, malloc(sizeof(double) * 3 * NP), malloc(sizeof(double) * 3 * NP),
                   malloc(sizeof(double) * 3 * NP)};
    double weight[NC] = {0.5, 0.6, 0.7, 0.8};
    if (!g.q || !g.qn || !p.x || !p.v || !p.f)
        return 1;
    init(&g, &p);
    for (int s = 0; s < STEPS; s++) {
        kernel_smooth(g.nx, g.ny, g.q, g.qn, weight);
        double *t = g.q;
        g.q = g.qn;
        g.qn = t;
        kernel_velocity(g.nx, g.ny, g.q);
        kernel_shift(g.nx, g.ny, g.q);
        kernel_push(p.n, p.x, p.v, p.f, 0.01);
    }
    /* The forces are the velocities shifted by one component: the run-time test of the push
     * fails (the same array would pass: an element-wise update may read what it writes). */
    kernel_push(p.n / 2, p.x, p.v, p.v + 1, 0.01);
    double sq = 0.0, sp = 0.0;
    for (long k = 0; k < NC * (long)g.nx * g.ny; k++)
        sq += g.q[k] * (1 + k % 7);
    for (long k = 0; k < 3 * p.n; k++)
        sp += (p.x[k] + p.v[k]) * (1 + k % 7);
    printf("grid: %.10e\n", sq);
    printf("particles: %.10e\n", sp);
    free(g.q);
    free(g.qn);
    free(p.x);
    free(p.v);
    free(p.f);
    return 0;
}
