"""``rmqcheck simulate``: seeded random walks, for spaces too big to exhaust.

A walk can find a violation (a real path, not necessarily a shortest one) but can never prove a property:
the outcome is ``violated`` (exit 1) or ``incomplete`` (exit 3), never ``passed``.
"""
from __future__ import annotations

import sys
import time

import click

from .compile_notice import announce_compilation
from .exit_codes import EXIT_FOR_OUTCOME
from .options import config_options, json_option, property_option, quiet_option
from .interrupt import stop_on_signals
from .output import print_result, stdout_console
from .setup import MAX_COUNT, MAX_SECONDS, CheckJob, bounded, check_outputs, config_name, resolve_config, select_properties

MAX_WALK_DEPTH = 100_000   # a walk keeps its path in memory

NOTE = ("Random simulation: each trace above is a real path of the model, shrunk but NOT necessarily a shortest "
        "one; properties never violated on the walks are 'unknown', never 'holds'.")


@click.command()
@config_options
@property_option
@click.option("--walks", type=int, default=100, show_default=True, metavar="N", help="Number of random walks.")
@click.option("--depth", type=int, default=50, show_default=True, metavar="D", help="Steps per walk at most.")
@click.option("--seed", type=int, default=0, show_default=True, metavar="S",
              help="Seed: the same seed gives the same walks on every machine.")
@click.option("--max-seconds", type=float, metavar="S",
              help="Stop walking (and shrinking) after this much time; the traces found so far are kept.")
@json_option
@quiet_option
def simulate(preset_name, config_file, assignments, property_names, walks, depth, seed, max_seconds, json_path,
             quiet) -> None:
    """Random walks through a configuration: finds violations, proves nothing (exit 1 or 3).

    Each trace found is shrunk (steps dropped and reordered while the property stays violated, every
    candidate replayed through the model) before it is printed.
    """
    announce_compilation()
    from explore.simulate import WalkLimits, simulate as run_walks

    from .engines import progress_listener

    cfg = resolve_config(preset_name, config_file, assignments)
    props = select_properties(property_names, cfg)
    bounded("--walks", walks, MAX_COUNT)
    bounded("--depth", depth, MAX_WALK_DEPTH)
    bounded("--seed", seed, 2 ** 63 - 1, positive=False)
    if max_seconds is not None:
        bounded("--max-seconds", max_seconds, MAX_SECONDS)
    check_outputs({"--json": json_path}, {"--config": config_file})
    model = CheckJob(cfg, props, None).model()
    deadline = time.monotonic() + max_seconds if max_seconds is not None else None
    with stop_on_signals():
        with progress_listener(quiet, label="random walks", unit="walks", forecast=False) as listener:
            result = run_walks(model, props, WalkLimits(walks, depth, seed, max_seconds), listener)
        shrunk = shrink_traces(model, props, result, deadline)
        print_result(result, config_name(preset_name, config_file), cfg.short(), quiet, json_path=json_path,
                     note=NOTE)
    if not quiet:
        out = stdout_console()
        for name, how in shrunk.items():
            out.print(f"{name}: {how}")
    sys.exit(EXIT_FOR_OUTCOME[result.outcome])


def shrink_traces(model, props, result, deadline: float | None) -> dict[str, str]:
    """Shrink every trace of ``result`` in place (its note says how far); ``{property: "shrunk a -> b steps"}``."""
    from explore.result import REACHED, S_VIOLATED
    from explore.shrink import shrink

    done = {}
    for p in result.properties:
        if p.trace is None or p.status not in (S_VIOLATED, REACHED):
            continue
        if deadline is not None and time.monotonic() > deadline:
            done[p.name] = f"not shrunk ({len(p.trace)} steps): time limit reached"
            continue
        s = shrink(model, props, props.get(p.name), p.trace, deadline)
        p.trace = s.trace
        p.note = f"{p.note}; {s.describe()}" if p.note else s.describe()
        done[p.name] = s.describe()
    return done
