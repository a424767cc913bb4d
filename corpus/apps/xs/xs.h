/* xs.h - the data of the cross-section lookup benchmark: one energy grid per nuclide
 * (an array of structs, sorted by energy) and materials made of nuclides. */
#ifndef XS_XS_H
#define XS_XS_H

#include <stdint.h>

#define N_MATERIALS 12
#define N_XS 5   /* total, elastic, absorption, fission, nu-fission */

typedef struct {
    double energy;
    double total_xs;
    double elastic_xs;
    double absorption_xs;
    double fission_xs;
    double nu_fission_xs;
} GridPoint;

typedef struct {
    int n_isotopes;
    int n_gridpoints;
    int max_nucs;              /* row length of mats and concs */
    GridPoint *grids;          /* n_isotopes rows of n_gridpoints points */
    int num_nucs[N_MATERIALS]; /* nuclides in each material */
    int *mats;                 /* mats[m * max_nucs + k]: the k-th nuclide of material m */
    double *concs;             /* its concentration */
} Problem;

Problem *problem_new(int n_isotopes, int n_gridpoints);
void problem_free(Problem *p);
unsigned long run_lookups(const Problem *p, int lookups);

#endif
