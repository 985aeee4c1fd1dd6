"""The controller mode's command tests use the command-line tests' driver (tests/cli/cli_driver.py)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))   # cli_driver
