/* lift-bench: -DNP=3000 -DSTEPS=30 */
/*
 * particles.c - 2D particle simulation with softened all-pairs
 * attraction.  The force loop visits every pair but each iteration of
 * the outer loop writes only its own particle; positions and
 * velocities are advanced with a symplectic Euler step.
 * Style: array of structs, helper functions, typedef'd struct.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#ifndef NP
#define NP 128
#endif
#ifndef STEPS
#define STEPS 10
#endif

#define SOFTENING 0.01
#define DT 0.001

typedef struct {
    double x, y;
    double vx, vy;
    double fx, fy;
} particle_t;

static void init_particles(int n, particle_t *p)
{
    for (int i = 0; i < n; i++) {
        p[i].x = (double)(i % 37) / 37.0 + 0.001 * (i % 5);
        p[i].y = (double)((i * 11) % 41) / 41.0;
        p[i].vx = 0.01 * ((i % 3) - 1);
        p[i].vy = 0.01 * ((i % 5) - 2);
        p[i].fx = p[i].fy = 0.0;
    }
}

static void kernel_forces(int n, particle_t *p)
{
    for (int i = 0; i < n; i++) {
        double fx = 0.0, fy = 0.0;
        const double xi = p[i].x, yi = p[i].y;
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            double dx = p[j].x - xi;
            double dy = p[j].y - yi;
            double r2 = dx * dx + dy * dy + SOFTENING;
            double inv = 1.0 / (r2 * sqrt(r2));
            fx += dx * inv;
            fy += dy * inv;
        }
        p[i].fx = fx / n;
        p[i].fy = fy / n;
    }
}

static void kernel_integrate(int n, particle_t *p, double dt)
{
    for (int i = 0; i < n; i++) {
        p[i].vx += dt * p[i].fx;
        p[i].vy += dt * p[i].fy;
        p[i].x += dt * p[i].vx;
        p[i].y += dt * p[i].vy;
    }
}

static double kernel_energy(int n, const particle_t *p)
{
    double ke = 0.0;
    for (int i = 0; i < n; i++)
        ke += 0.5 * (p[i].vx * p[i].vx + p[i].vy * p[i].vy);
    return ke;
}

static double simulate(int n, particle_t *p, int steps)
{
    double ke = 0.0;
    for (int s = 0; s < steps; s++) {
        kernel_forces(n, p);
        kernel_integrate(n, p, DT);
        ke += kernel_energy(n, p);
    }
    return ke;
}

int main(void)
{
    particle_t *p = malloc(NP * sizeof(particle_t));
    if (!p)
        return 1;

    init_particles(NP, p);
    double ke = simulate(NP, p, STEPS);

    double sx = 0.0, sv = 0.0;
    for (int i = 0; i < NP; i++) {
        sx += (p[i].x + 2.0 * p[i].y) * (1 + i % 7);
        sv += (p[i].vx + 2.0 * p[i].vy + p[i].fx + 2.0 * p[i].fy) * (1 + i % 7);
    }
    printf("%s: %.10e\n", "particles_pos", sx);
    printf("%s: %.10e\n", "particles_vel", sv);
    printf("%s: %.10e\n", "particles_ke", ke);

    free(p);
    return 0;
}
