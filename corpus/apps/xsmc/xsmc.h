/* xsmc.h - data structures of the xsmc mini-application (after XSBench's layout). */
#ifndef XSMC_H
#define XSMC_H

#include <stdint.h>

#include "hand_omp.h"

#define N_MATS 12
#define N_XS 5 /* total, elastic, absorption, fission, nu-fission */
#define STARTING_SEED 1070ULL

/* The run's parameters, passed by value as XSBench does. */
typedef struct {
    int n_isotopes;
    long n_gridpoints;
    long lookups;
    int verify_every; /* every verify_every-th lookup is checked by linear search */
} Inputs;

typedef struct {
    double energy;
    double total_xs;
    double elastic_xs;
    double absorption_xs;
    double fission_xs;
    double nu_fission_xs;
} NuclideGridPoint;

/* Everything the lookups read (and the one array they write). */
typedef struct {
    NuclideGridPoint *nuclide_grid; /* n_isotopes x n_gridpoints, each row sorted by energy */
    int *num_nucs;                  /* nuclides per material */
    int *mats;                      /* N_MATS x max_num_nucs nuclide indices */
    double *concs;                  /* N_MATS x max_num_nucs concentrations */
    int max_num_nucs;
    unsigned long *verification;    /* one result per lookup */
} SimulationData;

/* io.c */
Inputs read_cli(int argc, char **argv);
void print_inputs(Inputs in);

/* init.c */
SimulationData grid_init(Inputs in);
void free_simulation_data(SimulationData sd);

/* simulation.c */
unsigned long run_event_based_simulation(Inputs in, SimulationData sd);
int verify_sample(Inputs in, SimulationData sd);

double lcg_random_double(uint64_t *seed);
uint64_t fast_forward_lcg(uint64_t seed, uint64_t n);

#endif
