"""``rmqcheck gate``: the CI invariant gate. Re-explore the baseline's configurations, compare verdicts."""
from __future__ import annotations

import sys

import click

from .compile_notice import announce_compilation
from .engines import run_check
from .exit_codes import EXIT_INCOMPLETE, EXIT_MODEL_ERROR, EXIT_OK, EXIT_VIOLATED
from .interrupt import stop_on_signals
from .options import quiet_option, threads_option
from .output import stdout_console
from .setup import BadInput, CheckJob, check_outputs, parallelism, select_properties


@click.command()
@click.option("--baseline", "baseline_path", required=True, metavar="FILE",
              help="The baseline TOML: configurations and the verdict each property must keep.")
@click.option("--update", is_flag=True,
              help="Rewrite the baseline's verdicts from what exploration produces (comments and layout kept).")
@click.option("--junit", "junit_path", metavar="PATH",
              help="Also write JUnit XML: a test case per configuration and property, a flipped verdict's "
                   "new trace in its failure.")
@threads_option
@quiet_option
def gate(baseline_path: str, update: bool, junit_path: str | None, threads: int | None, quiet: bool) -> None:
    """Fail (exit 1, with a diff and each new trace) when any property's verdict differs from the baseline.

    Every configuration is explored exhaustively (no limits). With --update the file's expected verdicts
    are rewritten from exploration instead; nothing is written unless every configuration completes.
    """
    announce_compilation()
    from explore import stop
    from explore.result import ERROR, INCOMPLETE, UNKNOWN
    from reports.files import write_text_atomic

    from model.input_text import read_input_text

    from .baseline import check_updatable, differences, load_baseline, updated_text

    if update and junit_path:
        raise BadInput("--junit reports a comparison with the baseline; --update makes none: drop one of them")
    _, threads = parallelism(threads, 1)
    entries = load_baseline(baseline_path, need_expect=not update)
    if update:   # the text --update rewrites, read once and tried before anything is explored
        text = read_input_text(baseline_path, "baseline")
        check_updatable(baseline_path, text, entries)
    # --update rewrites the baseline on purpose; otherwise no output may name it
    check_outputs({"--baseline": baseline_path if update else None, "--junit": junit_path},
                  {} if update else {"--baseline": baseline_path})
    out = stdout_console()
    results = []
    for i, entry in enumerate(entries, start=1):
        job = CheckJob(entry.config, select_properties(entry.properties, entry.config).with_fairness(entry.fairness),
                       _no_limits(),
                       threads)
        with stop_on_signals():
            result, _ = run_check(job, "local", quiet, label=f"[{i}/{len(entries)}] {entry.name}")
            if stop.requested():
                out.print(f"[yellow]{entry.name}: {stop.requested()}; the gate stops here, no verdict compared"
                          "[/yellow]")
                sys.exit(EXIT_INCOMPLETE)
        results.append(result)
        s = result.stats
        out.print(f"[{i}/{len(entries)}] [bold]{entry.name}[/bold] ({entry.config.short()}): {result.outcome}, "
                  f"{s.distinct_states:,} states in {s.seconds:.1f} s", soft_wrap=True)
        if result.outcome == ERROR:
            out.print(f"[bold magenta]model error[/bold magenta] in {entry.name}: {result.error.message} "
                      f"(action {result.error.action})")
            _write_junit(junit_path, entries, results)
            sys.exit(EXIT_MODEL_ERROR)
        if update and result.outcome == INCOMPLETE:
            out.print(f"[yellow]{entry.name} is incomplete ({result.incomplete_reason}); the baseline is not "
                      "updated[/yellow]")
            sys.exit(EXIT_INCOMPLETE)
    if update:
        write_text_atomic(baseline_path, updated_text(baseline_path, text, entries, results))
        out.print(f"baseline {baseline_path} updated: {len(entries)} configurations, "
                  f"{sum(len(r.properties) for r in results)} verdicts from exploration")
        sys.exit(EXIT_OK)
    incomplete = [(entry, result) for entry, result in zip(entries, results) if result.outcome == INCOMPLETE]
    for entry, result in incomplete:   # e.g. out of memory: verdicts left unknown are no difference
        out.print(f"[yellow]{entry.name} is incomplete ({result.incomplete_reason})[/yellow]")
    _write_junit(junit_path, entries, results)
    diffs = [d for entry, result in zip(entries, results) for d in differences(entry, result)
             if not (result.outcome == INCOMPLETE and d[3] == UNKNOWN)]
    if diffs:
        _print_flips(out, diffs, dict(zip((e.name for e in entries), results)))
        sys.exit(EXIT_VIOLATED)
    if incomplete:
        sys.exit(EXIT_INCOMPLETE)
    out.print(f"gate passed: {sum(len(e.expect) for e in entries)} verdicts in {len(entries)} configurations "
              "as in the baseline")
    sys.exit(EXIT_OK)


def _print_flips(out, diffs, results) -> None:
    """The diff table, one ``gate: ...`` line per flipped verdict, and the new trace of each flip."""
    from reports.console import gate_diff_table, trace_table

    out.print(gate_diff_table(diffs))
    for config, prop, expected, got in diffs:
        out.print(f"gate: {config}: {prop}: expected {expected} -> got {got}")
    for config, prop, expected, got in diffs:
        found = [p for p in results[config].properties if p.name == prop]
        if found and found[0].trace is not None:
            p = found[0]
            out.print(trace_table(p.trace, f"{config}: {prop}: now {p.status} (was {expected}) in "
                                            f"{len(p.trace)} steps"))


def _write_junit(path: str | None, entries, results) -> None:
    if path:
        from reports.junit import write_gate_junit
        write_gate_junit(path, list(zip(entries, results)))


def _no_limits():
    from explore.run_control import Limits
    return Limits()
