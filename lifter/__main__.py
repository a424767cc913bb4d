"""`python -m lifter` runs the `lift` command."""
from lifter.cli import main

main()
