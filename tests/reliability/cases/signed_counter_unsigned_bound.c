/* Found by hand after unsigned_loop_start_wraps.c (fuzz10). `for (int k = i - 2; k < m; k++)`
   with `unsigned m` compares k converted to unsigned: at i = 0 and 1 k starts below zero, is
   huge as an unsigned, and the loop runs no iteration; the model ran k = -2 .. m - 1, called
   the scalar t written in every iteration of i, and privatized it, so those iterations stored
   the thread's uninitialized copy instead of t's value from before the loop (wrong at 1 thread).
   Fixed in analysis/wrapping.py (loop_wrapping, used by scop.parse_header): a signed counter
   compared with an unsigned bound must start at a value the model proves non-negative wherever
   the loop runs (as a division's numerator is), and may not count down; `triangle` below still
   is a parallel loop (its start, i + 1, is non-negative). */
#include <stdio.h>
#include <stddef.h>
#define N 3000
static double a[N], b[N], c[64][64];
static void lagged(int n, unsigned m) {
  double t = 42.0;
  for (int i = 0; i < n; i++) {
    for (int k = i - 2; k < m; k++)
      t = a[i] + k;
    b[i] = t;
  }
}
static void triangle(int n, size_t m) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < m; j++)
      c[i][j] = a[i] * 0.5 + a[j];
}
int main(void) {
  for (int i = 0; i < N; i++) a[i] = i % 5;
  lagged(N, 3);
  triangle(64, 64);
  double s = 0;
  for (int i = 0; i < N; i++) s += b[i] * (i % 7 + 1);
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++) s += c[i][j] * (j % 3 + 1);
  printf("%.17g\n", s);
  return 0;
}
