/* lift-options: assume_no_alias
   Found by hand after no_alias_copies_of_one_parameter.c (fuzz10). Under --assume-no-alias a
   pointer field reached through a parameter (s->f), and a local copy of it, counted as the
   caller's pointer even where the function itself had set the field (s->f = b + 1;) or handed
   the struct to a helper that does: then s->f is b + 1, which the caller never promised
   anything about, and f[i] = b[i] * 0.5 ran in parallel and as simd against its own input
   (wrong at 1 thread already). Fixed in analysis/param_copies.py: a field the function sets,
   takes the address of, or whose struct it passes to a call holds no caller's pointer. The
   caller below keeps the promise: s.f, b and c never overlap when handed in. */
#include <stdio.h>
#define N 3000
struct S { double *f; int n; };
static void point(struct S *t, double *b) { t->f = b + 1; }
static void set_here(struct S *s, double *b, int n) {
  s->f = b + 1;
  double *f = s->f;
  for (int i = 0; i < n - 2; i++)
    f[i] = b[i] * 0.5 + 1.0;
}
static void set_through_field(struct S *s, double *b, int n) {
  s->f = b + 1;
  for (int i = 0; i < n - 2; i++)
    s->f[i] = b[i] * 0.5 + 1.0;
}
static void set_by_helper(struct S *s, double *b, int n) {
  point(s, b);
  double *f = s->f;
  for (int i = 0; i < n - 2; i++)
    f[i] = b[i] * 0.25 + 2.0;
}
int main(void) {
  static double a[N], b[N], c[N], d[N];
  for (int i = 0; i < N; i++) { a[i] = i % 7; b[i] = (i % 5) * 0.25; c[i] = i % 3; d[i] = i % 11; }
  struct S s = { a, N };
  set_here(&s, b, N);
  s.f = a;
  set_through_field(&s, c, N);
  s.f = a;
  set_by_helper(&s, d, N);
  double t = 0;
  for (int i = 0; i < N; i++) t += (a[i] + 2 * b[i] + 3 * c[i] + 5 * d[i]) * (i % 13 + 1);
  printf("%.6f\n", t);
  return 0;
}
