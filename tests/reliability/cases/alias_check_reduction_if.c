/* fuzz: loops (reduced).  a0 and a1 may alias (here they do).  lift makes
 * a0[1] an array-section reduction and puts the run-time overlap check into
 * the pragma's `if` clause.  A false `if` only makes the team one thread: the
 * reduction still privatizes a0[1], so the read a1[1] (== a0[1]) sees the
 * original value instead of the running sum.  Prints 292 instead of 577. */
#include <stdio.h>

static unsigned buf[17];

static void kernel(unsigned *a0, unsigned *a1)
{
    for (int i = 0; i < 17; i++)
        a0[1] += a1[16 - i];
}

int main(void)
{
    for (int i = 0; i < 17; i++)
        buf[i] = 2u * (unsigned)i + 1u;
    kernel(buf, buf);
    printf("%u\n", buf[1]);
    return 0;
}
