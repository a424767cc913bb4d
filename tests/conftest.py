"""Settings for the whole suite."""
import os
from pathlib import Path

from lifter.transform.manager import CHECK_ENV
from lifter.transform.tiling import CACHE_DIR_ENV

# The pass manager validates the graph after every pass and lets a failing pass raise instead of
# rolling it back (lifter/transform/manager.py); `lift` run as a command inherits it.
os.environ[CHECK_ENV] = "1"

# Tile sizes follow the machine's caches (lifter/transform/tiling.py): the suite lifts for one fixed
# cache model (tests/data/caches: 32 KiB L1, 512 KiB L2, laid out as sysfs) so that its expected
# outputs hold on every machine (a 1 MiB L2 doubles gemm's tiles to 128).
os.environ[CACHE_DIR_ENV] = str(Path(__file__).parent / "data" / "caches")
