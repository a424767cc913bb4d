/* issue 15: a parallel region around the time loop: the second 'i' loop became an
 * omp for whose 'i' and private 'j' the omp single after it read as 301 and 0 (the
 * shared 'i' of the first loop): printed 'iv=602000' for 'iv=602'. */
#include <stdio.h>
#define N 300
double A[N + 2], B[N + 2][N + 2], C[N + 2][N + 2];
int main(void)
{
  int i, j, t;
  long iv = 0;
  for (t = 0; t < 2; t++) {
    for (i = 1; i <= N; i++)
      A[i] = A[i - 1] * 0.5 + 1.0;
    for (i = N; i >= 1; i--)
      for (j = 1; j <= N; j++)
        B[i][j] = C[i][j] * 0.5 + A[i];
    iv += i * 1000 + j;
  }
  printf("iv=%ld B=%g\n", iv, B[5][5]);
  return 0;
}
