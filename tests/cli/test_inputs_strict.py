"""Issue 45, items 2 and 5: only what was meant is read, and values are read strictly.

Item 2: a broker file is read only if it is text in Java properties form with at least one broker setting
key (``/etc/passwd``, a gzip or an ELF file: exit 2 naming the file); the files a run file or a baseline
names resolve inside that file's directory (a run file's ``broker_conf = ["../../../../etc/shadow"]`` is
refused); the "not modelled" notice cuts what it echoes. Item 5: ASCII digits only, no blanks, a TOML value
of the wrong type, a repeated ``--preset``, a second group line and empty list items are exit 2.
"""
from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path

import pytest

from cli_driver import TINY, assert_bad_input, invoke

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MASTER = "brokerName=broker-a\nbrokerId=0\nbrokerRole=SYNC_MASTER\n"
SLAVE = "brokerName=broker-a\nbrokerId=1\nbrokerRole=SLAVE\n"
#: a passwd file whose user names no path or message holds
PASSWD = ("zqroot:x:0:0:zqroot:/root:/bin/bash\nzqdaemon:x:1:1:zqdaemon:/usr/sbin:/usr/sbin/nologin\n"
          "zqwww:x:33:33:zqwww:/var/www:/usr/sbin/nologin\n")


# -- item 2: what a broker file is -------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["passwd", "gzip", "elf", "empty", "comments only", "nul"])
def test_a_file_that_is_no_broker_configuration_is_refused_naming_it(tmp_path, no_exploration, kind):
    path = tmp_path / f"{kind.replace(' ', '-')}.conf"
    if kind == "passwd":
        path.write_text(PASSWD)
    elif kind == "gzip":
        path.write_bytes(gzip.compress(MASTER.encode()))
    elif kind == "elf":
        path.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(56) + MASTER.encode())
    elif kind == "empty":
        path.write_text("")
    elif kind == "comments only":
        path.write_text("# brokerRole=SYNC_MASTER\n! nothing else\n")
    else:
        path.write_bytes(MASTER.encode() + b"\x00")
    for command in (("config",), ("check", *TINY), ("simulate", *TINY)):
        r = invoke(*command, "--broker-conf", str(path))
        assert_bad_input(r, "--broker-conf", f"{path.name}'")
        assert "zq" not in r.stderr   # nothing of the file is echoed


def test_etc_passwd_itself_is_no_broker_configuration(no_exploration):
    if not os.path.isfile("/etc/passwd"):
        pytest.skip("no /etc/passwd")
    assert_bad_input(invoke("config", "--broker-conf", "/etc/passwd"), "'/etc/passwd'", "not a RocketMQ broker")


def test_a_binary_group_file_is_refused(tmp_path, no_exploration):
    (tmp_path / "m.conf").write_text(MASTER)
    group = tmp_path / "group.gz"
    group.write_bytes(gzip.compress(b"brokerId=0\n"))
    assert_bad_input(invoke("config", "--broker-conf", str(tmp_path / "m.conf"), "--group-config", str(group)),
                     "--group-config", "group.gz'", "not a text file")


@pytest.mark.parametrize("table", [
    'broker_conf = ["../../../../etc/shadow"]',
    'broker_conf = ["m.conf", "../outside.conf"]',
    'broker_conf = ["/etc/passwd"]',
    'broker_conf = ["link.conf"]',            # a symbolic link pointing out of the directory
    'broker_conf = ["m.conf"]\ngroup_config = "../group.txt"',
    'broker_conf = ["m.conf"]\ngroup_config = "/etc/passwd"',
])
def test_a_run_file_names_files_inside_its_own_directory_only(tmp_path, no_exploration, table):
    outside = tmp_path / "outside.conf"
    outside.write_text(SLAVE + "zqsecret=1\n")
    (tmp_path / "group.txt").write_text("brokerId=0\n")
    here = tmp_path / "a" / "b" / "c" / "d"
    here.mkdir(parents=True)
    (here / "m.conf").write_text(MASTER)
    (here / "link.conf").symlink_to(outside)
    run = here / "run.toml"
    run.write_text(f"messages = 1\n[run]\n{table}\n")
    for command in ("config", "check"):
        r = invoke(command, "--config", str(run))
        assert_bad_input(r, "run.toml'", "directory")
        assert "zqsecret" not in r.stderr


def test_a_run_file_reads_files_inside_its_directory_and_the_command_line_any(tmp_path):
    here = tmp_path / "runs"
    (here / "conf").mkdir(parents=True)
    (here / "conf" / "m.conf").write_text(MASTER)
    (tmp_path / "s.conf").write_text(SLAVE)
    run = here / "run.toml"
    run.write_text('messages = 1\n[run]\nbroker_conf = ["conf/m.conf"]\n')
    assert "slaves = 0   # 0 SLAVE files" in invoke("config", "--config", str(run)).stdout
    # files given on the command line win over the run file's, wherever they are
    r = invoke("config", "--config", str(run), "--broker-conf", str(here / "conf" / "m.conf"),
               "--broker-conf", str(tmp_path / "s.conf"))
    assert r.exit_code == 0 and "slaves = 1   # 1 SLAVE file" in r.stdout, r.stderr


@pytest.mark.parametrize("config", ["../prod.toml", "/etc/passwd", "runs/../../prod.toml"])
def test_a_baseline_names_run_files_inside_its_own_directory_only(tmp_path, no_exploration, config):
    (tmp_path / "prod.toml").write_text("messages = 1\n")
    here = tmp_path / "ci"
    (here / "runs").mkdir(parents=True)
    baseline = here / "baseline.toml"
    baseline.write_text(f'[[configuration]]\nname = "prod"\nconfig = "{config}"\n')
    assert_bad_input(invoke("gate", "--baseline", str(baseline), "--update"), "configuration prod", "directory")


def test_the_not_modelled_notice_cuts_long_and_many_keys(tmp_path):
    long_key = "k" * 100_101
    master = tmp_path / "m.conf"
    master.write_text(MASTER + f"{long_key}=1\n" + "".join(f"unknownKey{i}=1\n" for i in range(24)))
    r = invoke("check", "--broker-conf", str(master), *TINY, "--quiet", "--max-states", "10")
    assert r.exit_code == 3, r.stderr
    (notice,) = [line for line in r.stderr.splitlines() if "not modelled" in line]
    assert len(notice) < 1200, len(notice)
    assert "k" * 77 + "..." in notice and "k" * 81 not in notice
    assert notice.endswith("and 15 more")
    saved = invoke("config", "--broker-conf", str(master)).stdout
    assert max(len(line) for line in saved.splitlines()) < 1200


# -- item 5: strict values ----------------------------------------------------------------------------------
@pytest.mark.parametrize("item, words", [
    ("messages=\uff11", ("'messages'", "not allowed")),
    ("messages= 1", ("--set", "blanks")),
    ("slaves=-0", ("'slaves'", "'-0'")),
])
def test_a_set_value_must_be_plain(no_exploration, item, words):
    assert_bad_input(invoke("check", "--set", item), *words)


def test_a_toml_mode_of_the_wrong_type_is_bad_input(tmp_path, no_exploration):
    path = tmp_path / "c.toml"
    path.write_text("mode = 5\nmessages = 1\n")
    assert_bad_input(invoke("check", "--config", str(path)), "mode 5", "not a mode name")
    path.write_text('mode = "controller"\npreset = 5\nmessages = 1\n')
    assert_bad_input(invoke("check", "--config", str(path)), "preset 5", "not a preset name")


@pytest.mark.parametrize("args", [("--preset", "bench", "--preset", "default"),
                                  ("--preset", "default", "--preset", "default"),
                                  ("--mode", "4.4", "--mode", "controller")])
def test_an_option_that_names_one_thing_given_twice_is_bad_input(no_exploration, args):
    assert_bad_input(invoke("check", *args), args[0], "given 2 times")


def test_a_group_file_with_two_group_lines_is_bad_input(tmp_path, no_exploration):
    for name, text in (("m.conf", MASTER), ("s.conf", SLAVE)):
        (tmp_path / name).write_text(text)
    line = "SubscriptionGroupConfig [groupName=g, brokerId={}, whichBrokerWhenConsumeSlowly=1]\n"
    group = tmp_path / "group.txt"
    group.write_text(line.format(0) + line.format(1))
    assert_bad_input(invoke("check", "--broker-conf", str(tmp_path / "m.conf"), "--broker-conf",
                            str(tmp_path / "s.conf"), "--group-config", str(group), *TINY),
                     "--group-config", "group.txt'", "2 'SubscriptionGroupConfig [...]' lines")


@pytest.mark.parametrize("args", [("--no-spark", "--threads", "1,,2"), ("--workers", "1,,2"),
                                  ("--no-spark", "--threads", "1,"), ("--workers", ",1"),
                                  ("--no-spark", "--threads", "\uff11")])
def test_bench_lists_have_no_empty_item(monkeypatch, args):
    monkeypatch.setattr("rmqcheck.bench.run_in_subprocess",
                        lambda *a, **k: (_ for _ in ()).throw(AssertionError("a benchmark started")))
    assert_bad_input(invoke("bench", "--quick", *args), args[-2])


def test_the_sample_run_file_still_reads_its_broker_files(tmp_path):
    """examples/run.toml names its files inside examples/: copied elsewhere with them, it reads the same."""
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    r = invoke("config", "--config", str(tmp_path / "examples" / "run.toml"))
    assert r.exit_code == 0, r.stderr
    assert 'broker_role = "SYNC_MASTER"   # brokerRole in broker-a.properties' in r.stdout
