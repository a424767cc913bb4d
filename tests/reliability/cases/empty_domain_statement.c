/* fuzz: loops (17 of 1000 programs, reduced).  A statement whose iteration
 * domain is empty (an affine guard no iteration satisfies) crashes lift:
 * islpy Error "isl_ast_build_expr_from_pw_aff failed: cannot handle void
 * expression" from lifter/graph/ranges.py (box/readable), a traceback. */
#include <stdio.h>

static int a[10];

static void f(void)
{
    for (int i = 0; i < 3; i++)
        if (i >= 4)
            a[i] = 1;
}

int main(void)
{
    f();
    printf("%d\n", a[0] + a[1] + a[2]);
    return 0;
}
