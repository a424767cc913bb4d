/* fuzz-found (idioms --target cuda, master seed 3005, program seed 1360594185), the shape of
   the generated program: cuda_rows_bound_by_inner_variable.c with an outer `uj` of the same
   name declared before the nest. The rows of U3 copied to and from the device were bounded
   with the inner counter's name, which at the host read the outer `uj` (here 40): the copy
   went outside U3 (the generated program failed at run time; this one printed
   "9105692431624992704" on the CPU emulation). Fixed with
   the inner one: bounds naming a variable declared inside the nest are no bounds at the host
   (backend/cuda.py, _host_visible), the whole array moves. gcc -O1: "6521768623044311232". */
#include <stdio.h>
#define N 9
static unsigned U3[N][N];
static void kernel(int m)
{
    unsigned uj = 40;
    for (long li = N - 1; li >= 1; li--) {
        for (unsigned uj = m; uj-- > 0;) {
            U3[uj][li - 1] = (unsigned)li;
        }
    }
    U3[0][0] += uj / 2;
}
int main(void)
{
    unsigned long h = 0;
    for (int p = 0; p < N; p++) for (int q = 0; q < N; q++) U3[p][q] = p * 10 + q;
    kernel(6);
    for (int p = 0; p < N; p++) for (int q = 0; q < N; q++) h = h * 31u + U3[p][q];
    printf("%lu\n", h);
    return 0;
}
