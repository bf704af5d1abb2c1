"""Running user-written SPARQL for ``/sparql`` read-only, within a time limit and a row cap.

Queries run on a small pool of worker threads (pyoxigraph releases the GIL while it evaluates),
so a request thread waits at most the time limit and then answers 503. The hand-off is a queue
and one lock per query (measured in-process: about 0.2 ms a request less than a
ThreadPoolExecutor's Future on a light query, 0.5 ms on an aggregate). Oxigraph cannot abort a
running query: a worker that overran stops at its next row, or when a single blocking step (a big
aggregate) ends. The pool is small on purpose, so runaway queries cannot take every thread — a
query that finds the pool busy waits in line and times out like any other.

Only ``Store.query`` is ever called, never ``update``; refusing updates up front is for a clear
message, not for safety.
"""
from __future__ import annotations

import _thread
import logging
import queue
import re
import threading
import time
from dataclasses import dataclass

import pyoxigraph as ox

from sparql import results
from sparql.embedded import EmbeddedStore
from sparql.store import Store, StoreError

_PROLOGUE = re.compile(r"(?is)\A(?:\s+|#[^\n]*\n?|(?:PREFIX\s+[^\s:]*:\s*<[^>]*>)|(?:BASE\s+<[^>]*>))*")
_FORM = re.compile(r"(?i)\A(SELECT|ASK|CONSTRUCT|DESCRIBE|INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)\b")
log = logging.getLogger("factforge.server")
UPDATE_FORMS = {"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH"}


class QueryRefused(Exception):
    """The query cannot be answered; ``status`` is the HTTP status that says why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def query_form(text: str) -> str | None:
    """SELECT, ASK, CONSTRUCT, DESCRIBE or an update keyword, read after the prologue; None if unclear."""
    rest = text[_PROLOGUE.match(text).end():]
    match = _FORM.match(rest)
    return match.group(1).upper() if match else None


@dataclass
class Answer:
    body: bytes
    media_type: str
    rows: int | None = None


class _Job:
    """One query handed to a worker; ``done`` is released by the worker when ``outcome`` is set."""

    __slots__ = ("args", "done", "outcome")

    def __init__(self, args: tuple):
        self.args = args
        self.done = _thread.allocate_lock()
        self.done.acquire()
        self.outcome: Answer | QueryRefused | None = None


class QueryRunner:
    def __init__(self, store: Store, *, timeout: float = 30.0, row_cap: int = 100_000, workers: int = 2):
        self.store = store
        self.timeout = timeout
        self.row_cap = row_cap
        # A bare queue and a lock per job rather than a ThreadPoolExecutor: the hand-off is on every
        # /sparql request, and a Future's Condition costs about twice the Python (and GIL hand-offs)
        # of a C queue put plus one lock release/acquire.
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._closed = False
        self._workers = [threading.Thread(target=self._work, name=f"sparql-{n}", daemon=True) for n in range(workers)]
        for worker in self._workers:
            worker.start()

    def run(self, text: str, result_format: str, graph_format: str) -> Answer:
        form = query_form(text)
        if form in UPDATE_FORMS:
            raise QueryRefused(403, "this endpoint is read-only: SPARQL updates are refused")
        if self._closed:
            raise QueryRefused(503, "query: the server is shutting down")
        deadline = time.monotonic() + self.timeout
        cancelled = threading.Event()
        job = _Job((text, result_format, graph_format, deadline, cancelled))
        self._queue.put(job)
        if not job.done.acquire(timeout=max(0.0, deadline - time.monotonic())):
            cancelled.set()
            raise QueryRefused(503, f"query: stopped at the time limit of {self.timeout:g} s; narrow it or add a LIMIT")
        answer = job.outcome
        if isinstance(answer, QueryRefused):
            raise QueryRefused(answer.status, answer.message)
        return answer

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            try:
                if self._closed:
                    job.outcome = QueryRefused(503, "query: the server is shutting down")
                else:
                    job.outcome = self._answer(*job.args)
            except Exception as error:  # a bug must neither kill the worker nor leave the request waiting
                log.error("query failed: %s: %s", type(error).__name__, error)  # no traceback: it holds results
                job.outcome = QueryRefused(500, f"query failed ({type(error).__name__}); the server log has the details")
            finally:
                job.done.release()

    def _answer(self, text: str, result_format: str, graph_format: str, deadline: float,
                cancelled: threading.Event) -> Answer | QueryRefused:
        """The answer, or the refusal as a value: pyoxigraph results must be dropped on the thread
        that made them, and a raised exception would carry them (in its traceback) to the request
        thread."""
        try:
            return self._evaluate(text, result_format, graph_format, deadline, cancelled)
        except QueryRefused as refused:
            failure = QueryRefused(refused.status, refused.message)
        return failure

    def _evaluate(self, text: str, result_format: str, graph_format: str, deadline: float,
                  cancelled: threading.Event) -> Answer:
        if cancelled.is_set() or time.monotonic() > deadline:
            raise QueryRefused(503, f"query: stopped at the time limit of {self.timeout:g} s (waited for a worker)")
        if not isinstance(self.store, EmbeddedStore):
            return self._forward(text, result_format, graph_format)
        try:
            result = self.store.db.query(text, use_default_graph_as_union=True)
        except SyntaxError as error:
            raise QueryRefused(400, f"query: SPARQL syntax error: {error}") from None
        except OSError as error:
            raise QueryRefused(500, f"query failed: {error}") from None

        def rows(items):
            taken = 0
            for item in items:
                taken += 1
                if taken > self.row_cap:
                    raise QueryRefused(422, f"query: more than the row cap of {self.row_cap} results; add a LIMIT")
                if cancelled.is_set() or (taken % 256 == 0 and time.monotonic() > deadline):
                    raise QueryRefused(503, f"query: stopped at the time limit of {self.timeout:g} s")
                yield item

        try:
            if isinstance(result, ox.QueryBoolean):
                return Answer(results.ask_bytes(bool(result), result_format), results.RESULT_MEDIA[result_format])
            if isinstance(result, ox.QuerySolutions):
                variables = [v.value for v in result.variables]
                collected = [tuple(solution) for solution in rows(result)]
                body = results.SELECT_WRITERS[result_format](variables, collected)
                return Answer(body, results.RESULT_MEDIA[result_format], len(collected))
            triples = list(rows(result))
            return Answer(results.graph_bytes(triples, graph_format), results.GRAPH_MEDIA[graph_format][1],
                          len(triples))
        except OSError as error:
            raise QueryRefused(500, f"query failed: {error}") from None

    def _forward(self, text: str, result_format: str, graph_format: str) -> Answer:
        """A remote endpoint enforces its own limits; we pass the query on with our timeout."""
        form = query_form(text)
        name = graph_format if form in ("CONSTRUCT", "DESCRIBE") else result_format
        try:
            body, media = self.store.run_query(text, name)
        except StoreError as error:
            raise QueryRefused(502 if "unreachable" in str(error) else 400, f"query: {error}") from None
        return Answer(body, media)

    def close(self) -> None:
        self._closed = True
        for _worker in self._workers:
            self._queue.put(None)
