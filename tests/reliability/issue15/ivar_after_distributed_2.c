/* issue 15: as ivar_after_distributed.c, with 'j' counting down and read too:
 * printed 'iv=0' for 'iv=903000'. */
#include <stdio.h>
#define N 300
int B[N + 2][N + 2], C[N + 2][N + 2];
int main(void)
{
  int i, j, t;
  long iv = 0;
  for (t = 0; t < 3; t++) {
    for (i = 1; i <= N; i++)
      for (j = N; j >= 1; j--)
        B[i][j] = C[i][j] * 2 + 1;
    iv += i * 1000 + j;
  }
  printf("iv=%ld B=%d\n", iv, B[5][5]);
  return 0;
}
