/* lift-options: assume_no_alias
   Found by hand while writing scripts/reachgen.py (fuzz10): under --assume-no-alias every pointer
   holding what the caller handed in (a parameter, a field through one, a local copy of either) was
   taken apart from every other, so two copies of ONE parameter (q = a; r = a;), or a copy and the
   parameter itself, counted as two arrays and the recurrence q[i+1] = r[i] ran in parallel; and a
   parameter assigned another pointer (a = b + 1;) still counted as the caller's, apart from b.
   Both are one object under two names whatever the caller promised. Fixed in param_copies.py:
   each pointer is recorded with the caller's pointer it holds, and only different ones are apart. */
#include <stdio.h>
#define N 3000
static void copies(double *a, double *b, int n) {
  double *q = a;
  double *r = a;
  for (int i = 0; i < n - 1; i++)
    q[i + 1] = r[i] * 0.5 + b[i];
}
static void copy_and_param(double *a, double *b, int n) {
  double *q = a;
  for (int i = 0; i < n - 1; i++)
    q[i + 1] = a[i] * 0.25 + b[i];
}
static void reassigned(double *a, double *b, int n) {
  a = b + 1;
  for (int i = 0; i < n - 2; i++)
    a[i] = b[i] * 0.5 + 1.0;
}
int main(void) {
  static double a[N], b[N];
  for (int i = 0; i < N; i++) { a[i] = i % 7; b[i] = (i % 5) * 0.25; }
  copies(a, b, N);
  copy_and_param(b, a, N);
  reassigned(a, b, N);
  double s = 0;
  for (int i = 0; i < N; i++) s += (a[i] + 2 * b[i]) * (i % 13 + 1);
  printf("%.6f\n", s);
  return 0;
}
