"""waitress' own error answers (431, 400, 413, 501, a 500 from a crashed app) in the JSON shape of
server/errors.py, so a client parses every error of this server the same way.

waitress answers these before the app sees a request, as ``text/plain``. Its channel class names
the task that writes them (``HTTPChannel.error_task_class``) and its servers name their channel
class (``channel_class``): both are class attributes meant to be overridden, so this replaces no
waitress code, it subclasses the two and sets them on the servers ``create_server`` made.
"""
from __future__ import annotations

import json

import waitress
from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer
from waitress.task import ErrorTask

from .errors import error_body


class JsonErrorTask(ErrorTask):
    def execute(self):
        error = self.request.error
        body = json.dumps(error_body(error.code, f"{error.reason}: {error.body}"), separators=(",", ":")).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.append(("Content-Type", "application/json"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class JsonErrorChannel(HTTPChannel):
    error_task_class = JsonErrorTask


def create_server(app, **adjustments):
    """``waitress.create_server`` whose every listening socket answers its own errors as JSON."""
    sockets: dict = {}
    server = waitress.create_server(app, map=sockets, **adjustments)
    for dispatcher in sockets.values():
        if isinstance(dispatcher, BaseWSGIServer):
            dispatcher.channel_class = JsonErrorChannel
    return server
