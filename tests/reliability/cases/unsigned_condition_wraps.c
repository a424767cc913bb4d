/* Found by hand while aiming scripts/reachgen.py at index scalars (fuzz10). An `if` whose
   comparison C computes in unsigned arithmetic was read by the model over the mathematical
   integers: `(unsigned)(i - 1) >= n` (the one-comparison range test) holds at i = 0, where i - 1
   wraps to UINT_MAX, but the model found it never holds, dropped the write of t[n - 1] in its
   branch, and ran the loop in parallel: later iterations read t[n - 1] before iteration 0 wrote
   it (wrong sums at 2 and 8 threads). The same through an unsigned index scalar (`unsigned c =
   i - 1;`, substituted into the condition) and with unsigned counters. Fixed in
   analysis/wrapping.py: such a condition, with a subtraction or negation, is not affine. */
#include <stdio.h>
#define N 4000
static double a[N], t[N];
static void cast(int n) {
  for (int i = 0; i < n; i++) {
    if ((unsigned)(i - 1) >= (unsigned)n)
      t[n - 1] = 7.0;
    else
      a[i] = t[i] * 0.5 + 1.0;
  }
}
static void index_scalar(int n) {
  for (int i = 0; i < n; i++) {
    unsigned c = i - 2;
    if (c >= (unsigned)n)
      t[n - 2] += 3.0;
    else
      a[i] += t[i] * 0.25;
  }
}
static void counters(unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    if (i - 1 >= n - 2)
      t[n / 2] = 5.0;
    else
      a[i] = a[i] + t[i] * 0.5;
  }
}
int main(void) {
  for (int i = 0; i < N; i++) { t[i] = i % 5; a[i] = 0; }
  cast(N);
  index_scalar(N);
  counters(N);
  double s = 0;
  for (int i = 0; i < N; i++) s += (a[i] + t[i]) * (i % 7 + 1);
  printf("%.17g\n", s);
  return 0;
}
