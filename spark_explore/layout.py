"""The Spark engine's work directory, file by file: every path of it is named here, once.

```
meta.json                                   the record --resume continues from (spark_explore.workdir)
levels/level=L/part-Q.parquet               level L's states owned by partition Q, with parent and action
visited/part-Q/run-A-B.npy                  partition Q's visited keys of levels A..B, sorted
edges/part-Q/from-level-L.npy               the transitions out of level L into partition Q: (target, source,
                                            action) rows (graph and eventually properties)
shuffle/level=L/to-Q-from-P.bin             what the expansion of level L in partition P sent to partition Q
graph/part-Q/...                            the graph properties' backward search (spark_explore.reachability)
                                            and the eventually properties' (spark_explore.liveness)
```
"""
from __future__ import annotations

from pathlib import Path


def meta_path(root: str | Path) -> Path:
    return Path(root) / "meta.json"


def levels_dir(root: str | Path) -> Path:
    return Path(root) / "levels"


def level_dir(root: str | Path, level: int) -> Path:
    return levels_dir(root) / f"level={level}"


def _part(q: int) -> str:
    """Partition ``q``'s name in every per-partition directory and file of the layout."""
    return f"part-{q:05d}"


def part_name(q: int) -> str:
    return f"{_part(q)}.parquet"


def visited_dir(root: str | Path) -> Path:
    return Path(root) / "visited"


def runs_dir(root: str | Path, q: int) -> Path:
    return visited_dir(root) / _part(q)


def run_name(first: int, last: int) -> str:
    return f"run-{first:05d}-{last:05d}.npy"


def run_levels(name: str) -> tuple[int, int]:
    """``(first, last)`` level of a visited run file's name ``run-A-B.npy``."""
    try:
        a, b = name[len("run-"):-len(".npy")].split("-")
        return int(a), int(b)
    except ValueError:
        raise ValueError(f"{name!r} is not the name of a visited run") from None


def edges_dir(root: str | Path, q: int) -> Path:
    return edges_root(root) / _part(q)


def edges_root(root: str | Path) -> Path:
    return Path(root) / "edges"


def graph_root(root: str | Path) -> Path:
    return Path(root) / "graph"


def graph_dir(root: str | Path, q: int) -> Path:
    return graph_root(root) / _part(q)


def edges_name(level: int) -> str:
    """The transitions out of ``level`` whose target partition ``q`` owns."""
    return f"from-level-{level:05d}.npy"


def shuffle_dir(root: str | Path, level: int | None = None) -> Path:
    """The exchange of ``level`` (every level's when None)."""
    base = Path(root) / "shuffle"
    return base if level is None else base / f"level={level}"


def bucket_path(root: str | Path, level: int, to: int, sender: int) -> Path:
    """Where the expansion of ``level`` in partition ``sender`` leaves the successors partition ``to``
    owns (one flat directory per level: removing it is one ``rmdir``)."""
    return shuffle_dir(root, level) / f"to-{to:05d}-from-{sender:05d}.bin"


def bucket_owner(name: str) -> int:
    """The partition an exchange file ``to-Q-from-P.bin`` is for (``Q`` has five digits or more)."""
    return int(name[len("to-"):name.index("-from-")])
