"""An output path that names an input of the same command (``--config``, ``--baseline``) is bad input
before anything runs, and the input keeps every byte (issue 38, item 3: ``check --config c.toml --json
c.toml`` overwrote the config, ``gate --baseline b.toml --junit b.toml`` replaced the baseline with JUnit
XML and exited 0). Files are compared as files, so a symbolic link, a hard link and ``./x`` are caught."""
from __future__ import annotations

import os

import pytest

from cli_driver import TINY, assert_bad_input, invoke

CONFIG = b"messages = 1\nmax_master_crashes = 0\nmax_master_power_losses = 0\n"
BASELINE = (b'[[configuration]]\nname = "tiny"\nproperties = ["replicas_agree"]\n[configuration.set]\nmessages = 1\n'
            b'max_master_crashes = 0\n[configuration.expect]\nreplicas_agree = "holds"\n')


def same(path):
    return lambda tmp: path


def symlink(name, to):
    def make(tmp):
        os.symlink(tmp / to, tmp / name)
        return name
    return make


def hardlink(name, to):
    def make(tmp):
        os.link(tmp / to, tmp / name)
        return name
    return make


@pytest.mark.parametrize("command, input_option, input_name, output_option, make_output", [
    ("check", "--config", "c.toml", "--json", same("c.toml")),
    ("check", "--config", "c.toml", "--json", same("./c.toml")),
    ("check", "--config", "c.toml", "--json", same("sub/../c.toml")),
    ("check", "--config", "c.toml", "--json", symlink("latest.json", "c.toml")),
    ("check", "--config", "c.toml", "--json", hardlink("hard.json", "c.toml")),
    ("check", "--config", "c.md", "--report", same("c.md")),
    ("check", "--config", "c.html", "--report", symlink("r.html", "c.html")),
    ("check", "--config", "c.dot", "--graph", same("./c.dot")),
    ("simulate", "--config", "c.toml", "--json", same("c.toml")),
    ("faults", "--config", "c.toml", "--json", hardlink("f.json", "c.toml")),
    ("faults", "--config", "c.md", "--report", same("c.md")),
    ("gate", "--baseline", "b.toml", "--junit", same("b.toml")),
    ("gate", "--baseline", "b.toml", "--junit", symlink("junit.xml", "b.toml")),
])
def test_an_output_naming_an_input_is_refused_and_the_input_is_kept(tmp_path, monkeypatch, no_exploration, command,
                                                                     input_option, input_name, output_option,
                                                                     make_output):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    text = BASELINE if command == "gate" else CONFIG
    (tmp_path / input_name).write_bytes(text)
    output = make_output(tmp_path)
    before = sorted(os.listdir(tmp_path))
    args = [command, input_option, input_name, output_option, output]
    if command in ("check", "simulate", "faults"):
        args += ["--quiet"]
    assert_bad_input(invoke(*args), output_option, repr(output), "never replaces an input")
    assert (tmp_path / input_name).read_bytes() == text
    assert sorted(os.listdir(tmp_path)) == before   # no temporary file left either


def test_an_itf_directory_holding_the_config_is_refused(tmp_path, no_exploration):
    (tmp_path / "itf").mkdir()
    config = tmp_path / "itf" / "replicas_agree.itf.json"
    config.write_bytes(CONFIG)
    assert_bad_input(invoke("check", "--config", str(config), "--itf", str(tmp_path / "itf")), "--itf",
                     "never replaces an input")
    assert config.read_bytes() == CONFIG


def test_outputs_beside_the_inputs_are_still_written(tmp_path):
    (tmp_path / "c.toml").write_bytes(CONFIG)
    r = invoke("check", "--config", str(tmp_path / "c.toml"), "--property", "replicas_agree",
               "--json", str(tmp_path / "c.json"), "--quiet")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "c.toml").read_bytes() == CONFIG and (tmp_path / "c.json").exists()


def test_gate_update_still_rewrites_its_own_baseline(tmp_path):
    path = tmp_path / "b.toml"
    path.write_bytes(BASELINE.replace(b'"holds"', b'"violated"'))
    r = invoke("gate", "--baseline", str(path), "--update", "--quiet")
    assert r.exit_code == 0, r.output
    assert b'replicas_agree = "holds"' in path.read_bytes()


@pytest.mark.parametrize("inside", ["meta.json", "sub/r.json", "."])
def test_an_output_inside_the_spark_work_dir_is_refused(tmp_path, no_exploration, inside):
    """``--json W/meta.json`` would replace the work directory's own record (the next --resume then refuses
    it as damaged): any output inside --work-dir is refused before Spark starts."""
    work = tmp_path / "w"
    (work / "sub").mkdir(parents=True)
    (work / "meta.json").write_text("{}")
    target = str(work / inside) if inside != "." else str(work)
    r = invoke("check", "--engine", "spark", "--work-dir", str(work), "--json", target, "--quiet")
    assert_bad_input(r, "--json", "inside --work-dir")
    assert (work / "meta.json").read_text() == "{}"


MASTER = b"brokerId=0\nbrokerRole=SYNC_MASTER\n"
SLAVE = b"brokerId=1\nbrokerRole=SLAVE\n"
GROUP = b"brokerId=0\nwhichBrokerWhenConsumeSlowly=0\n"


@pytest.mark.parametrize("command, extra, output_option, output", [
    ("check", ["--broker-conf", "m.conf"], "--json", "m.conf"),
    ("check", ["--broker-conf", "m.conf", "--broker-conf", "s.conf"], "--json", "s.conf"),
    ("check", ["--broker-conf", "m.conf", "--group-config", "g.md"], "--report", "g.md"),
    ("check", ["--broker-conf", "m.dot"], "--graph", "./sub/../m.dot"),
    ("simulate", ["--broker-conf", "m.conf"], "--json", "m.conf"),
    ("faults", ["--broker-conf", "m.conf", "--broker-conf", "s.conf"], "--json", "s.conf"),
])
def test_an_output_naming_a_broker_or_group_file_is_refused(tmp_path, monkeypatch, no_exploration, command, extra,
                                                            output_option, output):
    """Issue 45, item 1: ``check --broker-conf m.conf --json m.conf`` replaced m.conf with the JSON; the same
    with a slave's file, ``--group-config`` and ``simulate``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    files = {"m.conf": MASTER, "m.dot": MASTER, "s.conf": SLAVE, "g.md": GROUP}
    for name, text in files.items():
        (tmp_path / name).write_bytes(text)
    before = sorted(os.listdir(tmp_path))
    r = invoke(command, *extra, "--set", "messages=1", output_option, output, "--quiet")
    assert_bad_input(r, output_option, repr(output), "never replaces an input")
    assert {name: (tmp_path / name).read_bytes() for name in files} == files
    assert sorted(os.listdir(tmp_path)) == before


def test_a_broker_file_named_by_a_run_file_is_an_input_too(tmp_path, monkeypatch, no_exploration):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.conf").write_bytes(MASTER)
    (tmp_path / "run.toml").write_text('messages = 1\n[run]\nbroker_conf = ["m.conf"]\n')
    assert_bad_input(invoke("check", "--config", "run.toml", "--json", "m.conf", "--quiet"), "--json",
                     "never replaces an input")
    assert (tmp_path / "m.conf").read_bytes() == MASTER


@pytest.mark.parametrize("command, option, name", [
    ("check", "--json", "o.json"), ("check", "--report", "o.html"), ("check", "--graph", "o.dot"),
    ("simulate", "--json", "o.json"), ("faults", "--report", "o.md"),
])
def test_a_self_loop_link_as_an_output_is_refused_and_stays_a_link(tmp_path, monkeypatch, no_exploration, command,
                                                                   option, name):
    """``ln -s o.json o.json`` given as an output became a regular file."""
    monkeypatch.chdir(tmp_path)
    os.symlink(name, name)
    r = invoke(command, *TINY, option, name, "--quiet")
    assert_bad_input(r, option, repr(name), "loops back on itself")
    assert os.path.islink(name) and os.readlink(name) == name
