"""The engine core's shape: one expansion step, entry points of a readable size, counters by name.

These read the source (an AST), so they fail as soon as a second expansion loop or a long hand-written
entry point comes back, whatever the tests of behaviour say.
"""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from explore import counters

ROOT = Path(__file__).resolve().parents[2]
ENGINE = sorted((ROOT / "explore").glob("*.py")) + sorted((ROOT / "spark_explore").glob("*.py"))
MAX_ENTRY_PARAMETERS = 12


def compiled_functions(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            decorator = ast.unparse(node.decorator_list[0])
            if "njit" in decorator or decorator.startswith("kernel"):
                yield node, decorator


def calls_to(path: Path, name: str) -> list[str]:
    """The functions of ``path`` that call ``name`` (a plain or an attribute call)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call):
                    f = sub.func
                    if (isinstance(f, ast.Name) and f.id == name) or (isinstance(f, ast.Attribute) and f.attr == name):
                        found.append(node.name)
    return found


def test_no_compiled_entry_point_takes_more_than_twelve_parameters():
    long = [f"{path.relative_to(ROOT)}:{fn.name} ({len(fn.args.args)})" for path in ENGINE
            for fn, decorator in compiled_functions(path)
            if "njit" in decorator and len(fn.args.args) > MAX_ENTRY_PARAMETERS]
    assert long == []


def test_successors_are_generated_by_the_one_expansion_step_only():
    # explore.step.generate is called by expand_state (every engine's expansion) and generate_one
    # (simulation's single steps); any other caller is a second expansion loop
    callers = {f"{path.relative_to(ROOT)}:{fn}" for path in ENGINE for fn in calls_to(path, "generate")}
    assert callers == {"explore/step.py:expand_state", "explore/step.py:generate_one"}
    users = {f"{path.relative_to(ROOT)}:{fn}" for path in ENGINE for fn in calls_to(path, "expand_state")}
    # the exact store's (one thread and threads), the compact set's (explore/compact.py; its threads' rounds,
    # explore/compact_rounds.py) and Spark's batches
    # (and its recording of the graph for the graph and eventually properties, explore/compact_graph_kernels.py)
    assert users == {"explore/kernel.py:expand_stored", "explore/compact.py:expand_compact",
                     "explore/compact_graph_kernels.py:expand_compact_recording",
                     "explore/compact_graph_kernels.py:_record_slice",
                     "explore/compact_rounds.py:_buffer_slice", "spark_explore/batch.py:expand_batch"}
    stored = {f"{path.relative_to(ROOT)}:{fn}" for path in ENGINE for fn in calls_to(path, "expand_stored")}
    assert stored == {"explore/kernel.py:expand", "explore/threaded.py:_expand_slice"}


def test_every_counter_record_has_the_fields_the_step_writes():
    for dtype in (counters.RUN, counters.SLICE, counters.BATCH):
        assert set(counters.STEP_FIELDS) <= set(dtype.names), dtype
    # a slice's and a block's counters fill cache lines of their own
    assert counters.SLICE.itemsize == counters.BLOCK.itemsize == counters.SLICE_BYTES
    one = counters.new(counters.RUN)
    one.count += 3   # a record, read and written by name, a view of its array
    assert one["count"] == 3 and isinstance(counters.new(counters.SLICE, 4), np.ndarray)


def test_no_kernel_indexes_counters_by_module_constants():
    # the int-vector slots these records replaced (IO_*, T_*, B_*, MK_*) stay gone
    import re
    pattern = re.compile(r"\b(IO|MK|B)_[A-Z]+\b|\bT_(TRANS|EDGES|NLEAF|STATUS|POS|ERR_[A-Z]+)\b")
    hits = [f"{path.relative_to(ROOT)}:{n}" for path in ENGINE
            for n, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert hits == []
