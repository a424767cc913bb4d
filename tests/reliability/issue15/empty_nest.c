/* issue 15: a two-deep nest with an empty body crashed the locality pass
 * (max() arg is an empty sequence); empty loops between other children of a time
 * loop also took the wrong place among them. */
#include <stdio.h>
#define N 300
int n = N;
double A[N][N];
static void bump(void) { A[1][1] += 1.0; }
int main(void)
{
  int i, j, t;
  long c = 0;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
    }
  for (t = 0; t < 3; t++) {
    bump();
    for (i = 1; i <= N; i++)
      for (j = 1; j <= n; j++) {
      }
    c += 1;
    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++)
        ;
  }
  printf("%ld %g %d %d\n", c, A[1][1], i, j);
  return 0;
}
