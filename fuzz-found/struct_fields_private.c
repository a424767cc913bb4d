/* fuzz-found (idioms, e.g. seed 1085477665), reduced by hand. Known class (issue 15, item 2:
   a struct written field by field gets private(d.x, d.y, d.z)); shared/repro/ has no file
   for it. The struct is declared outside the loop: the clause must be private(d).
   gcc -fopenmp on lift's output: "error: expected ')' before '.' token". gcc -O1: "37.5". */
#include <stdio.h>
struct pt { double x, y, z; };
static double a[100], b[100];
int main(void)
{
    struct pt d;
    for (int i = 0; i < 100; i++)
        a[i] = i * 0.25;
    for (int i = 0; i < 100; i++) {
        d.x = a[i];
        d.y = 2.0 * a[i];
        d.z = d.x - 0.5 * d.y;
        b[i] = d.x + d.y + d.z;
    }
    printf("%g\n", b[50]);
    return 0;
}
