/* fuzz-found (idioms, e.g. seed 2005555321), reduced by hand. Known class (issue 15 item 2,
   `&&` loop conditions; shared/repro/ has no file for it): lift puts `omp parallel for`
   on a loop whose condition is `i < n && i < m`, not OpenMP's canonical form.
   gcc -fopenmp on lift's output: "error: invalid controlling predicate". gcc -O1: "2". */
#include <stdio.h>
static double a[100];
int main(int argc, char **argv)
{
    int n = 90 + argc, m = 99;
    (void)argv;
    for (int i = 0; i < n && i < m; i++)
        a[i] = i * 0.5 + 1.0;
    printf("%g\n", a[97] - a[0] + a[1] + a[2] - 0.5);
    return 0;
}
