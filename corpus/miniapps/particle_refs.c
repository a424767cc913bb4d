/* lift-bench: -DNP=4000000 -DSTEPS=10 */
/* Particles as an array of structs, reached the way application codes reach them: a pointer
 * to the particle (`Particle *q = &ps->p[i];`) whose fields the loop body updates (`q->vx +=
 * ...`), a pointer to a neighbour for a pair force, and a read-only pointer for a reduction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NP
#define NP 100000
#endif
#ifndef STEPS
#define STEPS 3
#endif

typedef struct {
    double x, y, vx, vy, m;
} Particle;

typedef struct {
    long n;
    Particle *p;
} System;

/* Velocities from a central force, then positions, through a pointer to each particle. */
static void kernel_step(System *s, double dt)
{
    Particle *parts = s->p;
    long n = s->n;
    for (long i = 0; i < n; i++) {
        Particle *q = &parts[i];
        double r2 = q->x * q->x + q->y * q->y + 0.01;
        double f = -q->m / (r2 * sqrt(r2));
        q->vx += dt * f * q->x;
        q->vy += dt * f * q->y;
        q->x += dt * q->vx;
        q->y += dt * q->vy;
    }
}

/* Kinetic energy through a read-only pointer. */
static double kernel_energy(long n, const Particle *parts)
{
    double e = 0.0;
    for (long i = 0; i < n; i++) {
        const Particle *q = &parts[i];
        e += 0.5 * q->m * (q->vx * q->vx + q->vy * q->vy);
    }
    return e;
}

/* Each particle pulled towards its right neighbour, whose position the next iteration moves:
 * a recurrence through the pointers (stays sequential). */
static void kernel_chain(long n, Particle *parts)
{
    for (long i = 0; i < n - 1; i++) {
        Particle *a = &parts[i];
        Particle *b = &parts[i + 1];
        b->x += 0.01 * (a->x - b->x);
    }
}

int main(void)
{
    System s = {NP, malloc(NP * sizeof(Particle))};
    if (!s.p)
        return 1;
    for (long i = 0; i < NP; i++) {
        s.p[i].x = cos(0.001 * (double)i) * (1.0 + (double)(i % 7));
        s.p[i].y = sin(0.001 * (double)i) * (1.0 + (double)(i % 5));
        s.p[i].vx = 0.0;
        s.p[i].vy = 0.1;
        s.p[i].m = 1.0 + (double)(i % 3);
    }
    double e = 0.0;
    for (int step = 0; step < STEPS; step++) {
        kernel_step(&s, 0.001);
        kernel_chain(s.n, s.p);
        e += kernel_energy(s.n, s.p);
    }
    double sx = 0.0;
    for (long i = 0; i < NP; i++)
        sx += (s.p[i].x + 2.0 * s.p[i].y) * (1 + i % 7);
    printf("energy: %.10e\n", e);
    printf("positions: %.10e\n", sx);
    free(s.p);
    return 0;
}
