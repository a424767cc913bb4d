/* issue 15: an empty loop took schedule position 0 among its siblings, so the omp
 * single around the call before it also enclosed the omp for of the empty nest: gcc
 * rejected it (work-sharing region may not be closely nested inside of work-sharing). */
#include <stdio.h>
#define N 300
double G[100];
int gn = N;
static void f(void) { G[1] += 1.0; }
int main(void)
{
  int i, j, t;
  long iv = 0;
  for (t = 0; t < 3; t++) {
    f();
    for (i = 1; i <= N; i++)
      for (j = 1; j <= gn; j++) {
      }
    iv += i * 1000 + j;
  }
  printf("%ld %g\n", iv, G[1]);
  return 0;
}
