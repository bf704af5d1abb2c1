"""What a failed scenario or release job says to a client: an HTTP status and a message for each way
it can fail. The job runner (publish/jobs.py) records what these functions return, in the job's
status file and its status answers; it knows no HTTP itself."""
from __future__ import annotations

import logging
import os
from typing import Callable

from factforge.generators.positives import NotEnoughFacts
from factforge.generators.spec import SpecError
from factforge.publish.jobs import MakerStopped
from factforge.publish.releases import ReleaseError, ReleaseExists
from factforge.sparql.store import StoreError

from .errors import without_folder

log = logging.getLogger("factforge.server")

STOPPED = ("the server process making this stopped before it finished; "
           "send the same request again to start it over")


def _common(error: BaseException) -> dict | None:
    """The failures scenarios and releases share; None for the others."""
    if isinstance(error, MakerStopped):  # retrying may well work: another process takes it up
        return {"status": 503, "error": STOPPED}
    if isinstance(error, StoreError):
        return {"status": 502, "error": f"the store could not answer: {error}"}
    return None


def scenario_failure(key: str, error: BaseException) -> dict:
    if isinstance(error, (SpecError, NotEnoughFacts)):
        return {"status": 422, "error": str(error), "field": getattr(error, "field", None)}
    common = _common(error)
    if common is not None:
        return common
    # A generator bug: the exception's text may name the server's folders; the log has it.
    log.error("generation of %s failed", key, exc_info=error)
    return {"status": 500, "error": f"generation failed ({type(error).__name__}); the server log has the details"}


def release_failure(root: str | os.PathLike) -> Callable[[str, BaseException], dict]:
    """The failures of releases made in ``root``, whose path the messages leave out."""

    def failure(key: str, error: BaseException) -> dict:
        if isinstance(error, ReleaseError):
            status = 409 if isinstance(error, ReleaseExists) else 422
            return {"status": status, "error": without_folder(str(error), root), "field": error.field}
        common = _common(error)
        if common is not None:
            return common
        log.error("release %s failed", key, exc_info=error)
        return {"status": 500, "error": f"release failed ({type(error).__name__})"}

    return failure
