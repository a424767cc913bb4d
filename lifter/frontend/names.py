"""New C names that collide with none a text uses: the one generator every stage shares (the
frontend's pointer-step rewrite, the transformations' temporaries and loop variables, the CUDA
backend's kernels and host variables).
"""
from __future__ import annotations


def fresh_name(base: str, taken: set[str], separator: str = "", first: int = 2) -> str:
    """A new C name: `base`, or `base` + `separator` + `first`, `first` + 1, ... whichever is not
    in `taken` (the names the text around it uses), added to `taken` so the next one differs. The
    numbering is each caller's own spelling (`x_t2`, `lift_k1`, `kernel_f_2`), kept as it was."""
    name, k = base, first
    while name in taken:
        name, k = f"{base}{separator}{k}", k + 1
    taken.add(name)
    return name
