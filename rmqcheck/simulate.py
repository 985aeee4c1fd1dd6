"""``rmqcheck simulate``: seeded random walks, for spaces too big to exhaust.

A walk can find a violation (a real path, not necessarily a shortest one) but can never prove a property:
the outcome is ``violated`` (exit 1) or ``incomplete`` (exit 3), never ``passed``.
"""
from __future__ import annotations

import sys

import click

from .exit_codes import EXIT_FOR_OUTCOME
from .options import config_options, json_option, property_option, quiet_option
from .output import print_result
from .interrupt import stop_on_signals
from .setup import MAX_COUNT, bounded, check_outputs, config_name, resolve_config, select_properties

MAX_WALK_DEPTH = 100_000   # a walk keeps its path in memory

NOTE = ("Random simulation: each trace above is a real path of the model but NOT necessarily a shortest one; "
        "properties never violated on the walks are 'unknown', never 'holds'.")


@click.command()
@config_options
@property_option
@click.option("--walks", type=int, default=100, show_default=True, metavar="N", help="Number of random walks.")
@click.option("--depth", type=int, default=50, show_default=True, metavar="D", help="Steps per walk at most.")
@click.option("--seed", type=int, default=0, show_default=True, metavar="S",
              help="Seed: the same seed gives the same walks on every machine.")
@json_option
@quiet_option
def simulate(preset_name, config_file, assignments, property_names, walks, depth, seed, json_path, quiet) -> None:
    """Random walks through a configuration: finds violations, proves nothing (exit 1 or 3)."""
    from explore.simulate import WalkLimits, simulate as run_walks
    from model.rocketmq import RocketMQModel

    from .engines import progress_listener

    cfg = resolve_config(preset_name, config_file, assignments)
    props = select_properties(property_names)
    bounded("--walks", walks, MAX_COUNT)
    bounded("--depth", depth, MAX_WALK_DEPTH)
    bounded("--seed", seed, 2 ** 63 - 1, positive=False)
    check_outputs({"--json": json_path})
    model = RocketMQModel(cfg)
    with stop_on_signals():
        with progress_listener(quiet) as listener:
            result = run_walks(model, props, WalkLimits(walks, depth, seed), listener)
        print_result(result, config_name(preset_name, config_file), cfg.short(), quiet, json_path=json_path,
                     note=NOTE)
    sys.exit(EXIT_FOR_OUTCOME[result.outcome])
