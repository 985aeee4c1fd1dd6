"""The Spark engine's work directory: one Parquet table per BFS level plus ``meta.json``.

``levels/level=N/`` (Hive-style, so Spark reads every level at once with a ``level`` column) holds the
level's states: key words ``k0..``, parent key words ``p0..`` (zeros
for initial states), the ``action`` index that reached it from that parent (-1 for initial states) and
``sbits``, the bits its checks raised. ``meta.json`` is rewritten atomically after every completed level;
it is what ``--resume`` continues from. Counterexamples are rebuilt by walking parents back level by level
in these tables, then replaying forward through the model.

Integrity: ``meta.json`` records, per level, each Parquet file's name, size, row count and BLAKE2b digest,
and carries a digest of its own content. ``--resume`` verifies all of it before any work, so a deleted or
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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import SparkUnavailable
from .ownership import WorkDirLock, claim

FORMAT = 3
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
    format: int = FORMAT

    def to_json(self) -> str:
        d = asdict(self)
        d["witnesses"] = {k: asdict(v) for k, v in self.witnesses.items()}
        d["checksum"] = _content_digest(d)
        return json.dumps(d, indent=1)

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
        for i, li in enumerate(self.levels):
            if li.size < 0 or sum(f.rows for f in li.files) != li.size:
                raise ValueError(f"level {i}: its files hold {sum(f.rows for f in li.files)} rows, "
                                 f"not the {li.size} states recorded")


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
        try:
            self.root = Path(path) if path else Path(tempfile.mkdtemp(prefix="rmqcheck-spark-"))
            self.root.mkdir(parents=True, exist_ok=True)
            probe = self.root / ".write-test"
            probe.write_text("ok")
            probe.unlink()
        except OSError as exc:
            raise SparkUnavailable(f"--work-dir {path!r}: cannot write there ({exc.strerror or exc})") from None
        self.root = self.root.resolve()
        claim(self.root)
        self.lock = WorkDirLock(self.root).acquire()
        self.files: dict[int, list[LevelFile]] = {}   # per level, its files as written

    def close(self) -> None:
        """Release the lock (and remove the directory when it was a temporary one)."""
        self.lock.release()
        if self.owned:
            shutil.rmtree(self.root, ignore_errors=True)

    @property
    def meta_path(self) -> Path:
        return self.root / "meta.json"

    @property
    def levels_dir(self) -> Path:
        return self.root / "levels"

    def level_dir(self, level: int) -> Path:
        return self.levels_dir / f"level={level}"

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
                path = d / f.name
                if path.stat().st_size != f.bytes or file_digest(path) != f.blake2b:
                    raise self._refuse(f"level file {path} was changed or damaged since it was written")

    def record_level(self, level: int) -> list[LevelFile]:
        """Note the files just written for ``level`` (sizes, row counts, digests), for ``meta.json``."""
        import pyarrow.parquet as pq
        files = []
        for path in sorted(self.level_dir(level).glob("*.parquet")):
            rows = pq.read_metadata(path).num_rows
            files.append(LevelFile(path.name, path.stat().st_size, rows, file_digest(path)))
        self.files[level] = files
        return files

    def save_meta(self, meta: Meta) -> None:
        """Write ``meta`` atomically, with each level's recorded files."""
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
        shutil.rmtree(self.root / "levels", ignore_errors=True)
        if self.meta_path.exists():
            self.meta_path.unlink()
        self.files = {}

    def drop_levels_after(self, level: int) -> None:
        """Remove level tables beyond ``level`` (left by a run stopped in the middle of a level)."""
        base = self.root / "levels"
        if not base.exists():
            return
        for d in base.iterdir():
            n = d.name[6:]
            if d.name.startswith("level=") and n.isdigit() and int(n) > level:
                shutil.rmtree(d, ignore_errors=True)

    # -- reading levels back in the driver ------------------------------------------------------------
    def write_level(self, level: int, keys: np.ndarray, parents: np.ndarray, actions: np.ndarray,
                    sbits: np.ndarray) -> None:
        """Write a level computed in the driver (the cluster writes its own levels with Spark)."""
        import pyarrow as pa
        import pyarrow.parquet as pq
        w = keys.shape[1]
        cols = {f"k{i}": keys[:, i].view(np.int64) for i in range(w)}
        cols.update({f"p{i}": parents[:, i].view(np.int64) for i in range(w)})
        cols["action"] = actions.astype(np.int32)
        cols["sbits"] = sbits.view(np.int64)
        d = self.level_dir(level)
        with self._writing(f"level {level}"):
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir(parents=True)
            pq.write_table(pa.table(cols), d / "part-00000.parquet")
            self.record_level(level)

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
