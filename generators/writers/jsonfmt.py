"""JSON (manifest + facts in one document) and JSON Lines (one fact a line)."""
from __future__ import annotations

import json

from . import Renderer, _json, records, register


def _document(scenario, split: str) -> bytes:
    return _json({"manifest": scenario.manifest(), "split": split, "facts": records(scenario, split)})


def _lines(scenario, split: str) -> bytes:
    return "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in records(scenario, split)).encode("utf-8")


register(Renderer("json", "json", "application/json", _document))
register(Renderer("jsonl", "jsonl", "application/x-ndjson", _lines))
