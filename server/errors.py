"""One JSON shape for every error the HTTP layer returns, so clients handle errors once.

``{"ok": false, "status": 422, "error": "size: must be at most 100000", "field": "size"}`` — the
field is present when one input is to blame. Unexpected exceptions become a 500 with no traceback
in the body (it goes to the server log instead).
"""
from __future__ import annotations

import logging
import os

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

log = logging.getLogger("factforge.server")


class ApiError(Exception):
    def __init__(self, status: int, message: str, field: str | None = None, headers: dict | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field
        self.headers = headers or {}


def without_folder(text: str, folder) -> str:
    """``text`` with the files under ``folder`` named relative to it: a client learns which file,
    not where the server keeps its data."""
    return text.replace(os.path.join(str(folder), ""), "")


def error_body(status: int, message: str, field: str | None = None) -> dict:
    body = {"ok": False, "status": status, "error": message}
    if field:
        body["field"] = field
    return body


def error_response(status: int, message: str, field: str | None = None, headers: dict | None = None):
    response = jsonify(error_body(status, message, field))
    response.status_code = status
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def install(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(error: ApiError):
        return error_response(error.status, error.message, error.field, error.headers)

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException):
        headers = {}
        if error.code == 405 and error.valid_methods:
            headers["Allow"] = ", ".join(error.valid_methods)
        message = {413: f"body: larger than the limit of {app.config.get('MAX_CONTENT_LENGTH')} bytes",
                   404: "not found", 405: "method not allowed"}.get(error.code, error.description)
        return error_response(error.code or 500, message, headers=headers)

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):
        log.exception("unexpected error")
        return error_response(500, f"internal error ({type(error).__name__}); the server log has the details")
