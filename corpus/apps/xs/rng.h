/* rng.h - the 63-bit LCG of XSBench, x' = (a x + c) mod 2^63, with O(log n) skip-ahead (by
 * repeated squaring) so that every lookup draws from its own place in one stream: results do
 * not depend on the order of lookups. Inline here, so every source sees what they do. */
#ifndef XS_RNG_H
#define XS_RNG_H

#include <stdint.h>

#define STARTING_SEED 1070ULL

static inline double lcg_random_double(uint64_t *seed)
{
    const uint64_t m = 9223372036854775808ULL; /* 2^63 */
    const uint64_t a = 2806196910506780709ULL;
    const uint64_t c = 1ULL;
    *seed = (a * (*seed) + c) % m;
    return (double)(*seed) / (double)m;
}

static inline uint64_t fast_forward_lcg(uint64_t seed, uint64_t n)
{
    const uint64_t m = 9223372036854775808ULL;
    uint64_t a = 2806196910506780709ULL;
    uint64_t c = 1ULL;
    n = n % m;
    uint64_t a_new = 1;
    uint64_t c_new = 0;
    while (n > 0) {
        if (n & 1) {
            a_new *= a;
            c_new = c_new * a + c;
        }
        c *= (a + 1);
        a *= a;
        n >>= 1;
    }
    return (a_new * seed + c_new) % m;
}

#endif
