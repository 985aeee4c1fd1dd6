"""The Spark engine's work directory: the BFS levels, the visited runs and ``meta.json``.

``levels/level=N/part-Q.parquet`` (Hive-style, so Spark reads every level at once with a ``level`` column)
holds the states of level N owned by partition Q, sorted by key: key words ``k0..``, parent key words
``p0..`` (zeros for initial states), the ``action`` index that reached it from that parent (-1 for initial
states) and ``sbits``, the bits its checks raised. ``visited/part-Q/run-A-B.npy`` holds the keys of levels
A..B owned by partition Q, sorted: the runs the level job searches (:mod:`spark_explore.level_job`).
``meta.json`` is rewritten atomically after every completed level; it is what ``--resume`` continues
from. Counterexamples are rebuilt by walking parents back level by level in the level tables, then
replaying forward through the model.

Integrity: ``meta.json`` records, per level and per visited run, each file's name, size, row count and
BLAKE2b digest, and carries a digest of its own content. ``--resume`` verifies all of it before any work, so a deleted or
damaged part file, or a hand-edited ``meta.json``, is refused with the file named, never turned into a
verdict over a partial space. The directory's ownership (marker file, one run at a time) is
:mod:`spark_explore.ownership`'s.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import layout
from .errors import SparkUnavailable
from .layout import run_levels
from .ownership import WorkDirLock, claim

FORMAT = 4
HASH_CHUNK = 1 << 20


@dataclass
class KeyWitness:
    """A witness named by keys: a state of ``level`` (``action`` -1), or the transition ``action`` from it."""

    level: int
    key: tuple[int, ...]
    action: int = -1


@dataclass
class LevelFile:
    """One Parquet file of a level, as written: what ``--resume`` checks before trusting it."""

    name: str
    bytes: int
    rows: int
    blake2b: str


@dataclass
class LevelInfo:
    size: int
    engine: str            # "driver" or "cluster"
    seconds: float
    leaves: int = 0        # states of this level left unexpanded by the leaf rule
    files: list[LevelFile] = field(default_factory=list)


@dataclass
class Meta:
    digest: str
    words: int
    levels: list[LevelInfo] = field(default_factory=list)
    transitions: int = 0
    unexpanded: int = 0
    expanded_levels: int = 0       # levels 0..expanded_levels-1 have been expanded
    witnesses: dict[str, KeyWitness] = field(default_factory=dict)
    finished: bool = False
    tally: list[int] = field(default_factory=list)   # coverage tally of the expanded levels (explore.step)
    terminal: KeyWitness | None = None               # the canonical terminal state, once a level has one
    partitions: int = 1                              # owner partitions of the levels and visited runs
    runs: list[list[LevelFile]] = field(default_factory=list)   # per partition, its visited runs
    edges: list[list[LevelFile]] = field(default_factory=list)  # per partition, its transitions per level
    # the exchange the next step files (``shuffle/level=N/``): every file the expansion of level
    # ``exchange_level`` wrote, as its tasks reported them; the reading tasks get this list, never a listing
    exchange_level: int = -1
    exchange: list[LevelFile] = field(default_factory=list)
    format: int = FORMAT

    def to_json(self) -> str:
        d = _plain(self)
        d["checksum"] = _content_digest(d)
        return json.dumps(d, separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> "Meta":
        """Parse and check ``meta.json``; ValueError says what is wrong (bad JSON, edited, inconsistent)."""
        d = json.loads(text)
        if not isinstance(d, dict):
            raise ValueError("not a JSON object")
        if d.get("format") != FORMAT:
            raise ValueError(f"format {d.get('format')!r}: written by another rmqcheck version")
        checksum = d.pop("checksum", None)
        if checksum != _content_digest(d):
            raise ValueError("its content does not match its checksum (edited or damaged)")
        d["levels"] = [LevelInfo(**{**x, "files": [LevelFile(**f) for f in x.get("files", [])]})
                       for x in d["levels"]]
        d["witnesses"] = {k: KeyWitness(v["level"], tuple(v["key"]), v["action"]) for k, v in d["witnesses"].items()}
        d["runs"] = [[LevelFile(**f) for f in part] for part in d.get("runs", [])]
        d["edges"] = [[LevelFile(**f) for f in part] for part in d.get("edges", [])]
        d["exchange"] = [LevelFile(**f) for f in d.get("exchange", [])]
        t = d.get("terminal")
        d["terminal"] = KeyWitness(t["level"], tuple(t["key"]), t["action"]) if t is not None else None
        meta = Meta(**d)
        meta.check_consistent()
        return meta

    def check_consistent(self) -> None:
        """The invariants every saved meta satisfies (levels 0..expanded_levels stored, witnesses in them)."""
        if len(self.levels) != self.expanded_levels + 1:
            raise ValueError(f"{len(self.levels)} levels recorded but expanded_levels is {self.expanded_levels}")
        for name, w in self.witnesses.items():
            if not 0 <= w.level < len(self.levels) or len(w.key) != self.words:
                raise ValueError(f"witness of {name} names level {w.level}, outside the recorded levels")
        if self.terminal is not None and (not 0 <= self.terminal.level < len(self.levels)
                                          or len(self.terminal.key) != self.words):
            raise ValueError(f"the terminal state names level {self.terminal.level}, outside the recorded levels")
        if self.runs and len(self.runs) != self.partitions:
            raise ValueError(f"{len(self.runs)} lists of visited runs for {self.partitions} partitions")
        for q, runs in enumerate(self.runs):
            covered = [run_levels(r.name) for r in runs]
            if any(a > b for a, b in covered) or any(b[0] <= a[1] for a, b in zip(covered, covered[1:])) \
                    or (covered and covered[-1][1] >= len(self.levels)):
                raise ValueError(f"partition {q}: its visited runs {[r.name for r in runs]} do not cover the levels")
        for i, li in enumerate(self.levels):
            if li.size < 0 or sum(f.rows for f in li.files) != li.size:
                raise ValueError(f"level {i}: its files hold {sum(f.rows for f in li.files)} rows, "
                                 f"not the {li.size} states recorded")


def _plain(value: Any) -> Any:
    """A dataclass tree as JSON values, without :func:`dataclasses.asdict`'s deep copies (``meta.json`` is
    written after every level and lists every file of the run)."""
    if hasattr(value, "__dataclass_fields__"):
        return {name: _plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _content_digest(d: dict) -> str:
    body = json.dumps({k: v for k, v in d.items() if k != "checksum"}, sort_keys=True)
    return hashlib.blake2b(body.encode(), digest_size=16).hexdigest()


def file_digest(path: Path) -> str:
    h = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as f:
        while chunk := f.read(HASH_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def run_digest(model: Any, properties: Any) -> str:
    """Identifies what a work directory explores: the model's parameters and the checked properties."""
    h = hashlib.blake2b(digest_size=16)
    h.update(str(getattr(model, "name", "")).encode())
    h.update(np.asarray(model.params, dtype=np.int64).tobytes())
    h.update(",".join(p.name for p in properties).encode())
    return h.hexdigest()


class WorkDir:
    """A run's work directory, claimed (marker) and locked for the run's whole length: ``close()``."""

    def __init__(self, path: str | None) -> None:
        self.owned = path is None
        made = self.owned or not Path(path).exists()
        try:
            self.root = Path(path) if path else Path(tempfile.mkdtemp(prefix="rmqcheck-spark-"))
            self.root.mkdir(parents=True, exist_ok=True)
            probe = self.root / ".write-test"
            try:
                probe.write_text("ok")
            finally:   # a full disk makes the file and fails the write: leave nothing behind
                probe.unlink(missing_ok=True)
        except OSError as exc:
            if made:
                shutil.rmtree(self.root, ignore_errors=True)
            raise SparkUnavailable(f"--work-dir {path!r}: cannot write there ({exc.strerror or exc})") from None
        self.root = self.root.resolve()
        claim(self.root)
        self.lock = WorkDirLock(self.root).acquire()
        self.files: dict[int, list[LevelFile]] = {}   # per level, its files as written

    def close(self) -> None:
        """Release the lock (and remove the directory when it was a temporary one, unless another run
        took it)."""
        self.lock.release()
        if self.owned and not self.lost:
            shutil.rmtree(self.root, ignore_errors=True)

    @property
    def lost(self) -> bool:
        """Whether this run's lock was found taken: it must not write or remove anything here."""
        return self.lock.lost

    def fence(self) -> None:
        """WorkDirLost unless this run still holds the directory's lock (checked before every save of
        ``meta.json``, so a run whose lock was taken commits no level and removes nothing)."""
        self.lock.check()

    @property
    def meta_path(self) -> Path:
        return layout.meta_path(self.root)

    @property
    def levels_dir(self) -> Path:
        return layout.levels_dir(self.root)

    def level_dir(self, level: int) -> Path:
        return layout.level_dir(self.root, level)

    @property
    def visited_dir(self) -> Path:
        return layout.visited_dir(self.root)

    def runs_dir(self, q: int) -> Path:
        return layout.runs_dir(self.root, q)

    def edges_dir(self, q: int) -> Path:
        return layout.edges_dir(self.root, q)

    @contextlib.contextmanager
    def _writing(self, what: str):
        """A failed write (disk full, permissions) is one line naming the file, never a traceback."""
        try:
            yield
        except OSError as exc:
            raise SparkUnavailable(f"--work-dir {str(self.root)!r}: cannot write {what} "
                                   f"({exc.strerror or exc})") from None

    def _refuse(self, what: str) -> SparkUnavailable:
        return SparkUnavailable(f"--work-dir {str(self.root)!r}: {what}; it cannot be resumed (start afresh "
                                "without --resume, or in another directory)")

    def load_meta(self) -> Meta | None:
        """The saved run, verified against the level files on disk (SparkUnavailable on any mismatch)."""
        if not self.meta_path.exists():
            if self.levels_dir.exists():
                raise self._refuse("levels/ exists but meta.json is missing")
            return None
        try:
            meta = Meta.from_json(self.meta_path.read_text(encoding="utf-8", errors="strict")[: 64 << 20])
        except (ValueError, KeyError, TypeError, RecursionError, OSError) as exc:
            raise self._refuse(f"meta.json is unusable ({exc})") from None
        self.verify_levels(meta)
        self.files = {i: list(li.files) for i, li in enumerate(meta.levels)}
        return meta

    def verify_levels(self, meta: Meta) -> None:
        """Every recorded level file is there, whole, and no other file sits beside them."""
        for i, li in enumerate(meta.levels):
            d = self.level_dir(i)
            on_disk = sorted(p.name for p in d.glob("*.parquet")) if d.is_dir() else []
            recorded = sorted(f.name for f in li.files)
            if on_disk != recorded:
                missing = sorted(set(recorded) - set(on_disk))
                extra = sorted(set(on_disk) - set(recorded))
                what = (f"level file {d / missing[0]} is missing" if missing
                        else f"level {i} holds an unrecorded file {d / extra[0]}")
                raise self._refuse(what)
            for f in li.files:
                self._verify_file(d / f.name, f, "level file")
        for q, runs in enumerate(meta.runs):
            for f in runs:
                self._verify_file(self.runs_dir(q) / f.name, f, "visited run")
        for q, files in enumerate(meta.edges):
            for f in files:
                self._verify_file(self.edges_dir(q) / f.name, f, "edge file")

    def _verify_file(self, path: Path, f: LevelFile, what: str) -> None:
        if not path.is_file():
            raise self._refuse(f"{what} {path} is missing")
        if path.stat().st_size != f.bytes or file_digest(path) != f.blake2b:
            raise self._refuse(f"{what} {path} was changed or damaged since it was written")

    def save_meta(self, meta: Meta) -> None:
        """Write ``meta`` atomically, with each level's recorded files, if this run still holds the lock."""
        self.fence()
        for i, li in enumerate(meta.levels):
            li.files = list(self.files.get(i, []))
        meta.check_consistent()
        with self._writing("meta.json"):
            fd, tmp = tempfile.mkstemp(prefix=".meta.", dir=str(self.root))
            try:
                with os.fdopen(fd, "w") as f:
                    f.write(meta.to_json())
                os.replace(tmp, self.meta_path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise

    def reset(self) -> None:
        """Start afresh: forget any earlier run in this directory."""
        shutil.rmtree(self.levels_dir, ignore_errors=True)
        shutil.rmtree(self.visited_dir, ignore_errors=True)
        shutil.rmtree(layout.edges_root(self.root), ignore_errors=True)
        shutil.rmtree(layout.graph_root(self.root), ignore_errors=True)
        shutil.rmtree(layout.shuffle_dir(self.root), ignore_errors=True)
        if self.meta_path.exists():
            self.meta_path.unlink()
        self.files = {}

    def drop_levels_after(self, level: int) -> None:
        """Remove level tables beyond ``level`` (left by a run stopped in the middle of a level)."""
        base = self.levels_dir
        if not base.exists():
            return
        for d in base.iterdir():
            n = d.name[6:]
            if d.name.startswith("level=") and n.isdigit() and int(n) > level:
                shutil.rmtree(d, ignore_errors=True)

    def drop_unrecorded_runs(self, meta: Meta) -> None:
        """Remove the visited runs and edge files ``meta`` does not name: runs superseded by a merge, or
        files written for a level that was not kept (a stopped run, a state limit)."""
        for q in range(meta.partitions):
            for d, files in ((self.runs_dir(q), meta.runs), (self.edges_dir(q), meta.edges)):
                keep = {f.name for f in files[q]} if q < len(files) else set()
                if d.is_dir():
                    for path in d.iterdir():
                        if path.name not in keep:
                            with contextlib.suppress(OSError):
                                path.unlink()

    # -- reading levels back in the driver ------------------------------------------------------------
    def write_level(self, level: int, keys: np.ndarray, parents: np.ndarray, actions: np.ndarray,
                    sbits: np.ndarray, parts: int = 1) -> None:
        """Write a level computed in the driver, as the level job would: one file per owner partition,
        each sorted by key (the cluster's tasks write their own levels)."""
        from .level_job import write_level_part
        from .shards import key_order, rows_by_owner
        order = key_order(keys)
        keys, parents, actions, sbits = keys[order], parents[order], actions[order], sbits[order]
        with self._writing(f"level {level}"):
            shutil.rmtree(self.level_dir(level), ignore_errors=True)
            self.record_written(level, [write_level_part(self.root, level, q, keys[r], parents[r], actions[r], sbits[r])
                                        for q, r in enumerate(rows_by_owner(keys, parts))])

    def record_written(self, level: int, files: list[LevelFile]) -> None:
        """Note the files the level job's tasks wrote for ``level`` (they computed size, rows, digest)."""
        self.files[level] = sorted(files, key=lambda f: f.name)

    def new_states_per_action(self, levels: int, actions: int) -> np.ndarray:
        """How many states of levels ``1..levels-1`` each action index reached: their ``action`` column is
        the one of their canonical parent link (coverage's ``new_states``)."""
        import pyarrow.dataset as ds
        counts = np.zeros(actions, dtype=np.int64)
        for level in range(1, levels):
            if not self.level_dir(level).is_dir():
                continue
            column = ds.dataset(str(self.level_dir(level)), format="parquet").to_table(columns=["action"])
            via = column.column("action").to_numpy().astype(np.int64)
            counts += np.bincount(via, minlength=actions)[:actions]
        return counts

    def parent_of(self, level: int, key: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
        """``(parent key, action)`` of the state ``key`` stored in ``level``."""
        import pyarrow.dataset as ds
        w = len(key)
        data = ds.dataset(str(self.level_dir(level)), format="parquet")
        expr = None
        for i, x in enumerate(key):
            term = ds.field(f"k{i}") == int(np.uint64(x).view(np.int64))
            expr = term if expr is None else expr & term
        table = data.to_table(columns=[f"p{i}" for i in range(w)] + ["action"], filter=expr)
        if table.num_rows != 1:
            raise RuntimeError(f"level {level}: state {key} found {table.num_rows} times in the work directory")
        row = table.to_pylist()[0]
        parent = tuple(int(np.int64(row[f"p{i}"]).view(np.uint64)) for i in range(w))
        return parent, int(row["action"])

    def path(self, witness: KeyWitness) -> tuple[tuple[int, ...], list[int], list[tuple[int, ...]]]:
        """``(root key, actions, states after each action)`` for a witness, shortest by construction."""
        key, level = witness.key, witness.level
        actions: list[int] = []
        states: list[tuple[int, ...]] = []
        while level > 0:
            states.append(key)
            key, a = self.parent_of(level, key)
            actions.append(a)
            level -= 1
        actions.reverse()
        states.reverse()
        return key, actions, states
