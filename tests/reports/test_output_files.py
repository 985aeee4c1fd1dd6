"""Output files as a set: all written or none, symbolic links written through, devices and ``-`` written
directly, no temporary file left behind, stale temporaries of a killed run removed on the next check."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from reports import files as F
from reports.files import OutputPathError, OutputSet, check_writable, remove_stale_temps


def temps(directory) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.endswith(F.TEMP_SUFFIX))


def test_a_set_is_written_whole(tmp_path):
    out = OutputSet()
    out.add(tmp_path / "a.json", "A")
    out.add(tmp_path / "b.md", "B")
    out.write()
    assert (tmp_path / "a.json").read_text() == "A" and (tmp_path / "b.md").read_text() == "B"
    assert temps(tmp_path) == []


def test_a_failure_in_any_file_writes_none_and_leaves_no_temp(tmp_path, monkeypatch):
    (tmp_path / "a.json").write_text("old A")
    out = OutputSet()
    out.add(tmp_path / "a.json", "new A")
    out.add(tmp_path / "b.md", "B")
    out.add(tmp_path / "c.dot", "C")
    real = F._stage
    calls = []

    def stage(path, text):
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(path, text)

    monkeypatch.setattr(F, "_stage", stage)
    with pytest.raises(OutputPathError, match="No space left on device.*none of the output files"):
        out.write()
    assert (tmp_path / "a.json").read_text() == "old A"
    assert not (tmp_path / "b.md").exists() and not (tmp_path / "c.dot").exists()
    assert temps(tmp_path) == []


def test_an_interruption_while_writing_leaves_no_temp(tmp_path, monkeypatch):
    out = OutputSet()
    out.add(tmp_path / "a.json", "A")
    out.add(tmp_path / "b.md", "B")
    real = os.replace

    def replace(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(F.os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        out.write()
    monkeypatch.setattr(F.os, "replace", real)
    assert temps(tmp_path) == [] and not (tmp_path / "a.json").exists()


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path):
    target = tmp_path / "real" / "result.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    check_writable(link, "--json")
    F.write_text_atomic(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new"
    assert temps(tmp_path) == [] and temps(target.parent) == []


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "made.json")
    F.write_text_atomic(link, "x")
    assert link.is_symlink() and (tmp_path / "made.json").read_text() == "x"


def test_a_character_device_is_written_directly(tmp_path):
    check_writable("/dev/null", "--json")
    F.write_text_atomic("/dev/null", "discarded")   # a rename over /dev/null would need root and break it
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_device_is_one_error(tmp_path):
    with pytest.raises(OutputPathError, match="No space left on device"):
        F.write_text_atomic("/dev/full", "x" * 100_000)


def test_dash_is_standard_output_only_where_allowed(capsys):
    assert str(check_writable("-", "--json", allow_stdout=True)) == "-"
    with pytest.raises(OutputPathError, match="standard output is only available for --json"):
        check_writable("-", "--report")
    F.write_text_atomic("-", '{"a": 1}\n')
    assert capsys.readouterr().out == '{"a": 1}\n'


def test_stale_temps_of_a_dead_writer_are_removed_and_live_ones_kept(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    stale = tmp_path / f".r.json.{dead}.abc123{F.TEMP_SUFFIX}"
    live = tmp_path / f".r.json.{os.getppid()}.def456{F.TEMP_SUFFIX}"
    other = tmp_path / f".other.json.{dead}.x{F.TEMP_SUFFIX}"
    for p in (stale, live, other):
        p.write_text("partial")
    check_writable(tmp_path / "r.json", "--json")
    assert not stale.exists() and live.exists() and other.exists()
    assert remove_stale_temps(tmp_path / "other.json") == [other]


def test_disk_full_from_a_file_size_limit_is_one_line_and_no_file(tmp_path):
    """RLIMIT_FSIZE makes a write past it fail with EFBIG (Python ignores SIGXFSZ): the same path as a
    full disk, in a real process."""
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000));"
            "from reports.files import OutputSet, OutputPathError;"
            "s = OutputSet(); s.add(sys.argv[1], 'a'); s.add(sys.argv[2], 'b' * 5000);"
            "\ntry:\n s.write()\nexcept OutputPathError as e:\n print(e); sys.exit(2)")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.json"), str(tmp_path / "b.html")],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert "cannot write" in r.stdout and "Traceback" not in r.stderr
    assert os.listdir(tmp_path) == []
