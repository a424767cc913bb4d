/* main.c - the xs mini-application: build the nuclear data, run the lookups, print the hash.
 *
 * usage: xs [LOOKUPS [GRIDPOINTS [ISOTOPES]]]   (defaults below)
 */
#include <stdio.h>
#include <stdlib.h>

#include "xs.h"

#ifndef LOOKUPS
#define LOOKUPS 150000
#endif
#ifndef GRIDPOINTS
#define GRIDPOINTS 2000
#endif
#ifndef ISOTOPES
#define ISOTOPES 68
#endif

int main(int argc, char **argv)
{
    int lookups = argc > 1 ? atoi(argv[1]) : LOOKUPS;
    int gridpoints = argc > 2 ? atoi(argv[2]) : GRIDPOINTS;
    int isotopes = argc > 3 ? atoi(argv[3]) : ISOTOPES;
    if (lookups < 1 || gridpoints < 2 || isotopes < 1) {
        fprintf(stderr, "usage: %s [LOOKUPS [GRIDPOINTS [ISOTOPES]]]\n", argv[0]);
        return 2;
    }
    Problem *p = problem_new(isotopes, gridpoints);
    unsigned long h = run_lookups(p, lookups);
    printf("lookups: %d\n", lookups);
    printf("verification: %lu\n", h);
    problem_free(p);
    return 0;
}
