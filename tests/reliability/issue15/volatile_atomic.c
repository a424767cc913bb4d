/* issue 15: clause rules for qualified data. An _Atomic variable may be in no
 * data-sharing clause (gcc rejects reduction on it), and each access to a volatile
 * object is observable: loops that write _Atomic data or touch volatile data stay
 * sequential; a loop that only reads an _Atomic still runs in parallel. */
#include <stdio.h>
#define N 100000
volatile int vc;
_Atomic long ac;
typedef _Atomic int aint;
aint ta;
double A[N];
volatile double VA[1000];
int main(void)
{
  int s = 0;
  for (int i = 0; i < N; i++) { A[i] = i; vc += 1; }
  for (int i = 0; i < N; i++) ac += i;
  for (int i = 0; i < N; i++) ta += 1;
  for (int i = 0; i < 1000; i++) VA[i] = i;
  for (int i = 0; i < N; i++) s += A[i] > ac;
  printf("%d %ld %d %g %d\n", vc, (long)ac, (int)ta, VA[999], s);
  return 0;
}
