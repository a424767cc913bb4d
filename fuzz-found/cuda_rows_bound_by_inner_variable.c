/* fuzz-found (idioms --target cuda, master seed 3005, program seed 1360594185), reduced by
   hand. FIXED (CUDA target only; OpenMP was right). The `li` loop is offloaded; the inner
   `for (unsigned uj = m; uj-- > 0;)` is not a canonical loop, so `uj` stays a plain variable
   of the kernel body, yet the rows of U3 the host copies in and out are bounded with it:
   `lift_lo_U3 = lift_imax(0L, (long)(uj))` at the host, where `uj` does not exist. nvcc:
   "identifier "uj" is undefined". (In the generated program, where an outer `uj` was
   declared, the bound read that other variable and the copy went outside the allocation.)
   The place: backend/cuda.py, `_rows` took the bounds (here the interval of the subscript),
   which may name variables declared inside the nest; now such bounds are refused
   (`_host_visible`) and the whole array moves. gcc -O1: "15114153160867676332". */
#include <stdio.h>
#define N 9
static unsigned U3[N][N];
static void kernel(int m)
{
    for (long li = N - 1; li >= 1; li--) {
        for (unsigned uj = m; uj-- > 0;) {
            U3[uj][li - 1] = (unsigned)li;
        }
    }
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
