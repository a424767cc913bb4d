/* fuzz-found (idioms seed 937616677; a struct alike in seed 1236376678), reduced by hand.
   Known class (struct field private, issue 15 item 2), another symptom: the union is
   declared in the loop body, so it needs no clause at all, yet gets private(c.d), and
   gcc -fopenmp rejects lift's output: "error: 'c' undeclared". gcc -O1: "6.25".
   The CUDA target has it too (idioms --target cuda seed 1638503040, a struct alike): the
   launch passes lift_tag<LIFT_T(c.d)>() where `c` is not declared; nvcc: identifier "c" is
   undefined. A fix of the OpenMP clause alone leaves the CUDA target broken. */
#include <stdio.h>
union cell { unsigned u; double d; };
static double a[100], b[100];
int main(void)
{
    for (int i = 0; i < 100; i++)
        a[i] = i * 0.25;
    for (int i = 0; i < 100; i++) {
        union cell c;
        c.d = 0.5 * a[i];
        b[i] = c.d * 0.5;
    }
    printf("%g\n", b[100 - 1] + b[1]);
    return 0;
}
