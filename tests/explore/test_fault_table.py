"""``faults --table``: per durability setting, the smallest failure combinations that break each always
property. Each cell is checked against ``check`` run on that row's configuration once per budget vector."""
from __future__ import annotations

from explore import explore
from explore.faults import BUDGET_KNOBS, Lattice, minimal
from invariants import ALWAYS, PROPERTIES
from model import Config, RocketMQModel
from explore.fault_search import FaultSearch

ALWAYS_PROPS = PROPERTIES.select([p.name for p in PROPERTIES if p.kind == ALWAYS])
#: one master power loss at most, one message: every row explores a few thousand states per vector
SMALL = Config.from_mapping({"messages": 1, "max_master_crashes": 0})


def checked_cells(cfg: Config) -> dict[str, list[tuple[int, ...]]]:
    """Per always property, the minimal budget vectors under which ``check`` finds it violated."""
    violated: dict[str, list[tuple[int, ...]]] = {p.name: [] for p in ALWAYS_PROPS}
    for v in Lattice.of(cfg).vectors():
        r = explore(RocketMQModel(Config.from_mapping(dict(zip(BUDGET_KNOBS, v)), base=cfg)), ALWAYS_PROPS)
        for name, status in r.verdicts().items():
            if status == "violated":
                violated[name].append(v)
    return {name: minimal(vs) for name, vs in violated.items()}


def test_every_cell_agrees_with_check_per_row_and_budget_vector():
    report = FaultSearch(SMALL, ALWAYS_PROPS, jobs=1, max_configs=0, grow="none", table=True).run()
    rows = report.table
    assert [(r.setting["broker_role"], r.setting["flush_disk_type"]) for r in rows] == [
        ("ASYNC_MASTER", "ASYNC_FLUSH"), ("ASYNC_MASTER", "SYNC_FLUSH"), ("SYNC_MASTER", "ASYNC_FLUSH"),
        ("SYNC_MASTER", "SYNC_FLUSH")]
    broken = set()
    for row in rows:
        expected = checked_cells(Config.from_mapping(row.setting, base=SMALL))
        assert row.cells == expected, row.setting
        broken |= {n for n, c in row.cells.items() if c}
    # the table is no constant: the settings differ, and some guarantee breaks somewhere, another holds
    assert len({tuple(map(tuple, r.cells["acked_message_never_lost"])) for r in rows}) > 1
    assert broken and broken != set(rows[0].cells)
