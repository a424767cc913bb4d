/* Found by hand after unsigned_condition_wraps.c (fuzz10). `for (unsigned k = i - 1; k < i + 1;
   k++)` runs no iteration at i = 0 (k starts at UINT_MAX), but the model ran k = -1 and 0 there:
   the scalar t, set by the inner loop, counted as written in every iteration of i and became
   private, so iteration 0 stored the thread's uninitialized copy instead of t's value from
   before the loop (wrong at 1 thread already). Fixed in analysis/wrapping.py (wrapping_start,
   used by scop.parse_header): an unsigned loop variable whose start may go below zero in the
   model makes the header not affine; an unsigned index scalar holding such a value is no index
   scalar (wrapping_value). */
#include <stdio.h>
#define N 4000
static double a[N], b[N];
static void last_value(int n) {
  double t = 42.0;
  for (int i = 0; i < n; i++) {
    for (unsigned k = i - 1; k < (unsigned)i + 1; k++)
      t = a[i] + k;
    b[i] = t;
  }
}
static void through_index_scalar(int n) {
  double t = 7.0;
  for (int i = 0; i < n; i++) {
    unsigned lo = i - 2;
    for (unsigned k = lo; k < (unsigned)i; k++)
      t = a[i] * 0.5 + k;
    b[i] += t;
  }
}
int main(void) {
  for (int i = 0; i < N; i++) { a[i] = i % 5; b[i] = 0; }
  last_value(N);
  through_index_scalar(N);
  double s = 0;
  for (int i = 0; i < N; i++) s += b[i] * (i % 7 + 1);
  printf("%.17g\n", s);
  return 0;
}
