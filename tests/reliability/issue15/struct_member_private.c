/* issue 15: a local struct written member by member in the loop body got
 * private(d.x, d.y, d.z), which gcc rejects (expected ')' before '.' token). The
 * clause must name the variable, private(d), and only where every member the loop
 * touches is private and d is not read after the loop. */
#include <stdio.h>
#define N 100000
struct P { double x, y, z, w; };
double A[N], B[N];
int main(void)
{
  struct P d, e, f;
  for (int i = 0; i < N; i++) { A[i] = i % 7; B[i] = i % 5; }
  for (int i = 0; i < N; i++) {
    d.x = A[i]; d.y = B[i]; d.z = d.x * d.y;
    B[i] = d.z;
  }
  e.w = 2.0;
  for (int i = 0; i < N; i++) {
    e.x = A[i] + i; e.y = e.x * e.w;
    A[i] = e.y;
  }
  for (int i = 0; i < N; i++) { f.x = B[i]; f.y = f.x + 1; A[i] += f.y; }
  double s = 0;
  for (int i = 0; i < N; i++) s += A[i] - B[i];
  printf("%.17g %g\n", s, f.y);
  return 0;
}
