"""Turning command-line input into a checked model: configuration, properties, limits, engine.

The model, the properties and the engine are imported when a command runs, not when this module is
imported: ``rmqcheck --help`` must never load numba or the compiled kernels.
"""
from __future__ import annotations

import errno
import math
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from reports.files import STDOUT, check_writable, remove_stale_temps

if TYPE_CHECKING:
    from explore.run_control import Limits
    from invariants.base import PropertySet

    from .broker_conf import BrokerSettings


class BadInput(ValueError):
    """Any user input error; the CLI prints its message as one line and exits with code 2."""


def resolve_config(preset_name: str | None, config_file: str | None, assignments: Sequence[str],
                   modes: Sequence[str] | None = None) -> Any:
    """``--preset`` / ``--config`` (exclusive), then the ``--broker-conf`` / ``--group-config`` files the
    command line gave (kept in click's context by rmqcheck/options.py), then ``--set key=value``; in the
    model mode that ``--mode``, the config file's ``mode`` or the preset names, else the one the broker
    files describe (``enableControllerMode=true``: controller), else 4.4. ``modes``: the modes the
    command can run (default: every mode registered in model/modes.py)."""
    import click

    from model.modes import MODES

    ctx = click.get_current_context(silent=True)
    meta = ctx.meta if ctx is not None else {}
    modes = tuple(MODES) if modes is None else modes
    return config_from(preset_name, config_file, assignments, modes, meta.get("mode"),
                       meta.get("broker_confs") or (), meta.get("group_config"),
                       rocketmq_version=meta.get("rocketmq_version"))


def config_from(preset_name: str | None, config_file: str | None, assignments: Sequence[str],
                modes: Sequence[str], given_mode: str | None, broker_confs: Sequence[str],
                group_config: str | None, say_not_modelled: bool = True, rocketmq_version: str | None = None) -> Any:
    """:func:`resolve_config` for any caller (a baseline's run file too): ``given_mode`` is ``--mode``'s
    value, ``broker_confs`` / ``group_config`` the files, ``rocketmq_version`` the release (model/versions.py:
    it sets every version switch after the files, before ``--set``); the keys the files hold but the model
    does not are named once on stderr when ``say_not_modelled``."""
    from model.knobs import ConfigError
    from model.modes import DEFAULT_MODE, base_config, check_knobs, get_mode

    if preset_name and config_file:
        raise BadInput("--preset and --config cannot be used together; give one of them")
    if config_file:
        check_input_file(config_file, "config file")
    try:
        named = _named_mode(given_mode, preset_name, config_file)
        settings = _broker_settings(broker_confs, group_config, named)
        mode = get_mode(named[0] if named else settings.mode if settings is not None else DEFAULT_MODE)
        if mode.name not in modes:
            where = named[1] if named else f"--broker-conf {settings.mode_source[0]!r} ({settings.mode_source[1]})"
            raise BadInput(f"{where}: mode {mode.name}; this command does not run mode {mode.name} yet; it runs: "
                           f"{', '.join(modes)}")
        check_knobs(mode, [item.partition("=")[0].strip() for item in assignments])
        cfg = base_config(mode, preset_name, config_file)
        if settings is not None:
            cfg = cfg.from_mapping(settings.values, base=cfg)
        if rocketmq_version is not None:
            from model.versions import with_release
            cfg = with_release(cfg, rocketmq_version, "--rocketmq-version")
        cfg = cfg.with_overrides(list(assignments))
    except ConfigError as exc:
        raise BadInput(str(exc)) from None
    if settings is not None and say_not_modelled:
        _say_not_modelled(settings)
    return cfg


def _named_mode(given: str | None, preset_name: str | None, config_file: str | None) -> tuple[str, str] | None:
    """The model mode the command line names and where (``--mode``, the config file's ``mode``, the
    preset's own mode), checked to agree; None when nothing names one."""
    from model.modes import file_mode, mode_of_preset, resolve_mode

    try:
        in_file = file_mode(config_file) if config_file else None
    except ValueError:   # an unreadable config file, or a mode that is no string: its loader says what is wrong
        in_file = None
    owner = mode_of_preset(preset_name) if preset_name else None
    if given is None and in_file is None and owner is None:
        return None
    mode = resolve_mode(given, preset_name, config_file if in_file is not None else None)
    if given is not None:
        return mode.name, f"--mode {given}"
    if in_file is not None:
        return mode.name, f"mode = {in_file!r} in {config_file!r}"
    return mode.name, f"--preset {preset_name}"


def _broker_settings(broker_confs: Sequence[str], group_config: str | None,
                     named: tuple[str, str] | None) -> "BrokerSettings | None":
    """The knobs the ``--broker-conf`` / ``--group-config`` files give (None without them), in the mode
    ``named`` names (a contradiction names the file and key), read once per command."""
    import click

    if not (broker_confs or group_config):
        return None
    from .broker_conf import read_broker_group

    ctx = click.get_current_context(silent=True)
    meta = ctx.meta if ctx is not None else {}
    cached = meta.get("broker_settings")
    if cached is not None and cached[0] == (tuple(broker_confs), group_config, named):
        return cached[1]
    settings = read_broker_group(broker_confs, group_config, *(named or (None, "")))
    meta["broker_settings"] = ((tuple(broker_confs), group_config, named), settings)
    return settings


def _say_not_modelled(settings: "BrokerSettings") -> None:
    """Once per command, after the configuration resolved: the keys the files hold but the model does not."""
    import click

    ctx = click.get_current_context(silent=True)
    meta = ctx.meta if ctx is not None else {}
    if settings.not_modelled and "not_modelled_said" not in meta:
        meta["not_modelled_said"] = True
        click.echo(f"rmqcheck: not modelled (read, no effect on the check): {settings.not_modelled_text()}",
                   err=True)


def broker_settings() -> "BrokerSettings | None":
    """The knobs the command's ``--broker-conf`` / ``--group-config`` files gave (None without them), as
    :func:`resolve_config` read them."""
    import click

    ctx = click.get_current_context(silent=True)
    cached = ctx.meta.get("broker_settings") if ctx is not None else None
    return cached[1] if cached is not None else None


#: what a path that is not a regular file is, by the kind its mode gives
NOT_REGULAR = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def check_input_file(path: str | Path, what: str) -> None:
    """An input file (a ``what``: config file, baseline, trace file) must be a regular file, so reading it
    ends: a FIFO would block until a writer comes (forever), a device never ends (``/dev/zero``), and a
    pipe read once cannot be read again (``gate --update /dev/stdin``). Symbolic links are followed; a path
    that does not exist is left to the reader, which says so."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return
    for test, kind in NOT_REGULAR:
        if test(mode):
            raise BadInput(f"{what} {str(path)!r} is {kind}, not a regular file; rmqcheck reads only regular files")
    if not stat.S_ISREG(mode):
        raise BadInput(f"{what} {str(path)!r} is not a regular file; rmqcheck reads only regular files")


def config_name(preset_name: str | None, config_file: str | None) -> str:
    """How reports title a configuration: its TOML file's stem, the first --broker-conf file's stem (the
    broker group), or its preset."""
    if config_file:
        return Path(config_file).stem
    import click
    ctx = click.get_current_context(silent=True)
    brokers = ctx.meta.get("broker_confs") if ctx is not None else None
    if brokers and not preset_name:
        return Path(brokers[0]).stem
    return preset_name or "default"


def check_outputs(outputs: Mapping[str, str | None], inputs: Mapping[str, str | None] | None = None,
                  work_dir: str | None = None) -> None:
    """Before anything runs: every output path given is writable (``--json -`` is standard output), no two
    options name one file, no output names an input of the same command (``inputs``: option -> path,
    e.g. ``--config``), compared as files (device and inode), so a symbolic link, a hard link or ``./x``
    for ``x`` is caught: an input is never overwritten; and none lies inside the Spark engine's
    ``--work-dir``, whose files a resumed run reads."""
    read = input_identities(list((inputs or {}).items()) + _context_inputs())
    inside = _real_path(work_dir, "--work-dir") if work_dir else None
    seen: dict[str, str] = {}
    for option, path in outputs.items():
        if not path:
            continue
        key = path if path == STDOUT else _real_path(path, option)
        if key in seen:
            raise BadInput(f"{seen[key]} and {option} name the same file {path!r}; give different paths")
        seen[key] = option
        if inside and key != STDOUT and (key == inside or key.startswith(inside.rstrip(os.sep) + os.sep)):
            raise BadInput(f"{option} {path!r} lies inside --work-dir {work_dir!r}, whose files a resumed run "
                           "reads; give a path outside it")
        refuse_link_loop(option, path)
        refuse_input_as_output(option, path, read)
        check_writable(path, option, allow_stdout=option == "--json")


def _context_inputs() -> list[tuple[str, str]]:
    """The broker and group files the command line (or its run file) gave, kept in click's context by
    rmqcheck/options.py: inputs as much as ``--config`` is."""
    import click

    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return []
    found = [("--broker-conf", path) for path in ctx.meta.get("broker_confs") or ()]
    if ctx.meta.get("group_config"):
        found.append(("--group-config", ctx.meta["group_config"]))
    return found


def refuse_link_loop(option: str, path: str) -> None:
    """A symbolic link that resolves to itself (``ln -s o.json o.json``) names no file to write through:
    writing would replace the link with a regular file."""
    if path == STDOUT or not os.path.islink(path):
        return
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise BadInput(f"{option} {path!r} is a symbolic link that loops back on itself; "
                           "give another path") from None


def _real_path(path: str, option: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError) as exc:
        raise BadInput(f"{option} {path!r}: not a usable path ({getattr(exc, 'strerror', None) or exc})") from None


def _identity(path: str) -> tuple[int, int] | None:
    """The file ``path`` names (device, inode), following symbolic links; None when there is none."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def input_identities(inputs: Mapping[str, str | None] | Sequence[tuple[str, str | None]]
                     ) -> dict[tuple[int, int], tuple[str, str]]:
    """The files of a command's inputs (option -> path, or (option, path) pairs where an option repeats):
    ``{(device, inode): (option, path)}``."""
    found = {}
    for option, path in (inputs.items() if isinstance(inputs, Mapping) else inputs):
        ident = _identity(path) if path and path != STDOUT else None
        if ident is not None:
            found[ident] = (option, path)
    return found


def refuse_input_as_output(option: str, path: str, inputs: Mapping[tuple[int, int], tuple[str, str]]) -> None:
    """Bad input when the output ``path`` is one of the files ``inputs`` (see :func:`input_identities`)."""
    ident = _identity(path) if path != STDOUT else None
    if ident is not None and ident in inputs:
        source, source_path = inputs[ident]
        raise BadInput(f"{option} {path!r} is the file {source} {source_path!r} reads; an output never "
                       "replaces an input: give another path")


def check_itf_dir(path: str, inputs: Mapping[str, str | None] | None = None) -> None:
    """``--itf DIR``: a directory, or a new one whose parent exists; writable either way; none of its
    ``<property>.itf.json`` files may be an input of the command (``inputs``)."""
    from reports.files import check_writable

    p = Path(path)
    try:
        is_file = p.exists() and not p.is_dir()
    except (OSError, ValueError) as exc:
        raise BadInput(f"--itf {path!r}: not a usable path ({getattr(exc, 'strerror', None) or exc})") from None
    if is_file:
        raise BadInput(f"--itf {path!r}: is a file; give a directory (created if missing)")
    where = _real_path(path, "--itf")
    for option, source in list((inputs or {}).items()) + _context_inputs():
        if source and source != STDOUT and source.endswith(".itf.json") and \
                os.path.dirname(_real_path(source, option)) == where:
            raise BadInput(f"--itf {path!r} would write over {option} {source!r} (a <property>.itf.json there); "
                           "an output never replaces an input: give another directory")
    check_writable(p / ".itf-probe" if p.is_dir() else p, "--itf")
    if p.is_dir():   # the temporaries a killed run left of its <property>.itf.json files
        remove_stale_temps(p / "x", any_name=r"[^/]+\.itf\.json")


def select_properties(names: Sequence[str], config: Any = None) -> PropertySet:
    """The properties named (all when none), of ``config``'s model mode (the default mode's when None)."""
    from model.modes import DEFAULT_MODE, get_mode, mode_of

    mode = get_mode(DEFAULT_MODE) if config is None else mode_of(config)
    try:
        return mode.properties().select(list(names))
    except ValueError as exc:
        message = str(exc)
        if mode.name != DEFAULT_MODE:   # the suggestion (rmqcheck/suggest.py) is then of this mode's names
            message = re.sub(r"^(unknown property '[^']*')", rf"\1 in mode {mode.name}", message)
        raise BadInput(message) from None


#: the largest count or time an option takes: far beyond any space, safely inside the engines' 64-bit counters
MAX_COUNT = 10 ** 15
MAX_SECONDS = 10 ** 9


def limits(max_states: int | None, max_depth: int | None, max_seconds: float | None) -> Limits:
    from explore.run_control import Limits

    for option, value, high in (("--max-states", max_states, MAX_COUNT), ("--max-depth", max_depth, MAX_COUNT),
                                ("--max-seconds", max_seconds, MAX_SECONDS)):
        if value is not None:
            bounded(option, value, high)
    return Limits(max_states, max_depth, max_seconds)


def bounded(option: str, value: int | float, high: int, positive: bool = True) -> None:
    """Bad input unless ``value`` is finite, > 0 (``positive``) or >= 0, and at most ``high``."""
    if not math.isfinite(value):
        raise BadInput(f"{option} {value}: must be a finite number")
    if positive and value <= 0:
        raise BadInput(f"{option} {value}: must be > 0")
    if value < 0:
        raise BadInput(f"{option} {value}: must be >= 0")
    if value > high:
        raise BadInput(f"{option} {value}: must be at most {high:,}")


MAX_THREADS = 64   # table regions are numbered in a byte


def parallelism(threads: int | None, jobs: int | None, default_jobs: int = 1) -> tuple[int, int]:
    """``(jobs, threads)`` for ``--jobs`` / ``--threads`` (None: not given): ``jobs`` explorations at
    once, each on ``threads`` threads, never more than the usable cores in all. Unset, threads share the
    cores among the jobs, and jobs default to ``default_jobs`` (0: the cores the threads leave)."""
    from explore.sweep import usable_cores

    cores = usable_cores()
    if threads is not None and not 1 <= threads <= min(cores, MAX_THREADS):
        raise BadInput(f"--threads {threads}: must be between 1 and {min(cores, MAX_THREADS)} (the usable cores)")
    if jobs is not None and not 1 <= jobs <= cores:
        raise BadInput(f"--jobs {jobs}: must be between 1 and {cores} (the usable cores)")
    if jobs is None:
        jobs = default_jobs or max(cores // (threads or 1), 1)
    if threads is None:
        threads = max(min(cores // jobs, MAX_THREADS), 1)
    if jobs * threads > cores:
        raise BadInput(f"--jobs {jobs} --threads {threads}: {jobs * threads} threads in all, more than the "
                       f"{cores} usable cores")
    return jobs, threads


@dataclass
class CheckJob:
    """One configuration to check, with everything the engines need (``threads``: the local engine's)."""

    config: Any
    properties: PropertySet
    limits: Limits
    threads: int = 1
    compact: bool = False   # the local engine's compact visited set (--compact)
    work_dir: str | None = None   # the compact set's levels and checkpoints (--work-dir, local engine)
    resume: bool = False          # continue from work_dir's checkpoint (--resume)

    def model(self) -> Any:
        """The model of the configuration's mode."""
        from model.modes import mode_of

        return mode_of(self.config).model(self.config)

    def describe(self) -> dict[str, Any]:
        return self.config.as_dict()
