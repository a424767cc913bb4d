/* fuzz: loops (5 of 1000 programs, reduced).  A temporary written in every
 * iteration and read after the loop gets `lastprivate(t)`.  When the loop runs
 * zero times (n == 0), OpenMP leaves the original t undefined (GCC copies the
 * uninitialized private copy out): the program prints garbage instead of 42,
 * at any number of threads and also when the `if` clause is false. */
#include <stdio.h>

static unsigned a[64];

static unsigned fill(int n)
{
    unsigned t = 42u;
    for (int k = 0; k < n; k++) {
        t = 3u * (unsigned)k;
        a[k] = t + 1u;
    }
    return t;
}

int main(void)
{
    unsigned t0 = fill(0);
    unsigned t5 = fill(5);
    printf("%u %u %u\n", t0, t5, a[4]);
    return 0;
}
