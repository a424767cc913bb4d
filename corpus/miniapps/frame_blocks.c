/* lift-bench: -DW=4000 -DH=3000 -DSTEPS=10 */
/* Frame buffers handled with the C library's block calls, the way imaging and I/O layers write
 * them: 8-bit frames copied row by row with byte counts (`memcpy(dst + y*w, src + y*w, w)`),
 * each row's interior cleared through a pointer one past its first pixel
 * (`memset(acc + y*w + 1, 0, (w - 2) * sizeof *acc)`), and rows of doubles counted in bytes as
 * the file format gives them (`w * 8`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef W
#define W 320
#endif
#ifndef H
#define H 240
#endif
#ifndef STEPS
#define STEPS 3
#endif
#define BYTES_PER_SAMPLE 8

typedef struct {
    int w, h;
    unsigned char *pixels;
} Frame;

typedef struct {
    int w, h;
    double *sum;
} Accumulator;

/* A frame's rows copied into the history frame, one byte count per row. */
static void kernel_copy_frame(const Frame *src, Frame *dst)
{
    int w = src->w, h = src->h;
    unsigned char *d = dst->pixels;
    const unsigned char *s = src->pixels;
    for (int y = 0; y < h; y++)
        memcpy(d + y * w, s + y * w, w);
}

/* The accumulator's interior cleared, its border columns kept. */
static void kernel_clear_interior(int w, int h, double *acc)
{
    for (int y = 0; y < h; y++)
        memset(acc + y * w + 1, 0, (w - 2) * sizeof *acc);
}

/* Frame differences added into the accumulator. */
static void kernel_accumulate(int w, int h, const unsigned char *cur, const unsigned char *old, double *acc)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            acc[y * w + x] += 0.5 * ((double)cur[y * w + x] - (double)old[y * w + x]);
}

/* Rows of samples stored as the file format counts them, in bytes. */
static void kernel_store_rows(int w, int h, const double *acc, double *out)
{
    for (int y = 0; y < h; y++)
        memcpy(out + y * w, acc + y * w, w * BYTES_PER_SAMPLE);
}

int main(void)
{
    Frame cur = {W, H, malloc(W * H)}, old = {W, H, malloc(W * H)};
    Accumulator a = {W, H, malloc(sizeof(double) * W * H)};
    double *out = malloc(sizeof(double) * W * H);
    if (!cur.pixels || !old.pixels || !a.sum || !out)
        return 1;
    for (long k = 0; k < (long)W * H; k++) {
        old.pixels[k] = (unsigned char)(k * 7);
        a.sum[k] = (double)(k % 17);
    }
    for (int step = 0; step < STEPS; step++) {
        for (long k = 0; k < (long)W * H; k++)
            cur.pixels[k] = (unsigned char)(k * 13 + step * 5);
        kernel_clear_interior(a.w, a.h, a.sum);
        kernel_accumulate(a.w, a.h, cur.pixels, old.pixels, a.sum);
        kernel_copy_frame(&cur, &old);
        kernel_store_rows(a.w, a.h, a.sum, out);
    }
    /* Rows stored over the rows after them, a row and a half on (no one copy overlaps itself,
     * which memcpy does not allow, but each lands on rows later copies read): the run-time test
     * fails. */
    kernel_store_rows(a.w, a.h / 2, a.sum, a.sum + a.w + a.w / 2);
    double s = 0.0;
    for (long k = 0; k < (long)W * H; k++)
        s += (out[k] + a.sum[k] + old.pixels[k]) * (1 + k % 7);
    printf("checksum: %.10e\n", s);
    free(cur.pixels);
    free(old.pixels);
    free(a.sum);
    free(out);
    return 0;
}
