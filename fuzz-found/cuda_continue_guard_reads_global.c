/* fuzz-found (idioms --target cuda, master seed 6005, program seed 2111734535), reduced by hand.
   The only read of the file-scope array `throw` in the reduction loop is the test of a trailing
   `if (c) continue;`, which no statement of the model carried: the kernel read the host array
   (nvcc: "identifier lift_cxx_throw is undefined in device code"; with a name that is no C++
   keyword only a warning, and a GPU would read no array at all). Fixed with
   continue_guard_side_effect.c: the test is a statement, its reads memlets, the array a
   device buffer. gcc -O1: "2264035265". */
#include <stdio.h>
#define N 64
static unsigned throw[N];
static unsigned work(int m)
{
    unsigned s = 1u;
    for (long j = 0; j < m - 1; j++) {
        s *= ((unsigned)j % 4u == 1u ? 5u : 1u);
        if (throw[j + 1] % 3u == 0u)
            continue;
    }
    return s;
}
int main(void)
{
    for (int p = 0; p < N; p++)
        throw[p] = (unsigned)(p * 7 % 5);
    printf("%u\n", work(N));
    return 0;
}
