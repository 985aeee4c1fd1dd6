"""Model modes: one name -> one package behind one interface (knob table, presets, configuration,
model class, property set), so the commands read any mode the same way.

``4.4`` is the RocketMQ 4.4 master/slave model of this package (the default; nothing about it depends on
this registry); ``controller`` is the RocketMQ 5.3.3 controller mode of :mod:`model.controller`. The
property set of a mode is named by its module path and imported on first use: the model package does
not import invariants (dependencies flow model -> invariants).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from .knobs import ConfigError, load_knobs_toml, read_config_toml

DEFAULT_MODE = "4.4"


@dataclass(frozen=True)
class Mode:
    """Everything a command needs of one model mode."""

    name: str
    description: str
    config_module: str       # defines KNOBS, PRESETS, PRESET_DESCRIPTIONS, preset(name)
    config_class: str        # the configuration class in it (from_mapping, with_overrides, short, as_dict)
    model_path: str          # "module:Class", built as Class(config, mutation=...)
    properties_path: str     # "module:NAME" of its PropertySet
    faults_path: str         # "module:NAME" of its FaultProfile (explore/fault_profiles.py): what faults needs
    kinds_path: str          # "module:NAME" of its action kinds (the names ``--unfair`` takes)
    #: the action kinds that are failures: never fair for an eventually property (explore/fairness.py)
    failures: tuple[str, ...] = ()
    #: "module:NAME" of its ReleaseLine (model/versions.py): the releases it checks and their switches
    releases_path: str = ""
    #: "module:NAME" of its :class:`reports.sequence.Drawings`: how its traces are drawn as message
    #: sequences (none: each step is a note on the lifeline it names)
    drawings_path: str = ""
    #: "module:NAME" of its ActionRegistry (model/declare.py): the declared actions the reference lists
    actions_path: str = ""

    def _config(self) -> Any:
        return importlib.import_module(self.config_module)

    @property
    def knobs(self) -> tuple:
        return self._config().KNOBS

    @property
    def presets(self) -> Mapping[str, Any]:
        return self._config().PRESETS

    @property
    def preset_descriptions(self) -> Mapping[str, str]:
        return self._config().PRESET_DESCRIPTIONS

    @property
    def default_preset(self) -> str:
        """The preset of the mode's code defaults: the first of its PRESETS (``default``, ``controller``)."""
        return next(iter(self.presets))

    def preset(self, name: str) -> Any:
        return self._config().preset(name)

    def from_mapping(self, values: Mapping[str, Any], base: Any = None) -> Any:
        """The configuration ``values`` give on ``base``; a ``rocketmq_version`` among them (a TOML file's,
        a saved result's ``config``) is checked against the mode's releases, and kept where the
        configuration records one (a mode that checks only its reference release does not)."""
        cls = getattr(self._config(), self.config_class)
        if "rocketmq_version" in values and not hasattr(cls, "rocketmq_version"):
            values = dict(values)
            _load("model.versions:normalize")(values.pop("rocketmq_version"), self.name)
        return cls.from_mapping(values, base=base)

    def release_line(self) -> Any:
        """The mode's :class:`model.versions.ReleaseLine`."""
        return _load(self.releases_path)

    def model(self, config: Any, mutation: str | None = None) -> Any:
        module, _, name = self.model_path.partition(":")
        return getattr(importlib.import_module(module), name)(config, mutation=mutation)

    def model_name(self) -> str:
        """The model's name, as a result's ``model`` records it (the model class's ``name``)."""
        return _load(self.model_path).name

    def properties(self) -> Any:
        return _load(self.properties_path)

    def faults(self) -> Any:
        return _load(self.faults_path)

    def kinds(self) -> tuple[str, ...]:
        return tuple(_load(self.kinds_path))

    def actions(self) -> Any:
        """Its ActionRegistry (``declarations()``), or None."""
        return _load(self.actions_path) if self.actions_path else None

    def drawings(self) -> Any:
        """Its :class:`reports.sequence.Drawings`, or None."""
        return _load(self.drawings_path) if self.drawings_path else None


def _load(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


MODES: dict[str, Mode] = {
    "4.4": Mode("4.4", "RocketMQ 4.4 master/slave replication (a slave never takes over)",
                "model.config", "Config", "model.rocketmq:RocketMQModel", "invariants.rocketmq:PROPERTIES",
                "model.fault_profile:ROCKETMQ_44", "model.actions:KINDS",
                ("MasterCrash", "MasterPowerLoss", "SlaveCrash", "SlavePowerLoss", "ConsumerCrash", "HaDisconnect",
                 "DeleteExpiredFiles"), "model.versions_44:LINE", "model.drawings:DRAWINGS",
                "model.declare:ROCKETMQ_44"),
    "controller": Mode("controller", "RocketMQ 5.3.3 controller mode: the controller elects a master from "
                       "the SyncStateSet", "model.controller.config", "ControllerConfig",
                       "model.controller.model:ControllerModel", "invariants.controller:PROPERTIES",
                       "model.controller.fault_profile:CONTROLLER", "model.controller.kernel:KINDS",
                       # a lost RPC reply is a network failure too; restarts, heals and ControllerUp are fair;
                       # a name server's restart and a broker cut off from it (name_servers >= 1) are failures
                       ("BrokerCrash", "BrokerPowerLoss", "ControllerDown", "ControllerLinkLoss", "HADisconnect",
                        "AlterSyncStateSetReplyLost", "ConsumerCrashRestart", "NsCutOff", "NsRestart",
                        "BrokerShutdown"), "model.versions_5:LINE",
                       "model.controller.drawings:DRAWINGS", "model.controller.declare:CONTROLLER"),
}


def get_mode(name: str) -> Mode:
    mode = MODES.get(name)
    if mode is None:
        raise ConfigError(f"unknown mode '{name}'; known modes: {', '.join(MODES)}")
    return mode


def mode_of(config: Any) -> Mode:
    """The mode a configuration belongs to (a 4.4 :class:`model.config.Config` has no ``mode``)."""
    return MODES[getattr(config, "mode", DEFAULT_MODE)]


def mode_name_of(config: Any) -> str:
    """The mode a result's ``config`` mapping names (its ``mode`` key; none: the default mode)."""
    return config.get("mode", DEFAULT_MODE) if isinstance(config, Mapping) else DEFAULT_MODE


def config_of_mapping(config: Mapping[str, Any]) -> Any:
    """The typed configuration a result's ``config`` mapping records, in the mode it names; ConfigError
    for an unknown mode or knobs that do not fit."""
    return get_mode(mode_name_of(config)).from_mapping({k: v for k, v in config.items() if k != "mode"})


def mode_of_preset(name: str) -> str | None:
    for mode in MODES.values():
        if name in mode.presets:
            return mode.name
    return None


def check_knobs(mode: Mode, keys: Sequence[str]) -> None:
    """A knob of another mode (by its key or its RocketMQ name, ``allAckInSyncStateSet``) is bad input
    naming the knob and both modes; an unknown one is left to the mode's own parser (which lists its
    knobs)."""
    own = {k.key for k in mode.knobs} | {k.alias for k in mode.knobs if k.alias}
    for key in keys:
        if key in own:
            continue
        for other in MODES.values():
            knob = next((k for k in other.knobs if key in (k.key, k.alias)), None)
            if other is not mode and knob is not None:
                named = f"'{key}'" + (f" ({knob.key})" if key != knob.key else "")
                raise ConfigError(f"knob {named} belongs to mode {other.name}, not to mode {mode.name}; "
                                  f"--mode {mode.name} knobs: {', '.join(sorted(k.key for k in mode.knobs))}")


def file_mode(path: str | Path) -> str | None:
    """The ``mode = "..."`` a TOML config file names (top level or in ``[config]``), or None."""
    data = read_config_toml(path)
    name = data.get("mode")
    if name is None and isinstance(data.get("config"), dict):
        name = data["config"].get("mode")
    if name is not None and not isinstance(name, str):
        raise ConfigError(f"config file {str(path)!r}: mode {name!r} is not a mode name; known modes: "
                          f"{', '.join(MODES)}")
    return name


def resolve_mode(given: str | None, preset_name: str | None, config_file: str | None) -> Mode:
    """The mode of one command: ``--mode``, else the config file's ``mode``, else the preset's, else
    4.4; any two that disagree are bad input."""
    named: list[tuple[str, str]] = []
    if given is not None:
        named.append(("--mode", get_mode(given).name))
    if config_file:
        in_file = file_mode(config_file)
        if in_file is not None:
            named.append((f"config file {config_file!r}", get_mode(in_file).name))
    if preset_name:
        owner = mode_of_preset(preset_name)
        if owner is not None:
            named.append((f"preset '{preset_name}'", owner))
    for (where, name), (where2, name2) in zip(named, named[1:]):
        if name != name2:
            raise ConfigError(f"{where2} is mode {name2}, but {where} says mode {name}; give one mode")
    return get_mode(named[0][1] if named else DEFAULT_MODE)


def resolve_config(mode: Mode, preset_name: str | None, config_file: str | None,
                   assignments: Sequence[str]) -> Any:
    """``--preset`` or ``--config`` then ``--set`` overrides, in a mode other than 4.4 (whose loader is
    model.config's own)."""
    check_knobs(mode, [item.partition("=")[0].strip() for item in assignments])
    return base_config(mode, preset_name, config_file).with_overrides(list(assignments))


def base_config(mode: Mode, preset_name: str | None, config_file: str | None) -> Any:
    """The configuration ``--preset`` or ``--config`` gives in ``mode``, before overrides (neither: the
    mode's code defaults)."""
    if config_file:
        return _load_mode_toml(mode, config_file)
    return mode.preset(preset_name or mode.default_preset)


def _load_mode_toml(mode: Mode, path: str) -> Any:
    """A config file of ``mode``, read by the loader every mode shares (model.knobs.load_knobs_toml), from
    the mode's code defaults."""
    data = read_config_toml(path)
    values = dict(data["config"]) if isinstance(data.get("config"), dict) else dict(data)
    values.pop("run", None)
    check_knobs(mode, [k for k in values if k not in ("mode", "preset")])
    return load_knobs_toml(path, mode.name, mode.knobs, mode.presets, mode.preset, mode.from_mapping,
                           base=mode.preset(mode.default_preset))
