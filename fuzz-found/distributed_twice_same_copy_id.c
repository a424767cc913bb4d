/* fuzz-found (loops, master seed 3003, program seed 295372527), reduced by hand. Wrong result
   at 1 thread: the locality pass distributes the i loop into i { k..., j... } and i { last
   statement }, whose copy it names R0_L0.1; tiling then distributes the first i loop again to
   expose the (i, k) band and names its copy R0_L0.1 too. networkx merged the two copies into
   one node with two scope edges, and the nest { j { S1; S2 } S3 } was emitted twice: the
   `+= 3u` ran twice. gcc -O1: "5074584402272445010"; lift's output printed
   "6615627090426637836". Fixed by fresh copy ids (transform/locality.py, fresh_id). */
#include <stdio.h>
#define N 5
static unsigned A[16][19];
static unsigned B[11][11][9];
static unsigned C[14][14];
static void kernel(void)
{
    for (int i = 0; i <= N - 1; ++i) {
        for (int j = i + 1; j < N; j++) {
            for (int k = 0; k < N; k++)
                B[j - 1][i + 5][j + 3] = C[k + 4][k + 3] | C[i + k + 4][j + 1] | A[i - k + 4][-k + 5] | A[k + 4][j - i + 3];
            B[2 * i + 1][i + 4][j] = A[j + i + 3][2 * j + 7];
            B[j + i + 1][i - j + 4][j] += 3u;
        }
        B[i + 1][-i + 4][i] = i;
    }
}
int main(void)
{
    unsigned long h = 0;
    unsigned x = 12345u;
    for (int i = 0; i < 16; i++) for (int j = 0; j < 19; j++) { x = x * 1103515245u + 12345u; A[i][j] = (x >> 8) % 1000u; }
    for (int i = 0; i < 14; i++) for (int j = 0; j < 14; j++) { x = x * 1103515245u + 12345u; C[i][j] = (x >> 8) % 1000u; }
    kernel();
    for (int i = 0; i < 11; i++) for (int j = 0; j < 11; j++) for (int k = 0; k < 9; k++) h = h * 31u + B[i][j][k];
    printf("%lu\n", h);
    return 0;
}
