/* io.c - command line of xsmc. */
#include <stdio.h>
#include <stdlib.h>

#include "xsmc.h"

Inputs read_cli(int argc, char **argv)
{
    Inputs in;
    in.lookups = argc > 1 ? atol(argv[1]) : 200000;
    in.n_gridpoints = argc > 2 ? atol(argv[2]) : 11303;
    in.n_isotopes = argc > 3 ? atoi(argv[3]) : 68;
    in.verify_every = 997;
    if (in.lookups < 1 || in.n_gridpoints < 2 || in.n_isotopes < 34) {
        fprintf(stderr, "usage: %s [LOOKUPS [GRIDPOINTS [ISOTOPES >= 34]]]\n", argv[0]);
        exit(2);
    }
    return in;
}

void print_inputs(Inputs in)
{
    printf("isotopes: %d\n", in.n_isotopes);
    printf("gridpoints: %ld\n", in.n_gridpoints);
    printf("lookups: %ld\n", in.lookups);
}
