/* issue 15: loop variables read after a nest inside a time loop. lift distributed the time
 * loop and interchanged it inside 'i', parallelized 'i' with private(j, t), and the
 * statement after the nest (moved into a loop of its own) read the 'i' the parallel
 * loop never set: printed '0 1.75' for '903 1.75'. */
#include <stdio.h>
#define N 300
double A[N + 1][N + 1];
int main(void)
{
  int i, j, t;
  long iv = 0;
  for (t = 0; t < 3; t++) {
    for (i = 1; i <= N; i++)
      for (j = 1; j <= N; j++)
        A[i][j] = A[i][j] * 0.5 + 1.0;
    iv += i;
  }
  printf("%ld %g\n", iv, A[7][9]);
  return 0;
}
