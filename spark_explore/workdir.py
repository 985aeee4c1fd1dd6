"""The Spark engine's work directory: one Parquet table per BFS level plus ``meta.json``.

``levels/level=N/`` (Hive-style, so Spark reads every level at once with a ``level`` column) holds the
level's states: key words ``k0..``, parent key words ``p0..`` (zeros
for initial states), the ``action`` index that reached it from that parent (-1 for initial states) and
``sbits``, the bits its checks raised. ``meta.json`` is rewritten atomically after every completed level;
it is what ``--resume`` continues from. Counterexamples are rebuilt by walking parents back level by level
in these tables, then replaying forward through the model.
"""
from __future__ import annotations

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

FORMAT = 1


@dataclass
class KeyWitness:
    """A witness named by keys: a state of ``level`` (``action`` -1), or the transition ``action`` from it."""

    level: int
    key: tuple[int, ...]
    action: int = -1


@dataclass
class LevelInfo:
    size: int
    engine: str            # "driver" or "cluster"
    seconds: float
    leaves: int = 0        # states of this level left unexpanded by the leaf rule


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
    format: int = FORMAT

    def to_json(self) -> str:
        d = asdict(self)
        d["witnesses"] = {k: asdict(v) for k, v in self.witnesses.items()}
        return json.dumps(d, indent=1)

    @staticmethod
    def from_json(text: str) -> "Meta":
        d = json.loads(text)
        d["levels"] = [LevelInfo(**x) for x in d["levels"]]
        d["witnesses"] = {k: KeyWitness(v["level"], tuple(v["key"]), v["action"]) for k, v in d["witnesses"].items()}
        return Meta(**d)


def run_digest(model: Any, properties: Any) -> str:
    """Identifies what a work directory explores: the model's parameters and the checked properties."""
    h = hashlib.blake2b(digest_size=16)
    h.update(str(getattr(model, "name", "")).encode())
    h.update(np.asarray(model.params, dtype=np.int64).tobytes())
    h.update(",".join(p.name for p in properties).encode())
    return h.hexdigest()


class WorkDir:
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

    @property
    def meta_path(self) -> Path:
        return self.root / "meta.json"

    @property
    def levels_dir(self) -> Path:
        return self.root / "levels"

    def level_dir(self, level: int) -> Path:
        return self.levels_dir / f"level={level}"

    def load_meta(self) -> Meta | None:
        if not self.meta_path.exists():
            return None
        try:
            meta = Meta.from_json(self.meta_path.read_text())
        except (ValueError, KeyError, TypeError) as exc:
            raise SparkUnavailable(f"--work-dir {str(self.root)!r}: unreadable meta.json ({exc})") from None
        if meta.format != FORMAT:
            raise SparkUnavailable(f"--work-dir {str(self.root)!r}: written by another rmqcheck version")
        return meta

    def save_meta(self, meta: Meta) -> None:
        fd, tmp = tempfile.mkstemp(prefix=".meta.", dir=str(self.root))
        with os.fdopen(fd, "w") as f:
            f.write(meta.to_json())
        os.replace(tmp, self.meta_path)

    def reset(self) -> None:
        """Start afresh: forget any earlier run in this directory."""
        shutil.rmtree(self.root / "levels", ignore_errors=True)
        if self.meta_path.exists():
            self.meta_path.unlink()

    def drop_levels_after(self, level: int) -> None:
        """Remove level tables beyond ``level`` (left by a run stopped in the middle of a level)."""
        base = self.root / "levels"
        if not base.exists():
            return
        for d in base.iterdir():
            if d.name.startswith("level=") and int(d.name[6:]) > level:
                shutil.rmtree(d, ignore_errors=True)

    def cleanup(self) -> None:
        if self.owned:
            shutil.rmtree(self.root, ignore_errors=True)

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
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        pq.write_table(pa.table(cols), d / "part-00000.parquet")

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
