"""rmqcheck's command line: the commands, their option parsing, the readers of their inputs (configuration,
broker and run files, baselines, saved results, traces) and the writing of their outputs, for every model
mode registered in model/modes.py."""
from .memory_cap import install_hook as _install_hook

_install_hook()   # a library that cannot load under ``ulimit -v`` is one line and exit 3, never a traceback
