/* vcycle.c - one V-cycle from level l down to the coarsest and back. */
#include "mg.h"

#define PRE_SWEEPS 2
#define POST_SWEEPS 2
#define COARSEST_SWEEPS 20

void vcycle(Hierarchy *h, int l)
{
    if (l == h->levels - 1) {
        smooth(h, l, COARSEST_SWEEPS);
        return;
    }
    smooth(h, l, PRE_SWEEPS);
    residual(h, l);
    restrict_residual(h, l);
    zero(h->size[l + 1], h->u[l + 1]);
    vcycle(h, l + 1);
    prolongate_add(h, l);
    smooth(h, l, POST_SWEEPS);
}
