"""A cache description for LIFT_CACHE_DIR (laid out as /sys/devices/system/cpu/cpu0/cache), so that
tests and the fuzzer can lift small programs as if for a machine whose caches they outgrow."""
from __future__ import annotations

from pathlib import Path


def write_caches(folder: Path, l1: str = "1K", l2: str = "4K") -> Path:
    """`folder` describing an L1 data cache and an L2 of these sizes (sysfs spelling: 1K, 4K)."""
    for index, (kind, level, size) in enumerate((("Data", 1, l1), ("Unified", 2, l2))):
        entry = Path(folder) / f"index{index}"
        entry.mkdir(parents=True, exist_ok=True)
        for name, value in (("type", kind), ("level", level), ("size", size)):
            (entry / name).write_text(f"{value}\n")
    return Path(folder)
