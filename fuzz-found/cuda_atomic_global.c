/* fuzz-found (idioms, CUDA target): an _Atomic global is copied into the .cu as it is;
   _Atomic is not C++, nvcc rejects the file. */
#include <stdio.h>
static _Atomic unsigned hits;
static double a[100];
int main(void)
{
    for (int i = 0; i < 100; i++)
        a[i] = i * 0.5;
    hits += 1u;
    printf("%g %u\n", a[7], (unsigned)hits);
    return 0;
}
