/* keys.c - keys of roughly Gaussian distribution (the mean of four uniform draws, as NPB IS
 * does), each drawn from a hash of its index so that any key can be made on its own. */
#include <stdint.h>

#include "is.h"

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void generate_keys(long nkeys, unsigned long seed, int *keys)
{
    OMP(omp parallel for)
    for (long i = 0; i < nkeys; i++) {
        uint64_t h = splitmix64(seed + (uint64_t)i);
        uint64_t sum = (h & 0xffff) + ((h >> 16) & 0xffff) + ((h >> 32) & 0xffff) + (h >> 48);
        keys[i] = (int)((sum * (uint64_t)MAX_KEY) >> 18);  /* sum / 4 / 65536 * MAX_KEY */
    }
}
