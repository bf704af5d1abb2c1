"""A scenario's folder as factforge publishes it: the data files of the writers, with the shortcut
audit of the scenario in its manifest."""
from __future__ import annotations

import os

from factforge.evaluation.audit import audit_scenario
from factforge.generators.scenario import Scenario
from factforge.generators.writers import write_files


def write_scenario(scenario: Scenario, out_dir: str | os.PathLike, names: list[str], *,
                   reference_from=None, store=None, removed_only: bool = False) -> dict:
    """Write the chosen formats, the answers, R as reference.nt when ``reference_from`` is the KB
    (``removed_only``: as reference.removed.nt, what R lacks of it), and a manifest holding the
    audit report and the sha256 of every file; the manifest."""
    kb = store if store is not None else reference_from
    return write_files(scenario, out_dir, names, reference_from=reference_from, store=store,
                       extra={"audit": audit_scenario(scenario, kb)}, removed_only=removed_only)
