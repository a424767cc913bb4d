/* issue 15 (found while fixing it): a loop variable declared outside an `omp simd`
 * loop and read after it. simd makes it linear, which leaves it alone when the loop
 * runs no iteration, where the loop as written sets it to its start: printed
 * '0 1000 1' for '5 1000 1'. */
#include <stdio.h>
double a[1000];
int main(int argc, char **argv)
{
  int n = argc > 5 ? 1000 : 0, m = 1000;
  int i = 0, j = 0;
  (void)argv;
  for (i = 5; i < n; i++) a[i] = i;
  for (j = 3; j < m; j++) a[j] += 1;
  printf("%d %d %g\n", i, j, a[7]);
  return 0;
}
