"""The compact visited set's levels on disk and its work directory (``check --compact [--work-dir DIR]
[--resume]``).

Each finished BFS level's states, sorted by key, are written to a file of their own; the level being
expanded is read back from it (a private file mapping laid over the level's rows, so the kernels address
the states as before), and the pages of each expanded chunk (one-thread kernel) or round (threads) are
given back at once: memory holds the fingerprint table, the initial states, the part of the level being
expanded that the kernels are reading and the level being filed, never the whole level being expanded. A
state read again after its pages went back (a transition witness compared by key, a model error's state)
is read from the file again, never zeros.

The directory (``--work-dir DIR``, else a temporary ``rmqcheck-links-*`` under ``TMPDIR`` removed when the
result is built) holds:

- ``.rmqcheck-compact``: the marker that makes the directory rmqcheck's (a non-empty directory without it
  is refused, and nothing in it is touched); ``.rmqcheck.lock``: one run at a time (the pid of the run; a
  lock whose process is gone on this host is taken over);
- ``levels/level-N.rows``: the states of level N (``words`` little-endian 64-bit words a state, sorted by
  key, state ``level_starts[N] + i`` at row ``i``), after ``pad`` zero bytes (``(first index * row bytes)
  mod 65536``, so that the rows land on page boundaries when mapped); ``levels/level-N.leaf`` (only when
  states can be left unexpanded, :attr:`explore.tracker.PropertyTracker.leaves`): one byte a state, 1 for a
  state left unexpanded;
- ``parent.i32`` / ``via.i16``: the parent index and the action of every state of the levels written, in
  index order (:class:`explore.compact.LinkFiles`), what traces are rebuilt from;
- ``checkpoint.json``: rewritten atomically (written aside, then renamed) after every finished level: the
  run's identity (:func:`run_digest`: the model, its parameters and the checked properties), the level
  bounds, the counters (states, transitions, unexpanded, terminal state), the coverage tally, the witnesses
  found, each level file's size and the number of links written, and a digest of its own content.

``--resume`` continues from the last checkpoint: the links are cut back to the level it records (a level
stopped inside wrote no checkpoint and leaves nothing the resumed run reads), the fingerprint table is
rebuilt from the level files (one pass over them; cheaper than writing the whole table after every level),
and the run goes on as if it had never stopped: the same states in the same order, so the same counts,
verdicts and shortest traces. A directory written for another configuration or property selection, or
whose files do not match the checkpoint, is refused (one line, exit 2).
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import mmap
import os
import shutil
import socket
import tempfile
import time
import weakref
from pathlib import Path
from typing import Any

import numpy as np

from .compact import PAGE, LinkFiles
from .run_control import pid_alive

FORMAT = 1
MARKER = ".rmqcheck-compact"
LOCK = ".rmqcheck.lock"
CHECKPOINT = "checkpoint.json"
LEVELS = "levels"
LINK_FILES = ("parent.i32", "via.i16")
ALIGN = 1 << 16   # a level file's rows start at this alignment of the address space (any page size up to it)
MARKER_TEXT = '{"tool": "rmqcheck", "what": "local engine --compact work directory (levels and checkpoint.json)"}\n'
READ_CHUNK = 1 << 20   # states read at a time when the table is rebuilt


class WorkDirRefused(ValueError):
    """A work directory that cannot be used or resumed: bad input (exit 2), said in one line."""


def run_digest(model: Any, properties: Any) -> str:
    """Identifies what a work directory explores: the model, its parameters, its state width and actions,
    the checked properties (as the Spark engine's work directory identifies its run)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(str(getattr(model, "name", type(model).__name__)).encode())
    h.update(np.asarray(model.params, dtype=np.int64).tobytes())
    h.update(f"{int(model.words)}:{len(model.actions())}".encode())
    h.update(",".join(p.name for p in properties).encode())
    return h.hexdigest()


def _content_digest(d: dict) -> str:
    body = json.dumps({k: v for k, v in d.items() if k != "checksum"}, sort_keys=True)
    return hashlib.blake2b(body.encode(), digest_size=16).hexdigest()



def _bytes_of(array: np.ndarray) -> memoryview:
    """The bytes of a C-contiguous array, as a flat buffer (an empty one too)."""
    return memoryview(array.reshape(-1).view(np.uint8))


class LevelLinks(LinkFiles):
    """:class:`explore.compact.LinkFiles` in the work directory, cut back to ``rows`` states (a resumed
    run's last checkpoint); :meth:`close` closes the files and leaves them (the directory is the work
    directory's to keep or remove)."""

    def __init__(self, root: Path, rows: int = 0) -> None:   # noqa: D107 (no temporary directory here)
        self.dir = str(root)
        self.parent = open(root / LINK_FILES[0], "r+b" if rows else "w+b")
        self.via = open(root / LINK_FILES[1], "r+b" if rows else "w+b")
        for f, size in ((self.parent, 4), (self.via, 2)):
            f.truncate(size * rows)
            f.seek(0, os.SEEK_END)
        self.rows = rows

    def close(self) -> None:
        for f in (self.parent, self.via):
            f.close()


# -- laying a level file over the rows of the state store -----------------------------------------------
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
MAP_FIXED = 0x10
MAP_FAILED = ctypes.c_void_p(-1).value


def _map_over(address: int, length: int, fd: int, offset: int) -> None:
    """Lay ``length`` bytes of file ``fd`` from ``offset`` over the pages at ``address`` (private: writes
    stay in memory; pages given back are read from the file again)."""
    got = _libc.mmap(address, length, mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_PRIVATE | MAP_FIXED, fd, offset)
    if got == MAP_FAILED or got != address:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def place_level(rows: np.ndarray, lo: int, hi: int, path: Path, pad: int) -> None:
    """Make rows ``[lo, hi)`` of ``rows`` (the store's state rows, a mapping of their own) read from level
    file ``path``: the whole pages inside the level mapped from the file, the rows on the pages it shares
    with its neighbours read into memory (they are already there after the level was written)."""
    rb = rows.shape[1] * 8
    base = rows.ctypes.data
    first, end = lo * rb, hi * rb
    p0 = -(-first // PAGE) * PAGE
    p1 = end // PAGE * PAGE
    flat = rows.reshape(-1).view(np.uint8)
    with open(path, "rb") as f:
        fd = f.fileno()
        if p1 > p0:
            _map_over(base + p0, p1 - p0, fd, pad + p0 - first)
            parts = ((first, p0), (p1, end))
        else:
            parts = ((first, end),)
        for a, b in parts:
            if b > a:
                got = os.preadv(fd, [memoryview(flat[a:b])], pad + a - first)
                if got != b - a:
                    raise OSError(0, f"{path}: {got} bytes where {b - a} were expected")


class CompactWorkDir:
    """The work directory of one compact run: claimed (marker), locked for the run, its level files,
    links and checkpoint. ``path`` None: a temporary directory, removed by :meth:`close`."""

    def __init__(self, path: str | None, digest: str, resume: bool) -> None:
        self.digest = digest
        self.owned = path is None
        self.given = path
        made = self.owned or not Path(path).exists()
        try:
            root = Path(tempfile.mkdtemp(prefix="rmqcheck-links-")) if path is None else Path(path)
            if path is not None:
                if root.exists() and not root.is_dir():
                    raise WorkDirRefused(f"--work-dir {path!r} is not a directory")
                root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WorkDirRefused(f"--work-dir {path!r}: cannot create it ({exc.strerror or exc})") from None
        self.root = root.resolve()
        self.lock_held = False
        self._claim(made)
        self._lock()
        self._gone = weakref.finalize(self, CompactWorkDir._cleanup, self.root, self.owned, self.lock_path)
        self.checkpoint: dict | None = None
        try:
            if resume:
                self.checkpoint = self._load_checkpoint()
            else:
                self._reset()
            (self.root / LEVELS).mkdir(exist_ok=True)
        except BaseException:   # refused (or the disk refused us): the lock goes at once, not when collected
            self.close()
            raise
        self.levels: list[dict] = list(self.checkpoint["levels"]) if self.checkpoint else []

    # -- ownership -------------------------------------------------------------------------------------
    @property
    def lock_path(self) -> Path:
        return self.root / LOCK

    def _claim(self, made: bool) -> None:
        """The directory is ours: made by this run, empty, or marked by an earlier compact run."""
        if (self.root / MARKER).is_file():
            return
        others = sorted(p.name for p in self.root.iterdir() if p.name != LOCK)
        if others:
            shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
            what = ("a Spark engine work directory" if ".rmqcheck-workdir" in others
                    else f"not an rmqcheck --compact work directory (no {MARKER} marker)")
            raise WorkDirRefused(f"--work-dir {str(self.root)!r} is {what} and is not empty ({shown}); "
                                 "give a new or empty directory")
        try:
            (self.root / MARKER).write_text(MARKER_TEXT)
        except OSError as exc:
            if made:
                shutil.rmtree(self.root, ignore_errors=True)
            raise WorkDirRefused(f"--work-dir {str(self.root)!r}: cannot write there ({exc.strerror or exc})") from None

    def _lock(self) -> None:
        """One run at a time: ``.rmqcheck.lock`` made exclusively, with this run's pid and host; a lock of a
        process of this host that is gone is taken over."""
        for _ in range(2):
            try:
                fd = os.open(self.lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                try:
                    holder = json.loads(self.lock_path.read_text()[:4096])
                except (OSError, ValueError):
                    holder = None
                if (isinstance(holder, dict) and holder.get("host") == socket.gethostname()
                        and isinstance(holder.get("pid"), int) and not pid_alive(holder["pid"])):
                    self.lock_path.unlink(missing_ok=True)
                    continue
                who = (f"rmqcheck pid {holder.get('pid')} on host {holder.get('host')}"
                       if isinstance(holder, dict) else "another rmqcheck run")
                raise WorkDirRefused(f"--work-dir {str(self.root)!r} is in use by {who}; wait for it, use another "
                                     f"directory, or, if no such run is alive, remove {str(self.lock_path)!r}") from None
            except OSError as exc:
                raise WorkDirRefused(f"--work-dir {str(self.root)!r}: cannot create its lock file "
                                     f"({exc.strerror or exc})") from None
            with os.fdopen(fd, "w") as f:
                json.dump({"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}, f)
            self.lock_held = True
            return
        raise WorkDirRefused(f"--work-dir {str(self.root)!r}: its lock could not be taken")

    @staticmethod
    def _cleanup(root: Path, owned: bool, lock: Path) -> None:
        if owned:
            shutil.rmtree(root, ignore_errors=True)
        else:
            try:
                holder = json.loads(lock.read_text()[:4096])
                if isinstance(holder, dict) and holder.get("pid") == os.getpid():
                    lock.unlink()
            except (OSError, ValueError):
                pass

    def close(self) -> None:
        """Release the lock; remove the directory when it is a temporary one (a given one is kept, so
        ``--resume`` can continue or reproduce the run)."""
        self._gone()

    def _refuse(self, what: str) -> WorkDirRefused:
        return WorkDirRefused(f"--work-dir {str(self.root)!r}: {what}; it cannot be resumed (start afresh "
                              "without --resume, or in another directory)")

    def _reset(self) -> None:
        """A fresh run: remove what an earlier run of ours wrote (only our own files: the directory is
        marked ours)."""
        (self.root / CHECKPOINT).unlink(missing_ok=True)
        shutil.rmtree(self.root / LEVELS, ignore_errors=True)
        for name in LINK_FILES:
            (self.root / name).unlink(missing_ok=True)

    # -- levels and checkpoints ------------------------------------------------------------------------
    def level_path(self, level: int, ext: str = "rows") -> Path:
        return self.root / LEVELS / f"level-{level}.{ext}"

    def write_level(self, level: int, lo: int, states: np.ndarray, leaf: np.ndarray | None) -> dict:
        """Write level ``level`` (first index ``lo``, its rows ``states`` and leaf marks) to its files
        (OSError when the disk refuses them); returns what the checkpoint records of it."""
        rb = states.shape[1] * 8
        pad = (lo * rb) % ALIGN
        with open(self.level_path(level), "wb") as f:
            f.write(bytes(pad))
            f.write(_bytes_of(states))
        if leaf is not None:
            with open(self.level_path(level, "leaf"), "wb") as f:
                f.write(_bytes_of(leaf))
        info = {"level": level, "first": lo, "rows": len(states), "pad": pad, "row_file": pad + rb * len(states),
                "leaf_file": len(states) if leaf is not None else 0}
        del self.levels[level:]
        self.levels.append(info)
        return info

    @property
    def level_bytes(self) -> int:
        return sum(x["row_file"] + x["leaf_file"] for x in self.levels)

    def save_checkpoint(self, state: dict) -> None:
        """Write ``checkpoint.json`` atomically (OSError when the disk refuses it)."""
        d = {"format": FORMAT, "digest": self.digest, **state, "levels": self.levels}
        d["checksum"] = _content_digest(d)
        tmp = self.root / (CHECKPOINT + ".tmp")
        tmp.write_text(json.dumps(d, separators=(",", ":")))
        os.replace(tmp, self.root / CHECKPOINT)
        self.checkpoint = d

    def _load_checkpoint(self) -> dict:
        """The saved run, checked against this run's identity and the files on disk."""
        path = self.root / CHECKPOINT
        if not path.exists():
            raise self._refuse("it holds no checkpoint.json (no finished level to continue from)")
        try:
            d = json.loads(path.read_text(encoding="utf-8")[: 64 << 20])
            if not isinstance(d, dict):
                raise ValueError("not a JSON object")
            if d.get("format") != FORMAT:
                raise ValueError(f"format {d.get('format')!r}: written by another rmqcheck version")
            if d.get("checksum") != _content_digest(d):
                raise ValueError("its content does not match its checksum (edited or damaged)")
        except (ValueError, OSError, RecursionError) as exc:
            raise self._refuse(f"checkpoint.json is unusable ({exc})") from None
        if d["digest"] != self.digest:
            raise WorkDirRefused(f"--work-dir {str(self.root)!r} holds a run of another configuration or property "
                                 "selection; use another directory or drop --resume")
        for info in d["levels"]:
            for ext, size in (("rows", info["row_file"]), ("leaf", info["leaf_file"])):
                p = self.level_path(info["level"], ext)
                if size and (not p.is_file() or p.stat().st_size != size):
                    raise self._refuse(f"{p.relative_to(self.root)} is missing or not the size checkpoint.json "
                                       "records")
        for name, size in zip(LINK_FILES, (4, 2)):
            p = self.root / name
            if not p.is_file() or p.stat().st_size < size * d["links_rows"]:
                raise self._refuse(f"{name} is missing or shorter than checkpoint.json records")
        return d

    def read_rows(self, level: int, lo: int, hi: int, out: np.ndarray) -> None:
        """Rows ``[lo, hi)`` of level ``level`` (indices within the level) into ``out``."""
        info = self.levels[level]
        rb = out.shape[1] * 8
        with open(self.level_path(level), "rb") as f:
            got = os.preadv(f.fileno(), [_bytes_of(out[: hi - lo])], info["pad"] + lo * rb)
        if got != (hi - lo) * rb:
            raise self._refuse(f"{self.level_path(level).relative_to(self.root)} is shorter than recorded")

    def read_leaf(self, level: int, out: np.ndarray) -> None:
        with open(self.level_path(level, "leaf"), "rb") as f:
            os.preadv(f.fileno(), [_bytes_of(out)], 0)


#: the run counters a checkpoint keeps (the others are the run's own: capacity, limits, where a level is)
SAVED_COUNTERS = ("trans", "edges", "terminal", "count", "nleaf")


class LevelsOnDisk:
    """The local explorer's levels on disk (``visited="compact"``): :meth:`finish_level` writes a sorted
    level and lays its file over its rows, :meth:`save` the checkpoint, :meth:`resume` sets a new explorer
    where the checkpoint left off."""

    def __init__(self, ex: Any, path: str | None, resume: bool) -> None:
        self.wd = CompactWorkDir(path, run_digest(ex.model, ex.props), resume)

    @property
    def root(self) -> Path:
        return self.wd.root

    def links(self) -> LevelLinks:
        return LevelLinks(self.wd.root, int(self.wd.checkpoint["links_rows"]) if self.wd.checkpoint else 0)

    def finish_level(self, ex: Any) -> None:
        """Write the new frontier (``ex.level``, sorted) to its file and read it from there (level 0, the
        initial states, stays in memory: every trace starts there). OSError when the disk refuses it."""
        level = ex.level
        lo, hi = ex.level_starts[level], ex.level_starts[level + 1]
        store = ex.store
        self.wd.write_level(level, lo, store.states[lo:hi], store.noexp[lo:hi] if ex.leaves else None)
        if level > 0 and hi > lo:
            place_level(store.states, lo, hi, self.wd.level_path(level), self.wd.levels[level]["pad"])

    def save(self, ex: Any) -> None:
        """The checkpoint of the finished levels (after :meth:`finish_level` and the links written)."""
        io = ex.store.io
        self.wd.save_checkpoint({
            "level": ex.level, "level_starts": [int(x) for x in ex.level_starts],
            "level_seconds": [float(x) for x in ex.level_seconds],
            "counters": {k: int(io[k]) for k in SAVED_COUNTERS}, "tally": [int(x) for x in ex.tally],
            "witnesses": {name: [int(w.state), int(w.action)] for name, w in ex.tracker.witness.items()},
            "links_rows": int(ex.store.links.rows)})

    def resume(self, ex: Any, witness: Any) -> None:
        """Set explorer ``ex`` (store allocated, nothing seeded) where the checkpoint left off: its levels,
        counters, tally and witnesses (``witness(state, action)`` makes one), the fingerprint table rebuilt
        from the level files, the initial states and the frontier read back."""
        cp = self.wd.checkpoint
        store = ex.store
        starts = [int(x) for x in cp["level_starts"]]
        level = int(cp["level"])
        count = starts[-1]
        if count + ex.nact > store.cap:
            raise self.wd._refuse(f"its {count:,} states do not fit in this run's memory budget "
                                  f"({store.cap:,} states)")
        ex.level_starts, ex.level = starts, level
        ex.level_seconds = [float(x) for x in cp["level_seconds"]]
        for k, v in cp["counters"].items():
            store.io[k] = v
        ex.tally[:] = np.asarray(cp["tally"], dtype=ex.tally.dtype)
        self._rebuild_table(ex, starts, level)
        n0 = starts[1]
        self.wd.read_rows(0, 0, n0, store.states[:n0])
        lo, hi = starts[level], starts[level + 1]
        if level > 0 and hi > lo:
            place_level(store.states, lo, hi, self.wd.level_path(level), self.wd.levels[level]["pad"])
            store.released_to = lo
        if ex.leaves and hi > lo:
            self.wd.read_leaf(level, store.noexp[lo:hi])
        for name, (state, action) in cp["witnesses"].items():
            ex.tracker.undecided.pop(name, None)
            ex.tracker.witness[name] = witness(state, action)

    def _rebuild_table(self, ex: Any, starts: list[int], level: int) -> None:
        """File the fingerprint of every state of levels ``0..level`` into the table, sized for them (the
        one-thread seed kernel with no property watched: each state filed, none checked)."""
        from . import counters
        from . import kernel as K
        from .compact import seed_compact
        store = ex.store
        count = starts[-1]
        slots = len(store.table)
        while count + ex.nact > int(slots * K.MAX_LOAD):
            slots *= 2
        if slots != len(store.table):
            store.table = np.zeros(slots, dtype=np.uint64)
            store.region_slots = slots
            store.io["table_limit"] = int(slots * K.MAX_LOAD)
        chunk = max(1, min(READ_CHUNK, count))
        rows = np.empty((chunk, ex.words), dtype=np.uint64)
        view = store.kernel_view()._replace(states=rows, parent=np.empty(chunk, dtype=np.int32),
                                            via=np.empty(chunk, dtype=np.int16))
        scratch = counters.new(counters.RUN, 1)
        scratch[0]["cap"] = scratch[0]["max_states"] = chunk
        masks = counters.new(counters.MASKS, 1)   # nothing watched: no state is checked again
        wit = np.full(64, -1, dtype=np.int64)
        for lv in range(level + 1):
            n = starts[lv + 1] - starts[lv]
            for a in range(0, n, chunk):
                b = min(n, a + chunk)
                self.wd.read_rows(lv, a, b, rows)
                scratch[0]["count"] = 0
                added = seed_compact(ex.props.state_check, ex.model.params, view, scratch, masks, wit, rows[:b - a])
                if added != b - a:
                    raise self.wd._refuse(f"level {lv}'s file holds a state of an earlier level (damaged)")

    def close(self) -> None:
        self.wd.close()
