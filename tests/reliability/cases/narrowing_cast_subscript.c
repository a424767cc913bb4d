/* Found by hand while looking for more of the unsigned-wrap class (fuzz10). The affine
   translator dropped every cast, so `a[(unsigned char)i]` was read as a[i]: a different element
   in every iteration, and the loop ran in parallel, while in C iterations i, i + 256, i + 512 ...
   update one element in order (wrong at 2 and 8 threads). Delinearization dropped casts the
   same way. Fixed in analysis/affine.py (value_preserving_cast): a cast to a type narrower than
   int, or not an integer (`i < (double)n / 2` is no floor division), is not affine; wide integer
   casts (`(long)i * n`, `(size_t)`, typedefs resolved) still are. */
#include <stdio.h>
#define N 3000
static double a[N], b[N];
static void chain(int n) {
  for (int i = 0; i < n; i++)
    a[(unsigned char)i] = a[(unsigned char)i] * 0.5 + b[i];
}
static void chain_short(int n, double *x) {
  for (int i = 0; i < n; i++)
    x[(unsigned short)(i * 1000) % 3000] = x[(unsigned short)(i * 1000) % 3000] * 0.25 + 1.0;
}
int main(void) {
  for (int i = 0; i < N; i++) { b[i] = i % 17; a[i] = 0; }
  chain(N);
  chain_short(N, b);
  double s = 0;
  for (int i = 0; i < N; i++) s += (a[i] + b[i]) * (i % 7 + 1);
  printf("%.17g\n", s);
  return 0;
}
