"""The toy mode's release line: one release, its reference, no version switch."""
from __future__ import annotations

from model.versions import Release, ReleaseLine

LINE = ReleaseLine(mode="toy", reference="1.0.0", releases=(Release("1.0.0", "2026-01-01", "the toy's only release"),),
                   switches=())
