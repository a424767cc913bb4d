/* csr.h - a sparse matrix in compressed sparse row form. */
#ifndef CG_CSR_H
#define CG_CSR_H

typedef struct {
    int nrows;
    int nnz;
    int *rowptr;   /* nrows + 1 offsets into col and val */
    int *col;      /* column of each stored entry */
    double *val;   /* value of each stored entry */
} Csr;

Csr *csr_poisson3d(int nx, int ny, int nz);
void csr_free(Csr *a);
void spmv(const Csr *a, const double *restrict x, double *restrict y);

#endif
