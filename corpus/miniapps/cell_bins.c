/* lift-bench: -DNP=8000000 -DNC=65536 -DSTEPS=5 */
/* Particles sorted into cells the way molecular dynamics and PIC codes build their cell lists:
 * a count per cell, its prefix sum as each cell's end, then every particle placed by stepping
 * its cell's end down first and storing at it (`end[c]--; order[end[c]] = i;`), and an
 * edge list turned into rows (CSR assembly) with the offset used, then stepped up
 * (`col[next[r]] = e; ++next[r];`). */
#include <stdio.h>
#include <stdlib.h>

#ifndef NP
#define NP 100000
#endif
#ifndef NC
#define NC 1024
#endif
#ifndef STEPS
#define STEPS 3
#endif

typedef struct {
    long n;
    int *cell;    /* each particle's cell */
    int *order;   /* particles by cell */
} Particles;

typedef struct {
    int ncells;
    int *end;     /* one past each cell's last particle, then its first */
} Cells;

/* Each particle at its cell's end, stepped down first: the last particle of a cell first. */
static void kernel_place(const Particles *p, Cells *c)
{
    int *end = c->end, *order = p->order;
    const int *cell = p->cell;
    for (long i = 0; i < p->n; i++) {
        int k = cell[i];
        end[k]--;
        order[end[k]] = (int)i;
    }
}

/* Edges into rows: each edge's column at its row's next free place, the place stepped after. */
static void kernel_assemble(long ne, const int *row, const int *dst, long *next, int *col)
{
    for (long e = 0; e < ne; e++) {
        int r = row[e];
        col[next[r]] = dst[e];
        ++next[r];
    }
}

static void bin(const Particles *p, Cells *c)
{
    for (int k = 0; k < c->ncells; k++)
        c->end[k] = 0;
    for (long i = 0; i < p->n; i++)
        c->end[p->cell[i]]++;
    for (int k = 1; k < c->ncells; k++)
        c->end[k] += c->end[k - 1];
}

int main(void)
{
    Particles p = {NP, malloc(NP * sizeof(int)), malloc(NP * sizeof(int))};
    Cells c = {NC, malloc(NC * sizeof(int))};
    int *dst = malloc(NP * sizeof(int)), *col = malloc(NP * sizeof(int));
    long *next = malloc(NC * sizeof(long));
    if (!p.cell || !p.order || !c.end || !dst || !col || !next)
        return 1;
    unsigned long checksum = 0;
    for (int step = 0; step < STEPS; step++) {
        for (long i = 0; i < NP; i++) {
            p.cell[i] = (int)(((unsigned long)i * 2654435761u + (unsigned long)step * 40503u) % NC);
            dst[i] = (int)((i * 7 + step) % NP);
        }
        bin(&p, &c);
        kernel_place(&p, &c);
        long at = 0;
        for (int k = 0; k < NC; k++) {
            next[k] = at;
            at += (k + 1 < NC ? c.end[k + 1] : NP) - c.end[k];
        }
        kernel_assemble(NP, p.cell, dst, next, col);
        for (long i = 0; i < NP; i++)
            checksum = checksum * 31 + (unsigned long)p.order[i] + 7 * (unsigned long)col[i];
    }
    /* Offsets whose ranges overlap (every row starting at 0): the run-time check fails, and the
     * loop runs as written, the later edges overwriting the earlier. */
    for (int k = 0; k < NC; k++)
        next[k] = k % 3;
    kernel_assemble(NP / 4, p.cell, dst, next, col);
    for (long i = 0; i < NP; i++)
        checksum = checksum * 31 + (unsigned long)col[i];
    printf("checksum: %lu\n", checksum);
    free(p.cell);
    free(p.order);
    free(c.end);
    free(dst);
    free(col);
    free(next);
    return 0;
}
