"""``check --compact`` / ``--exact`` and ``bench --compact``: the compact visited set from the command line
(explore/compact.py), the same answer as the exact store, its collision probability and notes in the result."""
from __future__ import annotations

import json

from cli_driver import SMALL, TINY, assert_bad_input, invoke

from rmqcheck.bench import plan

SAFETY = tuple(a for p in ("acked_message_never_lost", "committed_offset_never_regresses", "message_consumed",
                           "slave_serves_pull") for a in ("--property", p))
#: what the process measures, not the model; the visited set's own fields are compared apart
MEASURED = ("seconds", "states_per_second", "peak_rss_bytes", "bytes_per_state", "level_seconds")
VISITED = ("visited", "visited_note", "exact", "collision_probability", "disk_bytes")


def answer(path, visited: dict) -> dict:
    data = json.loads(path.read_text())
    data.pop("reproduce")
    for key in MEASURED:
        data["stats"].pop(key, None)
    for key in VISITED:
        visited[key] = data["stats"].pop(key, None)
    return data


def test_compact_and_exact_give_the_same_json_answer(tmp_path):
    runs, visited = {}, {}
    for mode in ("--exact", "--compact"):
        out = tmp_path / f"{mode[2:]}.json"
        r = invoke("check", *SMALL, *SAFETY, mode, "--threads", "1", "--quiet", "--json", str(out))
        assert r.exit_code == 1, r.output   # committed_offset_never_regresses is violated here
        visited[mode] = {}
        runs[mode] = answer(out, visited[mode])
    assert runs["--exact"] == runs["--compact"]
    assert visited["--exact"]["visited"] == "exact" and visited["--exact"]["collision_probability"] == 0
    assert visited["--compact"]["visited"] == "compact" and visited["--compact"]["visited_note"] is None
    assert visited["--compact"]["exact"] is True   # one-word states: the fingerprint is a bijection
    # the compact run's parent links went to disk: 6 bytes a state
    assert visited["--exact"]["disk_bytes"] == 0
    # the links (6 bytes a state) and the level files (8 bytes a word, and a pad each: explore/compact_dir.py)
    n, levels = runs["--compact"]["stats"]["distinct_states"], len(runs["--compact"]["stats"]["levels"])
    assert 14 * n <= visited["--compact"]["disk_bytes"] < 14 * n + (1 << 16) * levels


def test_compact_with_the_default_properties_gives_the_exact_answer_and_counts_the_graph_on_disk(tmp_path):
    # the graph and eventually properties are decided over the graph written to disk (explore/compact_graph.py)
    runs, visited = {}, {}
    for mode in ("--exact", "--compact"):
        out = tmp_path / f"{mode[2:]}.json"
        r = invoke("check", *TINY, mode, "--threads", "1", "--quiet", "--json", str(out))
        visited[mode] = {}
        runs[mode] = answer(out, visited[mode])
    assert runs["--exact"] == runs["--compact"]
    assert visited["--compact"]["visited"] == "compact" and visited["--compact"]["visited_note"] is None
    # the links (6 bytes a state) and the graph: per state its transitions' count, fingerprint, goal bits, P / Q
    # masks and row start; per transition its successor's fingerprint, action and index; and the level files
    # (one word a state here, each file starting on a page boundary: docs/engines.md, Levels on disk)
    stats = runs["--compact"]["stats"]
    states, transitions = stats["distinct_states"], stats["transitions"]
    levels = visited["--compact"]["disk_bytes"] - ((6 + 2 + 8 + 1 + 6 + 8) * states + 8 + 14 * transitions)
    assert 8 * states <= levels < 8 * states + (1 << 16) * len(stats["levels"])


def test_compact_on_spark_or_with_a_graph_export_is_bad_input(tmp_path):
    assert_bad_input(invoke("check", *TINY, "--compact", "--engine", "spark"), "--compact")
    assert_bad_input(invoke("check", *TINY, "--compact", "--graph", str(tmp_path / "g.dot")), "--compact")


def test_bench_compact_runs_the_local_benchmarks_compact():
    specs = plan(quick=True, spark=True, workers=(1,), threads=(1,), compact=True)
    assert [s.get("visited") for s in specs if s["kind"] != "spark"] == ["compact"] * 3
    assert all("visited" not in s for s in plan(quick=True, spark=False, workers=(1,)))
