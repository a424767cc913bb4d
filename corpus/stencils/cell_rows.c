/* lift-bench: -DNX=1200 -DNY=1200 -DSTEPS=10 */
/* Cells of a flat grid that reach across the end of their row, the way application codes
 * index them: four values per cell addressed through a macro that multiplies each coordinate
 * by the component count first (NC*j*nx + NC*i + c), a transport step that takes each cell's
 * values from its right neighbour (the last cell of a row from the next row's first), and
 * face fluxes at i = 0..nx with face nx of row j the same memory as face 0 of row j + 1. */
#include <stdio.h>
#include <stdlib.h>

#ifndef NX
#define NX 140
#endif
#ifndef NY
#define NY 100
#endif
#ifndef STEPS
#define STEPS 4
#endif
#define NC 4
#define Q(a, j, i, c) (a)[NC * (j) * nx + NC * (i) + (c)]

typedef struct {
    int nx, ny;
    double *q;     /* NC values per cell, plus one row of inflow at the end */
    double *qn;
    double *u;     /* one value per cell, plus one row */
    double *flux;  /* nx faces per row, plus one row */
} State;

/* Each component scaled by its weight. */
static void kernel_scale(int nx, int ny, double *q, const double *w)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            for (int c = 0; c < NC; c++)
                Q(q, j, i, c) = Q(q, j, i, c) * w[c];
}

/* Upwind transport: each cell takes its right neighbour's values, in place. */
static void kernel_transport(int nx, int ny, double *q)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            for (int c = 0; c < NC; c++)
                q[(j * nx + i) * NC + c] = 0.75 * q[(j * nx + i + 1) * NC + c] + 0.25 * q[(j * nx + i) * NC + c];
}

/* The same into a second buffer: every loop runs in parallel. */
static void kernel_transport_to(int nx, int ny, const double *q, double *qn)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            for (int c = 0; c < NC; c++)
                qn[(j * nx + i) * NC + c] = 0.5 * (q[(j * nx + i + 1) * NC + c] + q[(j * nx + i) * NC + c]);
}

/* Face fluxes: face i of row j lies between cells i - 1 and i; face nx is the next row's face 0. */
static void kernel_faces(int nx, int ny, const double *u, double *flux)
{
    for (int j = 0; j < ny; j++)
        for (int i = 1; i <= nx; i++)
            flux[j * nx + i] = 0.5 * (u[j * nx + i - 1] + u[j * nx + i]);
}

/* Each cell's value from its density, the cell after a row's end included (it is the next row's first). */
static void kernel_density(int nx, int ny, const double *q, double *u)
{
    for (int j = 0; j < ny; j++)
        for (int i = 0; i <= nx; i++)
            u[j * nx + i] = Q(q, j, i, 0) + 0.1 * Q(q, j, i, 3);
}

static void init(State *s)
{
    int nx = s->nx;
    for (int j = 0; j <= s->ny; j++)
        for (int i = 0; i < nx; i++) {
            Q(s->q, j, i, 0) = 1.0 + (double)((i * 7 + j * 3) % 13) / 13.0;
            Q(s->q, j, i, 1) = (double)((i + 2 * j) % 5) / 5.0;
            Q(s->q, j, i, 2) = (double)((3 * i + j) % 7) / 7.0;
            Q(s->q, j, i, 3) = 2.0 + (double)((i * j) % 11) / 11.0;
        }
    for (long k = 0; k < (long)(s->ny + 1) * nx; k++)
        s->u[k] = s->flux[k] = 0.0;
}

int main(void)
{
    State s = {NX, NY, NULL, NULL, NULL, NULL};
    long cells = (long)(NY + 1) * NX;
    s.q = malloc(sizeof(double) * NC * cells);
    s.qn = malloc(sizeof(double) * NC * cells);
    s.u = malloc(sizeof(double) * cells);
    s.flux = malloc(sizeof(double) * cells);
    double weight[NC] = {0.99, 1.01, 0.98, 1.0};
    if (!s.q || !s.qn || !s.u || !s.flux)
        return 1;
    init(&s);
    for (int k = 0; k < NC * cells; k++)
        s.qn[k] = s.q[k];
    for (int step = 0; step < STEPS; step++) {
        kernel_scale(s.nx, s.ny, s.q, weight);
        kernel_transport(s.nx, s.ny, s.q);
        kernel_transport_to(s.nx, s.ny, s.q, s.qn);
        kernel_density(s.nx, s.ny, s.qn, s.u);
        kernel_faces(s.nx, s.ny, s.u, s.flux);
    }
    /* A grid of rows with no cells, and a flux written over its own input: the tests fail. */
    kernel_faces(0, s.ny, s.u, s.flux);
    kernel_faces(s.nx, s.ny / 2, s.u, s.u + 1);
    double sq = 0.0, su = 0.0;
    for (long k = 0; k < NC * cells; k++)
        sq += s.qn[k] * (1 + k % 7);
    for (long k = 0; k < cells; k++)
        su += (s.u[k] + 2.0 * s.flux[k]) * (1 + k % 5);
    printf("cells: %.10e\n", sq);
    printf("faces: %.10e\n", su);
    free(s.q);
    free(s.qn);
    free(s.u);
    free(s.flux);
    return 0;
}
