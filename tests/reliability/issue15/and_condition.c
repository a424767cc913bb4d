/* issue 15: `i < n && i < m` is not OpenMP's canonical loop form; lift put
 * `omp parallel for simd` on it and gcc -fopenmp rejected it (invalid controlling
 * predicate). It must stay sequential; canonical forms (`!=`, a bound in parentheses,
 * counting down) still work. */
#include <stdio.h>
#define N 100000
double A[N], B[N], C[N];
int n = 90000, m = 80000;
int main(void)
{
  for (int i = 0; i < n && i < m; i++)
    A[i] = i * 0.5;
  for (int i = 0; i < (n < m ? n : m); i++)
    B[i] = A[i] + 1;
  for (int i = n - 1; i >= 0; i--)
    C[i] = B[i] * 2;
  for (int i = 0; i < m || i < 10; i++)
    C[i] += 1;
  double s = 0;
  for (int i = 0; i < N; i++) s += A[i] + B[i] + C[i];
  printf("%.17g\n", s);
  return 0;
}
