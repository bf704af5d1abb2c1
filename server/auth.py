"""The token that mutating routes need (``FACTFORGE_TOKEN``), sent as ``Authorization: Bearer``."""
from __future__ import annotations

import functools
import hmac

from flask import current_app, request

from .errors import ApiError

CHALLENGE = {"WWW-Authenticate": 'Bearer realm="factforge"'}


def require_token(view):
    """401 unless the request carries the server's token; a server started without one refuses all."""

    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        expected = current_app.config.get("TOKEN")
        if not expected:
            raise ApiError(401, "this server was started without FACTFORGE_TOKEN, so it accepts no changes",
                           "Authorization", CHALLENGE)
        header = request.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), expected.encode()):
            raise ApiError(401, "Authorization: a valid 'Bearer <FACTFORGE_TOKEN>' header is required",
                           "Authorization", CHALLENGE)
        return view(*args, **kwargs)

    return wrapped
