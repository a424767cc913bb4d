/* issue 15: --tile-sizes 2147483647 pasted into int tile loops: i_t + 2147483647
 * overflows, gcc drops the loop, the program printed 0. Lifted here with that size
 * through the API (the command line now refuses sizes above 2^20). */
#include <stdio.h>
#define N 300
double A[N][N], B[N][N], C[N][N];
int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (i * 7 + j) % 13;
      B[i][j] = (i + j * 3) % 11;
      C[i][j] = 0;
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += C[i][j] * ((i + j) % 5 + 1);
  printf("%.17g\n", s);
  return 0;
}
