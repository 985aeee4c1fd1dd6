"""A fuzz test of the whole command line (Hypothesis): generated arguments and generated input files, each
case bounded (a few hundred states at most, no Spark), asserting what every input must give: no
traceback, a documented exit code (0-4), one ``rmqcheck: error:`` line for bad input, and no output file
unless the run ended with a result (exit 0, 1 or 3)."""
from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from cli_driver import TINY, invoke
from invariants import PROPERTIES
from model import KNOBS, PRESETS

FUZZ_CASES = int(os.environ.get("RMQCHECK_FUZZ_CASES", "500"))
DOCUMENTED_EXIT_CODES = {0, 1, 2, 3, 4}
RESULT_EXIT_CODES = {0, 1, 3}

def mostly(good: st.SearchStrategy, bad: st.SearchStrategy, odds: int = 6) -> st.SearchStrategy:
    """``good`` about ``odds`` times in ``odds + 1`` (Hypothesis draws small integers and first branches
    more often than others, so a plain one_of would make nearly every case bad input)."""
    return st.sampled_from([False] * odds + [True]).flatmap(lambda pick_bad: bad if pick_bad else good)


def now_and_then(odds: int = 8) -> st.SearchStrategy[bool]:
    return st.sampled_from([False] * odds + [True])


names = st.sampled_from(sorted(PRESETS) + ["nope", "", "DEFAULT", "bench "])
junk_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
numbers = st.one_of(st.integers(-3, 600).map(str), st.integers().map(str),
                    st.sampled_from(["nan", "inf", "-inf", "1e400", str(2 ** 63), str(2 ** 64), "0", "0x10", "1.5",
                                     "9" * 5000]),
                    junk_text)
small_limit = mostly(st.integers(1, 400).map(str),   # a valid limit keeps the run small
                     st.sampled_from(["0", "-1", "nan", "inf", str(2 ** 63), "9" * 5000, "x"]))
knob_values = st.one_of(st.integers(-2, 10).map(str), st.sampled_from(["true", "false", "SYNC_MASTER", "ASYNC_FLUSH",
                                                                        "", "9" * 5000]), junk_text)
valid_assignments = st.sampled_from(["slaves=0", "slaves=2", "broker_role=SYNC_MASTER", "flush_disk_type=SYNC_FLUSH",
                                     "consumers=2", "monotonic_commit=true", "max_ha_disconnects=1", "queues=2"])
assignments = mostly(valid_assignments, st.tuples(
    st.sampled_from([k.key for k in KNOBS] + ["nope", "", "messages "]), knob_values).map(lambda kv: f"{kv[0]}={kv[1]}"),
    odds=3)
property_names = st.sampled_from(PROPERTIES.names() * 3 + ["nope", ""])


def toml_documents() -> st.SearchStrategy[str]:
    value = st.one_of(st.integers(-5, 10).map(str), st.sampled_from(['"default"', '"sync-master"', "true", '"x"',
                                                                       "9" * 5000, "[1, 2]", "{a = 1}", "nan"]))
    key = st.sampled_from([k.key for k in KNOBS] + ["preset", "nope"])
    flat = st.lists(st.tuples(key, value), max_size=5).map(lambda kvs: "".join(f"{k} = {v}\n" for k, v in kvs))
    nested = st.integers(1, 3000).map(lambda n: "messages = " + "[" * n + "]" * n + "\n")
    return st.one_of(flat, flat.map(lambda t: "[config]\n" + t), flat.map(lambda t: 'preset = "default"\n[config]\n' + t),
                     nested, st.binary(max_size=64).map(lambda b: b.decode("latin-1")), junk_text)


def baseline_documents() -> st.SearchStrategy[str]:
    """Baselines: malformed ones, or well-formed ones over the tiny configuration only (a gate explores
    each configuration without limits)."""
    verdict = st.sampled_from(["holds", "violated", "reached", "unreached", "unknown", "maybe"])
    prop = st.sampled_from(["acked_message_never_lost", "master_recovers", "nope"])
    tiny = "[configuration.set]\nmessages = 1\nmax_master_crashes = 0\nmax_master_power_losses = 0\n"
    entry = st.tuples(st.sampled_from(['"a"', '"b"', "3", '""']), prop, verdict).map(
        lambda e: f"[[configuration]]\nname = {e[0]}\nproperties = [\"{e[1]}\"]\n{tiny}"
                  f"[configuration.expect]\n{e[1]} = \"{e[2]}\"\n")
    return st.one_of(st.lists(entry, max_size=2).map("".join), toml_documents())


def mutate(data: dict, path: tuple, value) -> dict:
    data = json.loads(json.dumps(data))
    node = data
    for k in path[:-1]:
        if isinstance(node, dict) and k in node:
            node = node[k]
        elif isinstance(node, list) and isinstance(k, int) and k < len(node):
            node = node[k]
        else:
            return data
    if isinstance(node, dict) or (isinstance(node, list) and isinstance(path[-1], int) and path[-1] < len(node)):
        node[path[-1]] = value
    return data


class Files:
    """Input files written per case in a scratch directory, and the output paths a case may name."""

    def __init__(self, root: Path, result: dict) -> None:
        self.root = root
        self.result = result
        self.counter = itertools.count()

    def write(self, text: str, suffix: str) -> str:
        path = self.root / f"in{next(self.counter)}{suffix}"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        return str(path)

    def output(self, kind: str) -> str:
        return str(self.root / f"out{next(self.counter)}{kind}")


@st.composite
def result_documents(draw, result: dict) -> str:
    edits = st.tuples(
        st.sampled_from([("status",), ("name",), ("trace", 1, "action"), ("trace", 1, "state", "master.up"),
                         ("trace", 0, "step"), ("trace",)]),
        st.one_of(st.sampled_from(["holds", "violated", "reached", "x", 10 ** 20, -1, None, True, [], {}]),
                  st.integers(), junk_text))
    data = dict(result)
    if draw(st.booleans()):
        data = mutate(data, ("config", draw(st.sampled_from([k.key for k in KNOBS] + ["nope"]))),
                      draw(st.one_of(st.integers(-2, 5), st.booleans(), junk_text)))
    for where, value in draw(st.lists(edits, max_size=2)):
        i = draw(st.integers(0, max(len(data["properties"]) - 1, 0)))
        data = mutate(data, ("properties", i) + where, value)
    kind = draw(st.sampled_from(["json", "json", "deep", "huge", "junk"]))
    if kind == "deep":
        return "[" * 50_000 + "]" * 50_000
    if kind == "huge":
        return '{"config": {}, "properties": [], "x": ' + "7" * 5000 + "}"
    if kind == "junk":
        return draw(junk_text)
    return json.dumps(data)


@st.composite
def command_lines(draw, files: Files) -> tuple[list[str], list[str]]:
    """``(arguments, output paths named)``."""
    command = draw(st.sampled_from(["check", "check", "check", "simulate", "replay", "gate", "matrix", "list"]))
    args: list[str] = [command]
    outputs: list[str] = []

    def output_path(option: str, kinds: list[str]) -> None:
        path = draw(st.sampled_from(kinds * 4 + ["-", "/dev/null", "/nonexistent/dir/x.json", str(files.root)]))
        if path in kinds:
            path = files.output(path)
            outputs.append(path)
        args.extend([option, path])

    if command in ("check", "simulate"):
        if draw(st.booleans()):
            args += ["--preset", draw(names)]
        elif draw(st.booleans()):
            args += ["--config", files.write(draw(toml_documents()), ".toml")]
        for a in draw(st.lists(assignments, max_size=3)):
            args += ["--set", a]
        args += list(TINY) if draw(st.booleans()) else []
        for p in draw(st.lists(property_names, max_size=2)):
            args += ["--property", p]
    if command == "check":
        args += ["--max-states", draw(small_limit)]
        if draw(st.booleans()):
            args += ["--max-depth", draw(mostly(st.integers(1, 50).map(str), numbers, 3))]
        if draw(st.booleans()):
            args += ["--max-seconds", draw(mostly(st.sampled_from(["30", "0.5", "1e3"]), numbers, 3))]
        if draw(now_and_then()):   # a Spark-only option without --engine spark: refused, Spark never starts
            args += [draw(st.sampled_from(["--partitions", "--driver-level-limit", "--spark-master", "--work-dir"])),
                     draw(numbers)]
        if draw(st.booleans()):
            output_path("--json", [".json"])
        if draw(st.booleans()):
            output_path("--report", [".md", ".html", ".txt"])
        if draw(st.booleans()):
            output_path("--graph", [".dot", ".graphml", ".png"])
        if draw(st.booleans()):
            args.append("--quiet")
    elif command == "simulate":
        args += ["--walks", draw(mostly(st.integers(1, 20).map(str), numbers.filter(lambda n: not n.isdigit()), 3))]
        args += ["--depth", draw(mostly(st.integers(1, 30).map(str), numbers.filter(lambda n: not n.isdigit()), 3))]
        if draw(st.booleans()):
            args += ["--seed", draw(mostly(st.integers(0, 2 ** 32).map(str), numbers, 3))]
        if draw(st.booleans()):
            output_path("--json", [".json"])
    elif command == "replay":
        args.append(files.write(draw(result_documents(files.result)), ".json"))
        for p in draw(st.lists(property_names, max_size=1)):
            args += ["--property", p]
        args += ["--max-states", draw(small_limit)]
    elif command == "gate":
        args += ["--baseline", files.write(draw(baseline_documents()), ".toml")]
        if draw(st.booleans()):
            args.append("--update")
        args.append("--quiet")
    elif command == "matrix":
        for name in draw(st.lists(names, max_size=2)):
            args += ["--preset", name]
        args += ["--max-states", draw(small_limit)]
        if draw(st.booleans()):
            output_path("--json", [".json"])
        if draw(st.booleans()):
            output_path("--report", [".md"])
        args.append("--quiet")
    if draw(now_and_then(12)):   # now and then an unknown option or a stray argument
        args.insert(draw(st.integers(1, len(args))), draw(st.sampled_from(["--nope", "extra", "--", "-x"])))
    return args, outputs


def check_case(exit_code: int, stdout: str, stderr: str, outputs: list[str]) -> None:
    assert exit_code in DOCUMENTED_EXIT_CODES, (exit_code, stderr)
    assert "Traceback" not in stdout + stderr
    if exit_code == 2:
        lines = stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("rmqcheck: error: "), stderr
    written = [p for p in outputs if os.path.exists(p)]
    if exit_code not in RESULT_EXIT_CODES:
        assert written == [], (exit_code, written, stderr)
    for p in written:
        os.unlink(p)
    leftovers = [n for n in os.listdir(Path(outputs[0]).parent) if n.endswith(".rmqcheck-tmp")] if outputs else []
    assert leftovers == []


@pytest.fixture(scope="module")
def small_result(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("fuzz") / "r.json"
    r = invoke("check", *TINY, "--property", "acked_message_never_lost", "--property", "master_recovers",
               "--json", str(path), "--quiet")
    assert r.exit_code == 1, r.output
    return json.loads(path.read_text())


def test_fuzz_the_command_line_in_process(small_result, tmp_path_factory):
    files = Files(tmp_path_factory.mktemp("cases"), small_result)
    seen_codes: dict[int, int] = {}

    @settings(max_examples=FUZZ_CASES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def case(data):
        args, outputs = data.draw(command_lines(files))
        r = invoke(*args)
        seen_codes[r.exit_code] = seen_codes.get(r.exit_code, 0) + 1
        check_case(r.exit_code, r.stdout, r.stderr, outputs)

    case()
    print(f"fuzz: {sum(seen_codes.values())} cases, exit codes {dict(sorted(seen_codes.items()))}")
    assert sum(seen_codes.values()) >= FUZZ_CASES
    # the generator reaches both refusals and real runs
    assert seen_codes.get(2, 0) > 0 and sum(seen_codes.get(c, 0) for c in RESULT_EXIT_CODES) > 0, seen_codes


def test_fuzz_a_few_cases_as_real_processes(small_result, tmp_path_factory):
    files = Files(tmp_path_factory.mktemp("proc"), small_result)

    @settings(max_examples=4, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def case(data):
        args, outputs = data.draw(command_lines(files))
        p = subprocess.run([sys.executable, "-m", "rmqcheck", *args], capture_output=True, text=True,
                           timeout=300, stdin=subprocess.DEVNULL)
        check_case(p.returncode, p.stdout, p.stderr, outputs)

    case()
