"""A seeded fuzz test of hostile inputs across every command (issue 38, items 3 and 5): generated command
lines whose files and values come from a catalogue of hostile ones - an output naming an input (same
path, ``./``, a symbolic or hard link), FIFOs, directories and devices as inputs, names over 255 bytes,
empty values, megabyte values, NaN and infinities, bad Spark master URLs, layouts ``gate --update``
cannot rewrite - mixed with valid ones so that each case passes click's parsing and reaches rmqcheck's
own checks (or a small run). Every case must give a documented exit code (0-3), no traceback, no hang,
error lines under 300 characters (one line for bad input), every input file byte for byte as before,
outputs only from a run that ended with a result, and no temporary file or directory left.

Most cases run in-process (click's CliRunner); a few, the ones only a real process shows (a pipe as
standard input, a console that cannot encode UTF-8), run as subprocesses.

A second seeded generator (issue 45, items 2, 5 and 11) gives the operator's own files of both modes - the
RocketMQ 4.4 and 5.3.3 sample broker files, group files and run files - made hostile (binary, /etc/passwd,
a 100,101-character key, 500 keys, fullwidth digits, blanks, DLedger, the mode flipped, a run file naming
a file outside its directory, a TOML value of the wrong type) with hostile modes and values: the same rules,
and nothing of a file outside the run file's directory echoed."""
from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cli_driver import invoke

SEED = 38
CASES = int(os.environ.get("RMQCHECK_HOSTILE_CASES", "800"))
PROCESS_CASES = 6
CASE_SECONDS = 15   # a case still running after this long is a hang (the kernels are loaded before the first)
EXIT_CODES = {0, 1, 2, 3}
RESULT_CODES = {0, 1, 3}
MB = 1 << 20

TINY_TOML = "messages = 1\nmax_master_crashes = 0\nmax_master_power_losses = 0\n"
TINY_SET = ["--set", "messages=1", "--set", "max_master_crashes=0", "--set", "max_master_power_losses=0"]
BASELINE = ('[[configuration]]\nname = "tiny"\nproperties = ["replicas_agree", "master_recovers"]\n'
            '[configuration.set]\nmessages = 1\nmax_master_crashes = 0\nmax_master_power_losses = 0\n'
            '[configuration.expect]\nreplicas_agree = "holds"\nmaster_recovers = "unreached"\n')
INLINE_BASELINE = ('configuration = [{name = "tiny", properties = ["replicas_agree"], '
                   'set = {messages = 1, max_master_crashes = 0}}]\n')

HOSTILE_NUMBERS = ["nan", "inf", "-inf", "1e400", "0", "-1", str(2 ** 63), str(10 ** 30), "9" * 5000, "7" * MB]
HOSTILE_WORDS = ["", "x" * 300, "y" * MB, "DEFAULT", "nope", "\u2717\u00e9", "a b", "-"]
HOSTILE_MASTERS = ["", "spark://host:99999", "spark://h:0", "spark://a:7077,b:65536", "local[abc]", "localhost:7077",
                   "spark://" + "h" * MB + ":1", "local[0]"]


class Hung(BaseException):
    """A case ran longer than CASE_SECONDS."""


class Case:
    """One generated command line, in a directory of its own; ``inputs`` are the files it may read."""

    def __init__(self, rng: random.Random, root: Path, n: int) -> None:
        self.rng = rng
        self.dir = root / f"case{n}"
        self.dir.mkdir()
        self.inputs: list[Path] = []
        self.outputs: list[Path] = []
        self.args: list[str] = []
        self.hostile = False   # at least one hostile value in the command line
        self.rewritten: Path | None = None   # the baseline gate --update rewrites when it passes (exit 0)

    # -- inputs
    def input_file(self, name: str, text: str) -> str:
        """A path for an input option: the valid file, or now and then a hostile stand-in."""
        path = self.dir / name
        path.write_text(text, encoding="utf-8")
        self.inputs.append(path)
        kind = self.rng.choice(["valid"] * 6 + ["fifo", "dir", "/dev/null", "/dev/zero", "missing", "long", "empty",
                                                "link", "junk"])
        if kind != "valid":
            self.hostile = kind not in ("link",)
        if kind == "fifo":
            fifo = self.dir / f"{name}.fifo"
            os.mkfifo(fifo)
            return str(fifo)
        if kind == "dir":
            return str(self.dir)
        if kind in ("/dev/null", "/dev/zero"):
            return kind
        if kind == "missing":
            return str(self.dir / "missing" / name)
        if kind == "long":
            return str(self.dir / ("n" * 300))
        if kind == "empty":
            return ""
        if kind == "link":
            link = self.dir / f"link-{name}"
            link.symlink_to(path)
            return str(link)
        if kind == "junk":
            path.write_bytes(bytes(self.rng.randrange(256) for _ in range(40)))
        return str(path)

    # -- outputs
    def output(self, option: str, suffix: str, named_inputs: list[str]) -> None:
        """An output option: a fresh path, or a hostile one - an input again (several spellings), a long
        name, a directory, a missing directory, empty, standard output."""
        kind = self.rng.choice(["fresh"] * 5 + ["input", "input-dot", "input-symlink", "input-hardlink", "long",
                                                "dir", "missing-dir", "empty", "dash", "/dev/null"])
        regular = [p for p in named_inputs if p and os.path.isfile(p)]
        if kind.startswith("input") and not regular:
            kind = "long"
        if kind != "fresh":
            self.hostile = kind not in ("dash", "/dev/null")
        if kind == "fresh":
            path = str(self.dir / f"out{len(self.outputs)}{suffix}")
            self.outputs.append(Path(path))
        elif kind == "input":
            path = self.rng.choice(regular)
        elif kind == "input-dot":
            p = Path(self.rng.choice(regular))
            path = str(p.parent / "." / p.name)
        elif kind == "input-symlink":
            path = str(self.dir / f"alias{len(self.args)}{suffix}")
            os.symlink(os.path.realpath(self.rng.choice(regular)), path)
        elif kind == "input-hardlink":
            path = str(self.dir / f"hard{len(self.args)}{suffix}")
            os.link(os.path.realpath(self.rng.choice(regular)), path)
        elif kind == "long":
            path = str(self.dir / ("o" * 300 + suffix))
        elif kind == "dir":
            path = str(self.dir)
        elif kind == "missing-dir":
            path = str(self.dir / "nowhere" / f"x{suffix}")
        elif kind == "empty":
            path = ""
        elif kind == "dash":
            path = "-"
        else:
            path = "/dev/null"
        self.args += [option, path]

    def maybe(self, odds: float = 0.5) -> bool:
        return self.rng.random() < odds

    def value(self, option: str, good: list[str], bad: list[str], odds: float = 0.25) -> None:
        if self.maybe(odds):
            self.hostile = True
            self.args += [option, self.rng.choice(bad)]
        else:
            self.args += [option, self.rng.choice(good)]


def config_source(c: Case) -> list[str]:
    """--preset / --config / nothing, then a few --set."""
    config = None
    pick = c.rng.choice(["config", "config", "preset", "none"])
    if pick == "config":
        config = c.input_file("c.toml", TINY_TOML)
        c.args += ["--config", config]
    elif pick == "preset":
        c.value("--preset", ["default", "sync-master"], HOSTILE_WORDS, 0.3)
    if c.maybe(0.15):
        c.hostile = True
        c.args += ["--set", c.rng.choice(["", "messages=" + "9" * MB, "x" * MB + "=1", "messages=nan", "slaves=-1"])]
    if pick != "config":
        c.args += TINY_SET
    return [config] if config else []


def generate(c: Case) -> None:
    command = c.rng.choice(["check"] * 5 + ["simulate", "faults", "matrix", "gate", "gate", "replay", "bench",
                                            "list"])
    c.args = [command]
    if command == "check":
        inputs = config_source(c)
        c.args += ["--property", "replicas_agree", "--property", "master_recovers"]
        c.value("--max-states", ["400", "1000"], HOSTILE_NUMBERS, 0.15)
        if c.maybe(0.2):
            c.value("--max-seconds", ["30"], HOSTILE_NUMBERS, 0.6)
        if c.maybe(0.15):   # Spark, always with a value refused before Spark starts
            c.hostile = True
            c.args += ["--engine", "spark"]
            c.args += c.rng.choice([["--spark-master", c.rng.choice(HOSTILE_MASTERS)], ["--work-dir", ""],
                                    ["--partitions", c.rng.choice(["0", "-1", str(2 ** 63)])],
                                    ["--driver-level-limit", "-1"], ["--graph", str(c.dir / "g.dot")]])
        for option, suffix, odds in (("--json", ".json", 0.6), ("--report", ".md", 0.3), ("--graph", ".dot", 0.2)):
            if c.maybe(odds):
                c.output(option, suffix, inputs)
        if c.maybe(0.15):
            kind = c.rng.choice(["fresh", "long", "empty", "file"])
            c.hostile = kind != "fresh"
            path = {"fresh": c.dir / "itf", "long": c.dir / ("i" * 300), "empty": "",
                    "file": inputs[0] if inputs else c.dir}[kind]
            c.args += ["--itf", str(path)]
            if kind == "fresh":
                c.outputs.append(Path(path))
        c.args.append("--quiet")
    elif command == "simulate":
        inputs = config_source(c)
        c.value("--walks", ["3"], HOSTILE_NUMBERS + ["x"], 0.2)
        c.value("--depth", ["10"], HOSTILE_NUMBERS, 0.2)
        if c.maybe(0.6):
            c.output("--json", ".json", inputs)
        c.args.append("--quiet")
    elif command == "faults":
        inputs = config_source(c)
        c.args += ["--max-configs", "0", "--jobs", "1", "--threads", "1", "--grow", "none"]
        c.value("--max-states", ["400"], HOSTILE_NUMBERS, 0.3)
        for option, suffix in (("--json", ".json"), ("--report", ".md")):
            if c.maybe(0.5):
                c.output(option, suffix, inputs)
        c.args.append("--quiet")
    elif command == "matrix":
        for _ in range(c.rng.randrange(1, 3)):
            c.value("--preset", ["default", "sync-master"], HOSTILE_WORDS, 0.3)
        c.args += TINY_SET + ["--jobs", "1"]
        c.value("--max-states", ["300"], HOSTILE_NUMBERS, 0.2)
        if c.maybe(0.2):
            c.hostile = True
            c.args += ["--engine", "spark", "--spark-master", c.rng.choice(HOSTILE_MASTERS)]
        for option, suffix in (("--json", ".json"), ("--report", ".md")):
            if c.maybe(0.5):
                c.output(option, suffix, [])
        c.args.append("--quiet")
    elif command == "gate":
        update = c.maybe(0.4)
        text = INLINE_BASELINE if update and c.maybe(0.3) else BASELINE
        c.hostile = c.hostile or text is INLINE_BASELINE
        baseline = c.input_file("b.toml", text)
        c.args += ["--baseline", baseline]
        if update:
            c.args.append("--update")
            c.rewritten = c.dir / "b.toml"
        elif c.maybe(0.6):
            c.output("--junit", ".xml", [baseline])
        c.args.append("--quiet")
    elif command == "replay":
        c.args.append(c.input_file("r.json", c.rng.choice(['{"config": {}, "properties": []}', "[" * 5000, "{}"])))
        c.value("--max-states", ["300"], HOSTILE_NUMBERS, 0.3)
    elif command == "bench":   # never a real benchmark: every case has a value refused first
        c.hostile = True
        bad = c.rng.choice([["--timeout", c.rng.choice(["nan", "inf", "-inf", "0", "-3"])],
                            ["--json", c.rng.choice(["", str(c.dir / ("b" * 300)), str(c.dir)])],
                            ["--workers", c.rng.choice(["", "0", "x", "9" * MB])],
                            ["--threads", c.rng.choice(["", "0", "-1", "9" * 5000])]])
        c.args += ["--quick", "--no-spark", *bad]
    elif command == "list":
        if c.maybe(0.5):
            c.hostile = True
            c.args.append(c.rng.choice(["--" + "z" * MB, "extra"]))


def digest(paths: list[Path]) -> dict[str, str]:
    out = {}
    for p in paths:
        if p.is_file() and not p.is_symlink():
            out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def temporaries(*dirs: Path) -> list[str]:
    return [str(p) for d in dirs for p in d.rglob("*") if p.name.endswith(".rmqcheck-tmp") or p.name.startswith(
        ("rmqcheck-spark-", "rmqcheck-cluster-", "tmp"))]


def check(c: Case, code: int, stdout: str, stderr: str, before: dict[str, str], tmp: Path) -> None:
    where = (c.args[0], [a[:60] for a in c.args[1:]], code, stderr[-600:])
    assert code in EXIT_CODES, where
    assert "Traceback" not in stdout + stderr, where
    errors = [line for line in stderr.splitlines() if line.startswith("rmqcheck:")]
    assert all(len(line) < 300 for line in errors), where
    if code == 2:
        lines = stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("rmqcheck: error: "), where
    after = digest(c.inputs)
    if code == 0 and c.rewritten is not None:   # the one input a command may change: gate --update's baseline
        after.pop(str(c.rewritten), None)
        before = {k: v for k, v in before.items() if k != str(c.rewritten)}
    assert after == before, where     # every input byte for byte
    made = [p for p in c.outputs if p.exists()]
    if code not in RESULT_CODES:
        assert made == [], where
    assert temporaries(c.dir, tmp) == [], where


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """A temporary directory of this test's own, so anything a case leaves there is seen."""
    tmp = tmp_path / "tmpdir"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


@pytest.fixture
def no_spark_no_bench(monkeypatch):
    """No case may start Spark or a benchmark: each such case carries a value refused before."""
    def refuse(*a, **k):
        raise AssertionError("Spark or a benchmark started despite a hostile value")
    monkeypatch.setattr("rmqcheck.engines.sweep_runner",
                        lambda engine, *a, **k: refuse() if engine == "spark" else _sweep_runner(engine, *a, **k))
    monkeypatch.setattr("rmqcheck.bench.run_in_subprocess", refuse)


from rmqcheck.engines import sweep_runner as _sweep_runner   # noqa: E402


@pytest.fixture
def alarm():
    def hung(signum, frame):
        raise Hung(f"a case ran longer than {CASE_SECONDS} s")
    previous = signal.signal(signal.SIGALRM, hung)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


def run_cases(root, seed: int, count: int, generate, judge) -> tuple[dict, dict, list, int]:
    """Generate ``count`` cases (seeded) in ``root`` and run each in-process under the hang alarm; ``judge(case,
    result, inputs' digest before)`` raises on a wrong answer. Returns the exit codes counted, the exit codes
    per command, the failing cases (each listed: an exception out of invoke is a traceback) and how many cases
    had a hostile value."""
    assert invoke("check", *TINY_SET, "--max-states", "50", "--quiet").exit_code == 3   # load the kernels first
    rng = random.Random(seed)
    root.mkdir()
    codes: dict[int, int] = {}
    per_command: dict[str, set[int]] = {}
    failures: list[str] = []
    hostile = 0
    for n in range(count):
        c = Case(rng, root, n)
        generate(c)
        hostile += c.hostile
        before = digest(c.inputs)
        signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
        try:
            r = invoke(*c.args)
            signal.setitimer(signal.ITIMER_REAL, 0)
            judge(c, r, before)
        except (Exception, Hung) as exc:
            failures.append(f"case {n} {[a[:50] for a in c.args]}: {type(exc).__name__}: "
                            f"{' '.join(str(exc).split())[:400]}")
            continue
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        codes[r.exit_code] = codes.get(r.exit_code, 0) + 1
        per_command.setdefault(c.args[0], set()).add(r.exit_code)
    return codes, per_command, failures, hostile


@pytest.mark.timeout(600)
def test_hostile_inputs_across_every_command_in_process(tmp_path, private_tmp, no_spark_no_bench, alarm,
                                                         monkeypatch):
    monkeypatch.setattr("rmqcheck.matrix.sweep_runner", lambda engine, *a, **k: (_ for _ in ()).throw(
        AssertionError("Spark started")) if engine == "spark" else _sweep_runner(engine, *a, **k))
    monkeypatch.setattr("rmqcheck.faults.sweep_runner", lambda engine, *a, **k: _sweep_runner(engine, *a, **k))
    codes, per_command, failures, hostile = run_cases(
        tmp_path / "cases", SEED, CASES, generate,
        lambda c, r, before: check(c, r.exit_code, r.stdout, r.stderr, before, private_tmp))
    print(f"hostile fuzz: {CASES} cases ({hostile} with a hostile value), exit codes {dict(sorted(codes.items()))}, "
          f"by command {per_command}")
    assert not failures, f"{len(failures)} of {CASES} cases failed:\n" + "\n".join(failures[:25])
    assert hostile >= min(500, CASES * 5 // 8)
    # the generator reaches both refusals and real runs, on every command that runs
    assert codes.get(2, 0) > 0 and sum(codes.get(k, 0) for k in RESULT_CODES) > 0, codes
    for command in ("check", "simulate", "faults", "matrix", "gate"):
        assert per_command[command] & RESULT_CODES and 2 in per_command[command], per_command


PROCESS_ONLY = [
    # a pipe as an input: /dev/stdin (read once, could not be read again by gate --update)
    (["gate", "--baseline", "/dev/stdin", "--update"], BASELINE, {}),
    (["check", "--config", "/dev/stdin"], TINY_TOML, {}),
    (["replay", "/dev/stdin"], "{}", {}),
    # a console that cannot encode UTF-8, with a violation (its trace prints a mark it cannot encode)
    (["check", "--set", "messages=1", "--set", "max_master_crashes=0", "--property", "acked_message_never_lost",
      "--json", "{dir}/r.json"], None, {"PYTHONIOENCODING": "ascii"}),
    (["simulate", *TINY_SET, "--walks", "2", "--json", "{dir}/s.json"], None, {"PYTHONIOENCODING": "latin-1"}),
    (["check", "--preset", "", "--json", "{dir}/e.json"], None, {"PYTHONIOENCODING": "ascii"}),
]


def test_hostile_inputs_as_real_processes(tmp_path, private_tmp):
    assert len(PROCESS_ONLY) == PROCESS_CASES
    for n, (args, stdin, env) in enumerate(PROCESS_ONLY):
        d = tmp_path / f"p{n}"
        d.mkdir()
        c = Case(random.Random(SEED), tmp_path, 1000 + n)
        c.args = [a.replace("{dir}", str(d)) for a in args]
        c.outputs = [Path(a) for a in c.args if a.startswith(str(d))]
        e = dict(os.environ, **env)
        e.pop("COLUMNS", None)
        p = subprocess.run([sys.executable, "-m", "rmqcheck", *c.args], capture_output=True, text=True, timeout=120,
                           env=e, input=stdin if stdin is not None else "", cwd=d)
        check(c, p.returncode, p.stdout, p.stderr, {}, private_tmp)
        if stdin is not None:
            assert p.returncode == 2 and "a pipe (FIFO)" in p.stderr, p.stderr
        elif "--preset" in c.args:
            assert p.returncode == 2 and "'' is empty" in p.stderr, p.stderr
        else:   # the run and its file as on a UTF-8 console
            assert p.returncode in RESULT_CODES and all(o.exists() for o in c.outputs), p.stderr[-2000:]


# -- the operator's own files of both modes: broker, group and run files (issue 45, items 2, 5 and 11) ------
FILES_SEED = 45
FILES_CASES = int(os.environ.get("RMQCHECK_HOSTILE_FILE_CASES", "400"))
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SAMPLES = {"4.4": [EXAMPLES / "2m-2s-sync" / "broker-a.properties", EXAMPLES / "2m-2s-sync" / "broker-a-s.properties"],
           "controller": [EXAMPLES / "controller" / "quick-start" / "broker-n0.conf",
                          EXAMPLES / "controller" / "quick-start" / "broker-n1.conf"]}
CONTROLLER_FILE = EXAMPLES / "controller" / "controller-standalone.conf"
GROUP = "SubscriptionGroupConfig [groupName=g, brokerId=0, whichBrokerWhenConsumeSlowly=1]\n"
#: what a file's text may become: each a function of (text, rng) -> bytes
BROKER_MUTATIONS = {
    "valid": lambda t, r: t.encode(),
    "gzip": lambda t, r: __import__("gzip").compress(t.encode()),
    "elf": lambda t, r: b"\x7fELF\x02\x01\x01\x00" + bytes(56) + t.encode(),
    "random bytes": lambda t, r: bytes(r.randrange(256) for _ in range(200)),
    "passwd": lambda t, r: b"zqroot:x:0:0:zqroot:/root:/bin/bash\nzqbin:x:1:1::/:/sbin/nologin\n",
    "long key": lambda t, r: (t + "k" * 100_101 + "=1\n").encode(),
    "many keys": lambda t, r: (t + "".join(f"zqUnknown{i}=1\n" for i in range(500))).encode(),
    "fullwidth digit": lambda t, r: (t + r.choice(["inSyncReplicas=\uff12\n", "brokerId=\uff11\n",
                                                     "minInSyncReplicas=\uff11\n"])).encode("utf-8"),
    "trailing blank": lambda t, r: (t + r.choice(["allAckInSyncStateSet=true \n", "brokerRole=SLAVE \n",
                                                    "slaveReadEnable=false \n"])).encode(),
    "twice": lambda t, r: (t + "brokerName=other\n").encode(),
    "dledger": lambda t, r: (t + "enableDLegerCommitLog=true\n").encode(),
    "controller mode flipped": lambda t, r: (t.replace("enableControllerMode = true", "enableControllerMode = false")
                                             if "enableControllerMode" in t else t + "enableControllerMode=true\n"
                                             ).encode(),
    "bad escape": lambda t, r: (t + "brokerIP1=\\u00zz\n").encode(),
    "empty": lambda t, r: b"",
    "latin-1 and CRLF": lambda t, r: (t.replace("\n", "\r\n") + "namesrvAddr=h\xf4te:9876\r\n").encode("latin-1"),
    "continued line": lambda t, r: (t + "namesrvAddr=a:9876;\\\n   b:9876\\").encode(),
    "no newline, blanks": lambda t, r: ("  \t" + t.replace("\n", "\n \t ").rstrip()).encode(),
}
GROUP_MUTATIONS = {
    "valid": GROUP, "key=value": "brokerId=0\nwhichBrokerWhenConsumeSlowly=1\n", "two lines": GROUP + GROUP,
    "fullwidth": "brokerId=\uff10\n", "unknown key": "zqKey=1\n", "empty": "",
}


def _write_run_file(c: Case, mode: str, names: list[str]) -> str:
    """A run file of ``mode`` naming ``names`` (inside its directory), or now and then a hostile one."""
    kind = c.rng.choice(["valid"] * 4 + ["traversal", "absolute", "link out", "mode 5", "preset 5", "threads text",
                                         "broker_conf text", "unknown key", "mode elsewhere"])
    c.hostile = c.hostile or kind != "valid"
    listed = list(names)
    if kind == "traversal":
        listed.append("../" * 6 + "etc/shadow")
    elif kind == "absolute":
        listed.append("/etc/passwd")
    elif kind == "link out":
        link = c.dir / "out.conf"
        outside = c.dir.parent / f"outside{c.dir.name}.conf"
        outside.write_text("brokerRole=SLAVE\nbrokerId=1\nzqsecret=1\n")
        c.inputs.append(outside)
        link.symlink_to(outside)
        listed.append("out.conf")
    head = {"4.4": "", "controller": 'mode = "controller"\n'}[mode]
    knobs = "messages = 1\n" + ("max_master_crashes = 0\nmax_master_power_losses = 0\n" if mode == "4.4"
                                else "max_broker_crashes = 0\n")
    if kind == "mode 5":
        head = "mode = 5\n"
    elif kind == "preset 5":
        head += "preset = 5\n"
    elif kind == "mode elsewhere":
        head = 'mode = "4.4"\n' if mode == "controller" else 'mode = "controller"\n'
    run = ["[run]", "broker_conf = [" + ", ".join(f'"{n}"' for n in listed) + "]"]
    if kind == "threads text":
        run.append('threads = "1"')
    elif kind == "broker_conf text":
        run[1] = f'broker_conf = "{listed[0]}"'
    elif kind == "unknown key":
        run.append("zq_key = 1")
    path = c.dir / "run.toml"
    path.write_text(head + knobs + "\n".join(run) + "\n", encoding="utf-8")
    c.inputs.append(path)
    return str(path)


def generate_files(c: Case) -> None:
    """A command reading an operator's files of one mode, with hostile files, values and run files."""
    mode = c.rng.choice(["4.4", "controller"])
    names = []
    for i, sample in enumerate(SAMPLES[mode] + ([CONTROLLER_FILE] if mode == "controller" and c.maybe(0.2) else [])):
        kind = c.rng.choice(["valid"] * 30 + list(BROKER_MUTATIONS))
        c.hostile = c.hostile or kind != "valid"
        path = c.dir / f"b{i}{sample.suffix}"
        path.write_bytes(BROKER_MUTATIONS[kind](sample.read_text(), c.rng))
        c.inputs.append(path)
        names.append(path.name)
    command = c.rng.choice(["config", "config", "check", "check", "simulate"])
    c.args = [command]
    if c.maybe(0.35):
        c.args += ["--config", _write_run_file(c, mode, names)]
    else:
        for name in names:
            c.args += ["--broker-conf", str(c.dir / name)]
    if mode == "4.4" and c.maybe(0.3):
        kind = c.rng.choice(list(GROUP_MUTATIONS))
        c.hostile = c.hostile or kind != "valid"
        group = c.dir / "group.txt"
        group.write_text(GROUP_MUTATIONS[kind], encoding="utf-8")
        c.inputs.append(group)
        c.args += ["--group-config", str(group)]
    if c.maybe(0.3):
        c.hostile = True
        c.args += c.rng.choice([["--mode", "4.4"], ["--mode", "controller"], ["--preset", "controller"],
                                ["--preset", "sync-master"], ["--preset", "bench", "--preset", "default"]])
    if "--config" not in c.args and command != "config":
        c.args += ["--set", "messages=1"] + (["--set", "max_master_crashes=0", "--set", "max_master_power_losses=0"]
                                             if mode == "4.4" else ["--set", "max_broker_crashes=0"])
    if c.maybe(0.25):
        c.hostile = True
        c.args += ["--set", c.rng.choice(["messages=\uff11", "messages= 1", "slaves=-0", "allAckInSyncStateSet=true",
                                          "brokerRole=SYNC_MASTER", "inSyncReplicas=2", "messages=1_0"])]
    if command == "check":
        c.args += ["--max-states", "400", "--quiet", "--traces", "none"]
        if c.maybe(0.5):
            c.output("--json", ".json", [str(p) for p in c.inputs])
    elif command == "simulate":
        c.args += ["--walks", "2", "--depth", "5", "--quiet"]


@pytest.mark.timeout(600)
def test_hostile_broker_group_and_run_files_of_both_modes(tmp_path, private_tmp, no_spark_no_bench, alarm):
    """Every case: a documented exit code, no traceback, one error line for bad input (after at most the
    not-modelled notice), nothing of a file outside the run file's directory echoed, every input unchanged."""
    def judge(c, r, before):
        notices = [line for line in r.stderr.splitlines() if line.startswith("rmqcheck: not modelled")]
        assert all(len(line) < 1200 for line in notices), [len(x) for x in notices]
        stderr = "\n".join(line for line in r.stderr.splitlines() if line not in notices)
        check(c, r.exit_code, r.stdout, stderr, before, private_tmp)
        assert "zqsecret" not in r.stdout + r.stderr and "zqroot" not in r.stdout + r.stderr
    codes, _, failures, hostile = run_cases(tmp_path / "files", FILES_SEED, FILES_CASES, generate_files, judge)
    print(f"hostile files: {FILES_CASES} cases ({hostile} with a hostile file or value), exit codes "
          f"{dict(sorted(codes.items()))}")
    assert not failures, f"{len(failures)} of {FILES_CASES} cases failed:\n" + "\n".join(failures[:25])
    assert hostile >= FILES_CASES // 2
    assert codes.get(2, 0) > 0 and codes.get(0, 0) > 0 and sum(codes.get(k, 0) for k in RESULT_CODES) > 0, codes
