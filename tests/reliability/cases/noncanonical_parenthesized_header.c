/* fuzz: csmith (reduced; Csmith writes every loop condition in parentheses).
 * `for (i = 0; (i < n); i++)` and `for ((i = 0); ...)` are not in OpenMP's
 * canonical loop form: gcc rejects the pragma lift puts on them with
 * "invalid controlling predicate" / "invalid type for iteration variable". */
#include <stdio.h>

static int a[100], b[100];

static void f(int n)
{
    int i;
    for (i = 0; (i < n); i++)
        a[i] = 2 * i;
    for ((i = 0); i < n; i++)
        b[i] = a[i] + 1;
}

int main(void)
{
    f(100);
    printf("%d %d\n", a[99], b[99]);
    return 0;
}
