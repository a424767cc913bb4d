/* main.c - cellmd: run velocity Verlet and check that the total energy is conserved. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "md.h"

int main(int argc, char **argv)
{
    int unit_cells = argc > 1 ? atoi(argv[1]) : 16;
    int steps = argc > 2 ? atoi(argv[2]) : 100;
    if (unit_cells < 1 || steps < 0) {
        fprintf(stderr, "usage: %s [UNITCELLS [STEPS]]\n", argv[0]);
        return 2;
    }
    System *s = system_new(unit_cells, 0.8442, 1.44);
    CellList *cl = s ? cells_new(s) : NULL;
    if (!cl) {
        fprintf(stderr, "cellmd: out of memory\n");
        return 1;
    }
    cells_bin(s, cl);
    double epot = compute_forces(s, cl);
    double e0 = epot + kinetic_energy(s);
    for (int step = 0; step < steps; step++) {
        half_kick(s);
        drift(s);
        cells_bin(s, cl);
        epot = compute_forces(s, cl);
        half_kick(s);
    }
    double ekin = kinetic_energy(s);
    double drift_rel = fabs((epot + ekin - e0) / e0);
    int ok = drift_rel < 1e-3;
    printf("atoms: %d\n", s->natoms);
    printf("steps: %d\n", steps);
    printf("potential_per_atom: %.10e\n", epot / s->natoms);
    printf("kinetic_per_atom: %.10e\n", ekin / s->natoms);
    printf("energy_drift: %.3e\n", drift_rel);
    printf("verified: %d\n", ok);
    cells_free(cl);
    system_free(s);
    return ok ? 0 : 1;
}
