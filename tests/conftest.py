"""Settings for the whole suite."""
import os

from lifter.transform.manager import CHECK_ENV

# The pass manager validates the graph after every pass and lets a failing pass raise instead of
# rolling it back (lifter/transform/manager.py); `lift` run as a command inherits it.
os.environ[CHECK_ENV] = "1"
