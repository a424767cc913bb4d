/* main.c - the md mini-application: a Lennard-Jones liquid, a few hundred time steps.
 *
 * usage: md [LATTICE [STEPS]]   (LATTICE^3 particles; defaults below)
 */
#include <stdio.h>
#include <stdlib.h>

#include "integrate.h"
#include "system.h"

#ifndef LATTICE
#define LATTICE 24
#endif
#ifndef STEPS
#define STEPS 40
#endif

int main(int argc, char **argv)
{
    int lattice = argc > 1 ? atoi(argv[1]) : LATTICE;
    int steps = argc > 2 ? atoi(argv[2]) : STEPS;
    if (lattice < 1 || steps < 0) {
        fprintf(stderr, "usage: %s [LATTICE [STEPS]]\n", argv[0]);
        return 2;
    }
    System *s = system_new(lattice, 0.8, 2.5, 0.002);
    double ekin = 0.0;
    double epot = run(s, steps, &ekin);
    int n = s->n;
    const double *v = s->v;
    double px = 0.0;
    for (int i = 0; i < n; i++)
        px += v[3 * i];
    printf("particles: %d\n", s->n);
    printf("cells: %d\n", s->cells.ncell);
    printf("potential: %.10e\n", epot / s->n);
    printf("kinetic: %.10e\n", ekin / s->n);
    printf("total: %.10e\n", (epot + ekin) / s->n);
    printf("momentum_x: %.10e\n", px / s->n);
    printf("x0: %.10e\n", s->x[0]);
    system_free(s);
    return 0;
}
