/* lift-bench: -DNX=700 -DSTEPS=40 */
/*
 * mesh_hydro.c - a Lagrangian hydrodynamics step on an unstructured quad
 * mesh, in the style of LULESH-like proxy applications: elements name
 * their four corner nodes through a connectivity array, element loops
 * gather node coordinates through it (a pointer to the element's slice,
 * a helper reading the node arrays through the domain struct, or the
 * gather written out), and the node forces are scattered back element
 * by element.  Every array hangs off one `Domain` struct reached through
 * a pointer; sizes live in the struct.
 * Style: struct of pointers, typedef'd index and real types, static
 * helpers, pointer locals into the connectivity.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#ifndef NX
#define NX 24
#endif
#ifndef STEPS
#define STEPS 8
#endif

typedef double Real_t;
typedef int Index_t;

typedef struct {
    Index_t numElem, numNode;
    Index_t *nodelist; /* 4 nodes per element, counter-clockwise */
    Real_t *x, *y;     /* node coordinates */
    Real_t *xd, *yd;   /* node velocities */
    Real_t *fx, *fy;   /* node forces */
    Real_t *nodalMass;
    Real_t *e, *p, *q; /* element energy, pressure, artificial viscosity */
    Real_t *v, *vnew, *volo, *area, *elemMass;
} Domain;

static Real_t quad_area(const Real_t xl[4], const Real_t yl[4])
{
    return 0.5 * ((xl[2] - xl[0]) * (yl[3] - yl[1]) - (xl[3] - xl[1]) * (yl[2] - yl[0]));
}

static void gather_coords(const Domain *dom, const Index_t *elemToNode, Real_t xl[4], Real_t yl[4])
{
    for (int k = 0; k < 4; ++k) {
        xl[k] = dom->x[elemToNode[k]];
        yl[k] = dom->y[elemToNode[k]];
    }
}

/* New relative volumes and areas: the element's nodes through a pointer into the connectivity,
   the coordinates through a helper. */
static void kernel_volume(Domain *dom)
{
    for (Index_t e = 0; e < dom->numElem; ++e) {
        const Index_t *elemToNode = &dom->nodelist[4 * e];
        Real_t xl[4], yl[4];
        gather_coords(dom, elemToNode, xl, yl);
        Real_t a = quad_area(xl, yl);
        dom->area[e] = a;
        dom->vnew[e] = a / dom->volo[e];
    }
}

/* Artificial viscosity from the velocity jump across the element: the gather written out. */
static void kernel_viscosity(Domain *dom, Real_t qcoef)
{
    for (Index_t e = 0; e < dom->numElem; ++e) {
        Real_t div = 0.0;
        for (int k = 0; k < 4; ++k) {
            Index_t n = 4 * e + k;
            div += dom->xd[dom->nodelist[n]] * (k == 1 || k == 2 ? 1.0 : -1.0)
                 + dom->yd[dom->nodelist[n]] * (k >= 2 ? 1.0 : -1.0);
        }
        Real_t compress = div < 0.0 ? -div : 0.0;
        dom->q[e] = qcoef * dom->elemMass[e] / dom->area[e] * compress * compress;
    }
}

/* Equation of state: an ideal gas, with a floor on the pressure. */
static void kernel_eos(Domain *dom, Real_t gamma, Real_t pmin)
{
    const Index_t n = dom->numElem;
    for (Index_t e = 0; e < n; ++e) {
        Real_t pnew = (gamma - 1.0) * dom->e[e] / dom->vnew[e];
        dom->p[e] = pnew < pmin ? pmin : pnew;
    }
}

/* Corner forces scattered to the nodes, element by element: two elements share a node, so this
   loop must stay sequential. */
static void kernel_force(Domain *dom)
{
    const Index_t nn = dom->numNode;
    for (Index_t i = 0; i < nn; ++i) {
        dom->fx[i] = 0.0;
        dom->fy[i] = 0.0;
    }
    for (Index_t e = 0; e < dom->numElem; ++e) {
        const Index_t *elemToNode = &dom->nodelist[4 * e];
        Real_t xl[4], yl[4];
        gather_coords(dom, elemToNode, xl, yl);
        Real_t s = 0.25 * (dom->p[e] + dom->q[e]);
        for (int k = 0; k < 4; ++k) {
            Real_t normx = yl[(k + 1) % 4] - yl[(k + 3) % 4];
            Real_t normy = xl[(k + 3) % 4] - xl[(k + 1) % 4];
            dom->fx[elemToNode[k]] += s * normx;
            dom->fy[elemToNode[k]] += s * normy;
        }
    }
}

/* Velocities and positions of the nodes. */
static void kernel_nodes(Domain *dom, Real_t dt)
{
    const Index_t nn = dom->numNode;
    for (Index_t i = 0; i < nn; ++i) {
        dom->xd[i] += dom->fx[i] / dom->nodalMass[i] * dt;
        dom->yd[i] += dom->fy[i] / dom->nodalMass[i] * dt;
        dom->x[i] += dom->xd[i] * dt;
        dom->y[i] += dom->yd[i] * dt;
    }
}

/* Work done by pressure and viscosity on each element. */
static void kernel_energy(Domain *dom)
{
    const Index_t n = dom->numElem;
    for (Index_t e = 0; e < n; ++e) {
        Real_t work = (dom->p[e] + dom->q[e]) * (dom->vnew[e] - dom->v[e]) * dom->volo[e];
        Real_t enew = dom->e[e] - work / dom->elemMass[e];
        dom->e[e] = enew > 0.0 ? enew : 0.0;
        dom->v[e] = dom->vnew[e];
    }
}

static void build(Domain *dom, int nx)
{
    dom->numElem = nx * nx;
    dom->numNode = (nx + 1) * (nx + 1);
    dom->nodelist = malloc(sizeof(Index_t) * 4 * (size_t)dom->numElem);
    Real_t **nodal[] = {&dom->x, &dom->y, &dom->xd, &dom->yd, &dom->fx, &dom->fy, &dom->nodalMass};
    for (int f = 0; f < 7; f++)
        *nodal[f] = calloc((size_t)dom->numNode, sizeof(Real_t));
    Real_t **elemental[] = {&dom->e, &dom->p, &dom->q, &dom->v, &dom->vnew, &dom->volo, &dom->area, &dom->elemMass};
    for (int f = 0; f < 8; f++)
        *elemental[f] = calloc((size_t)dom->numElem, sizeof(Real_t));
    Real_t h = 1.0 / nx;
    for (int j = 0; j <= nx; j++)
        for (int i = 0; i <= nx; i++) {
            int node = j * (nx + 1) + i;
            dom->x[node] = h * (i + 0.1 * ((i * j) % 3) / (nx + 1));
            dom->y[node] = h * j;
            dom->nodalMass[node] = h * h;
        }
    for (int j = 0; j < nx; j++)
        for (int i = 0; i < nx; i++) {
            int el = j * nx + i;
            dom->nodelist[4 * el + 0] = j * (nx + 1) + i;
            dom->nodelist[4 * el + 1] = j * (nx + 1) + i + 1;
            dom->nodelist[4 * el + 2] = (j + 1) * (nx + 1) + i + 1;
            dom->nodelist[4 * el + 3] = (j + 1) * (nx + 1) + i;
        }
    kernel_volume(dom);
    for (Index_t e = 0; e < dom->numElem; e++) {
        dom->volo[e] = dom->area[e];
        dom->v[e] = 1.0;
        dom->elemMass[e] = dom->area[e];
        /* a hot spot in the lower left corner drives the flow */
        dom->e[e] = e % nx < nx / 4 && e / nx < nx / 4 ? 2.0 : 0.1 + 0.01 * (e % 7);
    }
}

static void release(Domain *dom)
{
    Real_t *arrays[] = {dom->x, dom->y, dom->xd, dom->yd, dom->fx, dom->fy, dom->nodalMass, dom->e, dom->p,
                        dom->q, dom->v, dom->vnew, dom->volo, dom->area, dom->elemMass};
    for (int f = 0; f < 15; f++)
        free(arrays[f]);
    free(dom->nodelist);
}

int main(void)
{
    Domain dom;
    build(&dom, NX);
    Real_t dt = 0.02 / NX;
    for (int step = 0; step < STEPS; step++) {
        kernel_volume(&dom);
        kernel_eos(&dom, 1.4, 1e-9);
        kernel_viscosity(&dom, 0.5);
        kernel_force(&dom);
        kernel_nodes(&dom, dt);
        kernel_volume(&dom);
        kernel_energy(&dom);
    }
    double energy = 0.0, volume = 0.0, pressure = 0.0, motion = 0.0;
    for (Index_t e = 0; e < dom.numElem; e++) {
        energy += dom.e[e] * dom.elemMass[e] * (1 + e % 7);
        volume += dom.vnew[e] * (1 + e % 5);
        pressure += (dom.p[e] + dom.q[e]) * (1 + e % 3);
    }
    for (Index_t i = 0; i < dom.numNode; i++)
        motion += (fabs(dom.xd[i]) + fabs(dom.yd[i])) * (1 + i % 7);
    printf("energy: %.10e\n", energy);
    printf("volume: %.10e\n", volume);
    printf("pressure: %.10e\n", pressure);
    printf("motion: %.10e\n", motion);
    release(&dom);
    return 0;
}
