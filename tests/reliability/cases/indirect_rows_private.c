/* fuzz: csmith (reduced).  An array of pointers (`int *p[8]`) makes lift model
 * "memory reached through p's elements" as a pseudo-container `p[*]`.  Writes
 * through it (p[i][0] = i, all rows alias buf) are carried by the loop, yet
 * the container is privatized like a scalar: the pragma reads `private(p[*])`,
 * which is not C, and the verdict "parallel" is wrong (a race on buf[0]). */
#include <stdio.h>

static int buf[8];

int main(void)
{
    int *p[8];
    for (int i = 0; i < 8; i++)
        p[i] = buf;
    for (int i = 0; i < 8; i++)
        p[i][0] = i;
    printf("%d\n", buf[0]);
    return 0;
}
