/* lift-bench: -DNP=4000000 -DSTEPS=10 */
/* Message packing the way communication layers write it: particles' coordinates packed three
 * to an iteration through a moving pointer whose end tells the caller the message's length,
 * complex samples interleaved as (re, im) pairs, a stack of weights filled from its top with
 * `*--top`, and a `while (count--)` unpacking loop. Every pointer steps a fixed number of times
 * per iteration, so each loop is an indexed loop in disguise. */
#include <stdio.h>
#include <stdlib.h>

#ifndef NP
#define NP 50000
#endif
#ifndef STEPS
#define STEPS 3
#endif

typedef struct {
    double *x, *y, *z;
    long n;
} Particles;

typedef struct {
    double *data;
    long used;
} Message;

/* Three values per particle; the pointer's end is the message's length. */
static double *kernel_pack(const Particles *p, double *buf)
{
    long n = p->n;
    const double *x = p->x, *y = p->y, *z = p->z;
    for (long i = 0; i < n; i++) {
        *buf++ = x[i];
        *buf++ = y[i];
        *buf++ = z[i];
    }
    return buf;
}

/* Real and imaginary parts of a rotated signal, two to an iteration. */
static void kernel_interleave(long n, const double *re, const double *im, double *out, double c, double s)
{
    double *w = out;
    for (long i = 0; i < n; i++) {
        *w++ = c * re[i] - s * im[i];
        *w++ = s * re[i] + c * im[i];
    }
}

/* Weights pushed onto a stack that grows down from its top. */
static double *kernel_push_weights(long n, const double *x, double *top)
{
    for (long i = 0; i < n; i++)
        *--top = 1.0 / (1.0 + x[i] * x[i]);
    return top;
}

/* Unpack scaled, counting down. */
static void kernel_unpack(long count, const double *buf, double *x, double k)
{
    while (count--)
        *x++ = k * *buf++;
}

int main(void)
{
    Particles p = {malloc(NP * sizeof(double)), malloc(NP * sizeof(double)), malloc(NP * sizeof(double)), NP};
    Message m = {malloc(3 * NP * sizeof(double)), 0};
    double *sig = malloc(2 * NP * sizeof(double)), *stack = malloc(NP * sizeof(double));
    if (!p.x || !p.y || !p.z || !m.data || !sig || !stack)
        return 1;
    for (long i = 0; i < NP; i++) {
        p.x[i] = (double)(i % 101) / 101.0;
        p.y[i] = (double)(i % 37) / 37.0 - 0.5;
        p.z[i] = (double)(i % 13);
    }
    double *bottom = stack;
    for (int step = 0; step < STEPS; step++) {
        m.used = kernel_pack(&p, m.data) - m.data;
        kernel_interleave(NP, p.x, p.y, sig, 0.8, 0.6);
        bottom = kernel_push_weights(NP, p.z, stack + NP);
        kernel_unpack(NP, m.data + NP, p.z, 0.5);
    }
    /* The output overlaps the input: the run-time tests fail and the loops run as written. */
    kernel_interleave(NP / 2, sig, sig + 1, sig + 2, 0.6, 0.8);
    kernel_unpack(NP - 1, p.x, p.x + 1, 1.0001);
    double s = (double)m.used + (double)(bottom - stack);
    for (long k = 0; k < 3 * NP; k++)
        s += m.data[k] * (1 + k % 7);
    for (long k = 0; k < 2 * NP; k++)
        s += sig[k] * (1 + k % 5);
    for (long k = 0; k < NP; k++)
        s += (stack[k] + p.x[k] + p.z[k]) * (1 + k % 3);
    printf("checksum: %.10e\n", s);
    free(p.x);
    free(p.y);
    free(p.z);
    free(m.data);
    free(sig);
    free(stack);
    return 0;
}
