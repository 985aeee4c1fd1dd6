"""The JSON Schema of every JSON rmqcheck writes (``check``, ``simulate``, ``matrix``, ``faults``, ``bench``
``--json``), shipped as package data (``reports/result.schema.json``).

``rmqcheck schema`` prints it; the tests validate every JSON the tool writes against it. Keys beyond the
schema's may be present (it never sets ``additionalProperties: false``): a reader keeps working when a
later version adds statistics.
"""
from __future__ import annotations

import json
from importlib import resources
from typing import Any

SCHEMA_FILE = "result.schema.json"


def schema_text() -> str:
    """The schema file's text, exactly as shipped."""
    return resources.files("reports").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def result_schema() -> dict[str, Any]:
    """The shipped schema: its root sends each document to its definition (a check or simulate result, a
    matrix, a faults result, a bench run)."""
    return json.loads(schema_text())


def matrix_schema() -> dict[str, Any]:
    """The schema of ``matrix --json``: the same document, rooted at its ``matrix`` definition."""
    schema = result_schema()
    schema["$ref"] = "#/$defs/matrix"
    schema["title"] = "rmqcheck matrix result"
    return schema


def faults_schema() -> dict[str, Any]:
    """The schema of ``faults --json``: the same document, rooted at its ``faults`` definition."""
    schema = result_schema()
    schema["$ref"] = "#/$defs/faults"
    schema["title"] = "rmqcheck faults result"
    return schema
