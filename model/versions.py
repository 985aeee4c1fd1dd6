"""RocketMQ releases and version switches: how each release of a mode's line behaves, as knob values.

rmqcheck models one code snapshot per mode, its *reference release* (4.4.0 for mode 4.4, 5.3.3 for the
controller mode). Between releases the replication code changed; each change the model's mechanisms can
express is a **version switch**: a knob (snake_case, named after the behaviour) whose value before the
commit's first release differs from its value from that release on. ``--rocketmq-version X.Y.Z`` (TOML
``rocketmq_version``) sets every switch of the mode's line to release X.Y.Z's behaviour; an explicit
``--set switch=...`` still wins ("what if").

Each mode registers its :class:`ReleaseLine` (``Mode.releases_path``, model/modes.py): the releases it
accepts, its switches (commit, first release, the rule before and after, ``Class#method``, the kernel
branch and the test that shows it) and the changes read but not modelled, with the reason. The facts come
from apache/rocketmq's history (``git tag --contains COMMIT``: docs/versions.md says how to re-derive them);
no RocketMQ source is copied here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from .knobs import ConfigError

__all__ = ["Release", "Switch", "NotModelled", "ReleaseLine", "version_key", "release_line", "release_of",
           "config_dict", "with_release", "tag_of"]

#: a version as users write it: X.Y.Z, or the git tag rocketmq-all-X.Y.Z
_VERSION = re.compile(r"(?:rocketmq-all-)?([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})")
#: the prefix of apache/rocketmq's release tags
TAG_PREFIX = "rocketmq-all-"


def version_key(version: str) -> tuple[int, int, int]:
    """``"4.9.4"`` as ``(4, 9, 4)``, for ordering releases."""
    match = _VERSION.fullmatch(version)
    if match is None:
        raise ValueError(f"not a version: {version!r}")
    return tuple(int(x) for x in match.groups())  # type: ignore[return-value]


def tag_of(version: str) -> str:
    return TAG_PREFIX + version


@dataclass(frozen=True)
class Release:
    """One release of a line: ``version`` X.Y.Z, its git tag, and a note (e.g. a tag the history lacks)."""

    version: str
    date: str = ""                  # the tag's date, YYYY-MM-DD ("" when the tag is not in the history read)
    note: str = ""

    @property
    def tag(self) -> str:
        return tag_of(self.version)

    @property
    def key(self) -> tuple[int, int, int]:
        return version_key(self.version)


@dataclass(frozen=True)
class Switch:
    """One behaviour change of RocketMQ between two releases of a line.

    ``knob`` is the configuration knob that carries it ("" while the switch is declared but not modelled:
    ``why_not`` says why); its value is ``before`` for releases older than ``first`` and ``after`` from
    ``first`` on (``values``: (before, after)). ``pinned`` names the configuration of tests/tooling/pinned.toml
    where setting the switch alone changes a count or a verdict; where none can at the model's bounds,
    ``not_at_bounds`` says why.
    """

    name: str
    commit: str                     # the full 40-hex commit hash in apache/rocketmq
    first: str                      # the first release that contains it (git tag --contains COMMIT)
    before: str                     # the rule before, one sentence
    after: str                      # the rule from ``first`` on, one sentence
    rocketmq: str                   # Class#method
    issue: str = ""                 # the RocketMQ issue or pull request, "#3015"
    knob: str = ""                  # the knob that carries it; "" = not modelled (yet)
    values: tuple[Any, Any] = (False, True)
    kernel: str = ""                # the kernel branch: module, function and the action it changes
    test: str = ""                  # the test that shows the branch (path::name)
    pinned: str = ""                # a configuration of tests/tooling/pinned.toml showing it
    not_at_bounds: str = ""         # why no small configuration shows it (when ``pinned`` is "")
    why_not: str = ""               # why it is not modelled (when ``knob`` is "")
    also: tuple[str, ...] = ()      # further commits of the same change (full hashes)

    @property
    def modelled(self) -> bool:
        return bool(self.knob)

    def value_at(self, version: str) -> Any:
        return self.values[1] if version_key(version) >= version_key(self.first) else self.values[0]


@dataclass(frozen=True)
class NotModelled:
    """A change read in the history that is no switch: outside the model, timing only, or no effect."""

    change: str
    first: str
    why: str
    commits: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReleaseLine:
    """The releases of one model mode and the switches between them."""

    mode: str
    reference: str                          # the release the mode's defaults are (every knob default)
    releases: tuple[Release, ...]
    switches: tuple[Switch, ...]
    not_modelled: tuple[NotModelled, ...] = ()
    #: the releases ``--rocketmq-version`` accepts now; empty = every release of the line
    checkable: tuple[str, ...] = ()
    #: why the other releases are not accepted yet (with ``checkable``)
    pending: str = ""

    def versions(self) -> tuple[str, ...]:
        return tuple(r.version for r in self.releases)

    def accepted(self) -> tuple[str, ...]:
        return self.checkable or self.versions()

    def knows(self, version: str) -> bool:
        return version in self.versions()

    def find(self, version: str) -> Release | None:
        return next((r for r in self.releases if r.version == version), None)

    def modelled(self) -> tuple[Switch, ...]:
        return tuple(s for s in self.switches if s.modelled)

    def knob_values(self, version: str) -> dict[str, Any]:
        """Every modelled switch's knob value at release ``version``."""
        return {s.knob: s.value_at(version) for s in self.modelled()}

    def changes_at(self, version: str) -> tuple[Switch, ...]:
        """The switches whose first release is ``version``."""
        return tuple(s for s in self.switches if s.first == version)

    def same_as(self, version: str) -> str:
        """The oldest release whose modelled switches all have ``version``'s values (``version`` itself
        when a modelled switch changes at it)."""
        values = self.knob_values(version)
        return next(r.version for r in self.releases if self.knob_values(r.version) == values)


#: the git commands that re-derive every line's table from apache/rocketmq's history
DERIVE = (
    'G="git --git-dir=PATH/TO/rocketmq.git"    # a clone of https://github.com/apache/rocketmq',
    "$G tag -l 'rocketmq-all-4.*' 'rocketmq-all-5.*' | sort -V",
    "$G merge-base --is-ancestor rocketmq-all-4.4.0 rocketmq-all-4.5.1 && echo ancestor",
    "$G log --no-merges --format='%h %ad %s' --date=short TAG1..TAG2 -- PATHS   # candidate commits",
    "$G diff TAG1 TAG2 -- PATH    # the net change: drops a commit whose effect the older tag already had",
    "$G show COMMIT -- PATH",
    "$G log --format='%H %s' -S'ADDED TEXT' TAG1..TAG2 -- PATH   # the commit of a hunk",
    "$G tag --contains COMMIT | grep '^rocketmq-all-' | sort -V | head -1   # its first release",
)


def _lines() -> dict[str, ReleaseLine]:
    from .modes import MODES
    return {name: mode.release_line() for name, mode in MODES.items()}


def release_line(mode: str) -> ReleaseLine:
    """The release line mode ``mode`` registered."""
    from .modes import get_mode
    return get_mode(mode).release_line()


def normalize(text: Any, mode: str, where: str = "RocketMQ version") -> str:
    """``text`` (``--rocketmq-version``, TOML ``rocketmq_version``) as a release of ``mode``'s line that rmqcheck
    checks, X.Y.Z; :class:`ConfigError` listing the known releases otherwise: an unknown version, a release
    of another mode's line, or a release of the line that is known but not modelled yet. ``where`` names
    the input in the message (``--rocketmq-version``)."""
    line = release_line(mode)
    match = _VERSION.fullmatch(text) if isinstance(text, str) else None
    version = ".".join(str(int(x)) for x in match.groups()) if match else None
    if version is None or not line.knows(version):
        given = repr(text)
        other = next((m for m, other_line in _lines().items() if m != mode and version and other_line.knows(version)),
                     None)
        why = (f"a release of mode {other} (--mode {other}), not of mode {mode}" if other
               else "not a release rmqcheck knows" if version else "not a version (X.Y.Z, e.g. 4.9.4)")
        raise ConfigError(f"{where} {given}: {why}; mode {mode} knows: {', '.join(line.accepted())}"
                          + (f" (not modelled yet: {', '.join(_pending(line))})" if line.checkable else ""))
    if version not in line.accepted():
        raise ConfigError(f"{where} {version!r}: {line.pending}; mode {mode} checks "
                          f"{', '.join(line.accepted())} (known, not modelled yet: {', '.join(_pending(line))})")
    return version


def _pending(line: ReleaseLine) -> list[str]:
    return [v for v in line.versions() if v not in line.accepted()]


def release_of(config: Any) -> str:
    """The release ``config`` checks: its ``rocketmq_version``, else its mode's reference release."""
    from .modes import mode_of
    return getattr(config, "rocketmq_version", None) or mode_of(config).release_line().reference


def config_dict(config: Any) -> dict[str, Any]:
    """``config.as_dict()`` naming the release it checks (``rocketmq_version``), in every mode."""
    values = config.as_dict()
    values.setdefault("rocketmq_version", release_of(config))
    return values


def with_release(config: Any, version: Any, where: str = "RocketMQ version") -> Any:
    """``config`` at release ``version`` of its mode's line: the version recorded and every modelled switch set
    to that release's value (:class:`ConfigError` for a release the mode does not check, naming ``where``)."""
    from .modes import mode_of
    mode = mode_of(config).name
    version = normalize(version, mode, where)
    if not hasattr(config, "rocketmq_version"):   # a mode that checks its reference release only
        return config
    return config.from_mapping({"rocketmq_version": version}, base=config)


def switch_rows(line: ReleaseLine) -> Iterable[tuple[Release, tuple[Switch, ...]]]:
    """Each release of ``line`` with the switches that change at it."""
    for release in line.releases:
        yield release, line.changes_at(release.version)
