"""rmqcheck: the command line of the RocketMQ 4.4 model checker."""
from .memory_cap import install_hook as _install_hook

_install_hook()   # a library that cannot load under ``ulimit -v`` is one line and exit 3, never a traceback
