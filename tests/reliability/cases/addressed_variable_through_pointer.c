/* Found by hand while writing scripts/trapgen.py (session 17, fuzz17). A local whose address
   a pointer holds (`int *pt = &t;`) was a plain scalar to the model and `*pt` an array of its
   own: `t = b[i]; *pt += 1; a[i] = t;` got private(t) and reduction(+: pt[0:1]), so a[i] lost
   its +1 (wrong at 1 thread too); a loop variable bumped through a pointer (`(*pi)++`) ran
   every iteration in parallel. Fixed in analysis/addressed_scalars.py: a nest that writes such a
   variable and goes through a pointer that may hold its address (not a parameter the function
   keeps: the variable did not exist when the caller passed it), or writes through one, is left
   as written. The same with globals whose address the file takes (`gt`, reached through a
   parameter in `through_parameter`: any pointer may hold a global's address). Still parallel:
   loops through pointer parameters that reach no such variable (`scale`). */
#include <stdio.h>
#define N 300
static int a[N], b[N];
static int gt;
static void through_parameter(int *p, int n) {
  for (int i = 0; i < n; i++) {
    gt = b[i];
    *p += 1;
    a[i] += gt;
  }
}
static void bumped_scalar(int n) {
  int t = 0;
  int *pt = &t;
  for (int i = 0; i < n; i++) {
    t = b[i];
    *pt += 1;
    a[i] += t;
  }
}
static void bumped_counter(int n) {
  int i;
  int *pi = &i;
  for (i = 0; i < n; i++) {
    a[i] = a[i] * 2 + b[i];
    if (b[i] == 0) (*pi)++;
  }
}
static void stored_through_pointer(int n) {
  int t = 3, *pt = &t;
  for (int i = 0; i < n; i++) {
    *pt = b[i] * 3;
    a[i] -= t;
  }
}
static void scale(int *x, const int *y, int n) {
  int t = 0, *pt = &t;
  for (int i = 0; i < n; i++)
    x[i] += y[i] * 2;
  *pt = x[0];
  a[0] += t;
}
int main(void) {
  for (int i = 0; i < N; i++) { b[i] = i * 7 % 5; a[i] = i % 11; }
  bumped_scalar(N - 10);
  bumped_counter(N - 20);
  stored_through_pointer(N - 30);
  scale(a + 1, b, N - 1);
  through_parameter(&gt, N - 40);
  long s = 0;
  for (int i = 0; i < N; i++) s = s * 31 + a[i];
  printf("%ld %d\n", s, gt);
  return 0;
}
