/* issue 15: reduction(+: counter) on an _Atomic int: gcc rejects '_Atomic' in a
 * reduction clause. The loop must stay sequential. */
#include <stdio.h>
_Atomic int counter;
int main(void)
{
  for (int i = 0; i < 100; i++)
    counter += 1;
  printf("%d\n", (int)counter);
  return 0;
}
