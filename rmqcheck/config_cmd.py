"""``rmqcheck config``: print the configuration the options resolve to, as a TOML run file.

``rmqcheck config --broker-conf broker-a.properties --broker-conf broker-a-s.properties`` shows which knobs
an operator's own files set (each with the key and file it came from) and which keys the model does not
cover; the output, saved, is a ``--config`` file that checks the same configuration.
"""
from __future__ import annotations

import json
from typing import Any

import click

from .options import config_options
from .run_file import RUN_KEYS
from .setup import broker_settings, resolve_config


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value)   # a TOML basic string is a JSON string for these names
    return str(value)


def config_toml(cfg, settings=None, run: dict[str, Any] | None = None) -> str:
    """Every knob of ``cfg`` as ``key = value`` lines (after a ``mode = "..."`` line outside the 4.4 default);
    the knobs ``settings`` (broker files) set say where from; ``run`` (parameter name -> value) becomes the
    ``[run]`` table."""
    from model.modes import DEFAULT_MODE, mode_of
    from model.versions import release_of

    mode = mode_of(cfg)
    lines = ["# rmqcheck configuration: every knob, resolved. Check it with: rmqcheck check --config FILE"]
    if mode.name != DEFAULT_MODE:
        lines.append(f"mode = {_toml_value(mode.name)}")
    if settings is not None:
        lines.append(f"# from: {', '.join(settings.files)}")
        if settings.not_modelled:
            lines.append(f"# not modelled: {settings.not_modelled_text()}")
    # the release first: loading the file sets its switches, then the knob lines below (an explicit one wins)
    lines.append(f"rocketmq_version = {_toml_value(release_of(cfg))}")
    sources = settings.sources if settings is not None else {}
    for knob in mode.knobs:
        line = f"{knob.key} = {_toml_value(getattr(cfg, knob.key))}"
        if knob.key in sources:
            line += f"   # {sources[knob.key]}"
        lines.append(line)
    names = {name: key for key, (name, _) in RUN_KEYS.items() if key not in ("broker_conf", "group_config")}
    table = [(names[name], value) for name, value in (run or {}).items() if name in names]
    if table:
        lines += ["", "[run]", *(f"{key} = {_toml_value(value)}" for key, value in table)]
    return "\n".join(lines) + "\n"


@click.command("config")
@config_options
@click.pass_context
def config_cmd(ctx: click.Context, preset_name, config_file, assignments) -> None:
    """Print the configuration the options give, as a TOML file for --config.

    With --broker-conf (the master's and each slave's broker.conf) and --group-config, it shows the knobs
    your own RocketMQ settings give, the file and key of each, and the keys the model does not cover.
    """
    ctx.meta["not_modelled_said"] = True   # the output's own comment names them
    cfg = resolve_config(preset_name, config_file, assignments)
    click.echo(config_toml(cfg, broker_settings(), ctx.default_map), nl=False)
