/* main.c - xsmc: set up the nuclear data, run the event loop, verify a sample of lookups. */
#include <stdio.h>

#include "xsmc.h"

int main(int argc, char **argv)
{
    Inputs in = read_cli(argc, argv);
    SimulationData sd = grid_init(in);
    unsigned long hash = run_event_based_simulation(in, sd);
    int ok = verify_sample(in, sd);
    print_inputs(in);
    printf("verification_hash: %lu\n", hash);
    printf("verified: %d\n", ok);
    free_simulation_data(sd);
    return ok ? 0 : 1;
}
