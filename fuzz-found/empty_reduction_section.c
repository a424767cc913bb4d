/* fuzz-found (loops, master seed 4003, program seed 857267064), reduced by hand. The inner
   `j` loop reduces into A1[21 .. i + 20]; lift gave it `reduction(+: A1[21L:((long)i + 20L) - (21L) + 1])`
   under a run-time test of the section's size (<= 65536). At i = 0 the loop has no iterations
   and the section is empty: gcc 12's code for a zero-length reduction section dies with a
   segmentation fault, at 1 thread too. Fixed: the test also asks for a section of at least
   one element (transform/parallelize.py, _plan); an empty one runs the loop as written.
   gcc -O1: "139823348452651069". */
#include <stdio.h>
static unsigned A0[64], A1[64];
static void kernel(void)
{
    unsigned t = 0;
    for (int i = 0; i < 24; i++) {
        for (int j = 0; j < i; j++) {
            A1[i + 20] += A0[i + j] | 1u;
            A1[j + 21] += A0[j] + t;
        }
        t = A1[i + 20] % 5u;
    }
}
int main(void)
{
    unsigned long h = 0;
    for (int i = 0; i < 64; i++) A0[i] = i % 7;
    kernel();
    for (int i = 0; i < 64; i++) h = h * 31u + A1[i];
    printf("%lu\n", h);
    return 0;
}
