"""Running user-written SPARQL for ``/sparql`` read-only, within a time limit, a row cap and a queue bound.

Every query is first checked as text (server/query_guard.py: size, nesting, SERVICE). On an
embedded store it then runs in a child process (server/query_host.py), one per query worker, so
that a query past its time limit is really stopped (the child is killed and replaced) and one
that crashes the SPARQL engine costs only the child. A remote endpoint enforces its own limits;
its queries are passed on from a worker thread with our timeout.

At most ``workers`` queries run at once and at most ``queue`` more wait for a worker; any further
``/sparql`` request is answered 503 with Retry-After at once. The request threads that ``/sparql``
can hold are so bounded, and the API, the console and cached GETs keep theirs.

Only ``Store.query`` is ever called, never ``update``; refusing updates up front is for a clear
message, not for safety.
"""
from __future__ import annotations

import _thread
import json
import logging
import math
import queue
import re
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Iterable
from multiprocessing.connection import Connection

from factforge.sparql.answer_file import AnswerFile
from factforge.sparql.embedded import EmbeddedStore
from factforge.sparql.store import Store, StoreError

from .query_guard import QueryLimits, QueryRefused, check_query

__all__ = ["Answer", "QueryLimits", "QueryRefused", "QueryRunner", "query_form"]

_PROLOGUE = re.compile(r"(?is)\A(?:\s+|#[^\n]*\n?|(?:PREFIX\s+[^\s:]*:\s*<[^>]*>)|(?:BASE\s+<[^>]*>))*")
_FORM = re.compile(r"(?i)\A(SELECT|ASK|CONSTRUCT|DESCRIBE|INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)\b")
log = logging.getLogger("factforge.server")
UPDATE_FORMS = {"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH"}
#: how long past the deadline a query process may take to send its own time-limit answer before
#: it is killed (it checks the clock between rows)
KILL_GRACE = 0.5
#: a query process must be up within this many seconds of being started (it opens the store)
START_TIMEOUT = 120.0


def query_form(text: str) -> str | None:
    """SELECT, ASK, CONSTRUCT, DESCRIBE or an update keyword, read after the prologue; None if unclear."""
    rest = text[_PROLOGUE.match(text).end():]
    match = _FORM.match(rest)
    return match.group(1).upper() if match else None


@dataclass
class Answer:
    body: bytes | AnswerFile  # a file: an endpoint's answer, copied out in chunks
    media_type: str
    rows: int | None = None

    @property
    def size(self) -> int:
        return len(self.body) if isinstance(self.body, bytes) else self.body.size

    def chunks(self) -> Iterable[bytes]:
        return [self.body] if isinstance(self.body, bytes) else self.body.chunks()


class _Job:
    """One query handed to a worker; ``done`` is released by the worker when ``outcome`` is set."""

    __slots__ = ("request", "deadline", "done", "outcome")

    def __init__(self, request: dict, deadline: float):
        self.request = request
        self.deadline = deadline
        self.done = _thread.allocate_lock()
        self.done.acquire()
        self.outcome: Answer | QueryRefused | None = None


class QueryRunner:
    def __init__(self, store: Store, *, timeout: float = 30.0, row_cap: int = 100_000, workers: int = 2,
                 queue_size: int = 2, limits: QueryLimits | None = None, warm: bool = False,
                 memory_mb: int = 2048):
        """``warm``: start the query processes now, not at the first query (a server does; the many
        apps that tests make and never query do not pay for them)."""
        self.store = store
        self.timeout = timeout
        self.row_cap = row_cap
        self.workers = workers
        self.queue_size = queue_size
        self.limits = limits or QueryLimits()
        self.memory_mb = memory_mb
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._closed = False
        self._count_lock = threading.Lock()
        self._admitted = 0   # running + waiting
        self._running = 0
        if isinstance(store, EmbeddedStore):
            source = _StoreSource(store)
            self._hosts = [_ProcessHost(self, source, n) for n in range(workers)]
        else:
            self._hosts = [_ForwardHost(self, n) for n in range(workers)]
        for host in self._hosts:
            host.warm = warm
            host.thread.start()

    # --- the request side ------------------------------------------------------------------------
    def run(self, text: str, result_format: str, graph_format: str) -> Answer:
        form = query_form(text)
        if form in UPDATE_FORMS:
            raise QueryRefused(403, "this endpoint is read-only: SPARQL updates are refused")
        if self._closed:
            raise QueryRefused(503, "query: the server is shutting down")
        check_query(text, self.limits)
        with self._count_lock:
            if self._admitted >= self.workers + self.queue_size:
                raise QueryRefused(503, f"query: the SPARQL endpoint is busy ({self.workers} queries running, "
                                        f"{self.queue_size} waiting); try again later",
                                   {"Retry-After": str(max(1, math.ceil(min(self.timeout, 10.0))))})
            self._admitted += 1
        try:
            deadline = time.monotonic() + self.timeout
            job = _Job({"query": text, "result_format": result_format, "graph_format": graph_format,
                        "deadline": deadline, "row_cap": self.row_cap, "timeout_text": f"{self.timeout:g}"},
                       deadline)
            self._queue.put(job)
            # the worker answers by the deadline plus its kill grace; waiting longer would only
            # cover a bug in it
            if not job.done.acquire(timeout=self.timeout + KILL_GRACE + 5.0):
                raise self._time_limit()
            if isinstance(job.outcome, QueryRefused):
                raise QueryRefused(job.outcome.status, job.outcome.message, job.outcome.headers)
            return job.outcome
        finally:
            with self._count_lock:
                self._admitted -= 1

    def load(self) -> dict:
        """Queries running and waiting now: for /api/kb, and for tests that wait for a state."""
        with self._count_lock:
            return {"sparql_running": self._running, "sparql_waiting": self._admitted - self._running}

    def _time_limit(self, waited: bool = False) -> QueryRefused:
        return QueryRefused(503, f"query: stopped at the time limit of {self.timeout:g} s"
                                 + (" (waited for a worker)" if waited else "; narrow it or add a LIMIT"))

    # --- the worker side -------------------------------------------------------------------------
    def _next_job(self) -> _Job | None:
        job = self._queue.get()
        if job is not None:
            with self._count_lock:
                self._running += 1
        return job

    def _finish(self, job: _Job, outcome: Answer | QueryRefused) -> None:
        with self._count_lock:
            self._running -= 1
        job.outcome = outcome
        job.done.release()

    def close(self) -> None:
        self._closed = True
        for _host in self._hosts:
            self._queue.put(None)
        for host in self._hosts:
            host.stop()


class _StoreSource:
    """What a query process opens: the store's folder read-only, or a copy of an in-memory store
    (made once, on first use)."""

    def __init__(self, store: EmbeddedStore):
        self.path = str(store.db_path) if store.db_path is not None else None
        self._store = store
        self._dump: bytes | None = None
        self._lock = threading.Lock()

    def dump(self) -> bytes:
        with self._lock:
            if self._dump is None:
                self._dump = self._store.nquads()
            return self._dump


class _Host:
    def __init__(self, runner: QueryRunner, slot: int):
        self.runner = runner
        self.thread = threading.Thread(target=self._work, name=f"sparql-{slot}", daemon=True)
        self.warm = False

    def _work(self) -> None:
        runner = self.runner
        while True:
            if self.warm:
                self.warm = False
                try:
                    self.start()
                except Exception as error:  # noqa: BLE001 - the first query tries again and reports
                    log.error("a query process did not start: %s: %s", type(error).__name__, error)
            job = runner._next_job()
            if job is None:
                return
            try:
                if runner._closed:
                    outcome = QueryRefused(503, "query: the server is shutting down")
                elif time.monotonic() > job.deadline:
                    outcome = runner._time_limit(waited=True)
                else:
                    outcome = self.answer(job)
            except Exception as error:  # a bug must neither kill the worker nor leave the request waiting
                log.error("query failed: %s: %s", type(error).__name__, error)
                outcome = QueryRefused(500, f"query failed ({type(error).__name__}); the server log has the details")
            runner._finish(job, outcome)

    def answer(self, job: _Job) -> Answer | QueryRefused:
        raise NotImplementedError

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


class _ForwardHost(_Host):
    """A remote endpoint: the query is passed on; the endpoint and our HTTP timeout bound it."""

    def answer(self, job: _Job) -> Answer | QueryRefused:
        request = job.request
        form = query_form(request["query"])
        name = request["graph_format"] if form in ("CONSTRUCT", "DESCRIBE") else request["result_format"]
        try:
            answer = self.runner.store.answer_file(request["query"], name, row_cap=self.runner.row_cap)
        except StoreError as error:  # the endpoint store's errors say whose fault they are
            return QueryRefused(getattr(error, "client_status", 400), f"query: {error}")
        return Answer(answer, answer.media_type, answer.rows)


class _ProcessHost(_Host):
    """One query process (server/query_host.py), started when first needed and again after it was
    killed or died."""

    def __init__(self, runner: QueryRunner, source: _StoreSource, slot: int):
        super().__init__(runner, slot)
        self.source = source
        self.process: subprocess.Popen | None = None
        self.conn: Connection | None = None

    def answer(self, job: _Job) -> Answer | QueryRefused:
        try:
            self._ensure_started(job.deadline)
        except _NotReady as error:
            return error.refusal
        try:
            self.conn.send_bytes(json.dumps(job.request).encode())
            if not self.conn.poll(max(0.0, job.deadline - time.monotonic()) + KILL_GRACE):
                self._kill()
                return self.runner._time_limit()
            header = json.loads(self.conn.recv_bytes())
            if not header["ok"]:
                return QueryRefused(header["status"], header["message"])
            body = self.conn.recv_bytes()
        except (EOFError, OSError):
            status = self._kill()
            log.warning("a query process died (status %s) on a query of %d characters", status,
                        len(job.request["query"]))
            return QueryRefused(400, f"query: the SPARQL engine stopped on this query and was restarted: it "
                                     f"needed more than the memory limit of {self.runner.memory_mb} MB, or it is "
                                     f"nested or chained too deeply")
        return Answer(body, header["media"], header["rows"])

    def start(self) -> None:
        try:
            self._ensure_started(time.monotonic() + START_TIMEOUT)
        except _NotReady:
            pass  # logged; the first query tries again

    def _ensure_started(self, deadline: float) -> None:
        if self.process is not None and self.process.poll() is None:
            return
        self._kill()
        ours, theirs = socket.socketpair()
        try:
            self.process = subprocess.Popen([sys.executable, "-m", "factforge.server.query_host", str(theirs.fileno()),
                                             str(self.runner.memory_mb)],
                                            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL)
        finally:
            theirs.close()
        self.conn = Connection(ours.detach())
        # the first start may take longer than one query's limit (a big store opens slowly), and
        # the next query profits from it: wait for readiness up to START_TIMEOUT
        wait = max(deadline - time.monotonic(), START_TIMEOUT)
        try:
            self.conn.send_bytes(json.dumps({"path": self.source.path}).encode())
            if self.source.path is None:
                self.conn.send_bytes(self.source.dump())
            ready = self.conn.poll(wait) and json.loads(self.conn.recv_bytes())
        except (EOFError, OSError):
            ready = None
        if not ready or not ready.get("ready"):
            self._kill()
            reason = (ready or {}).get("error", "it did not start")
            log.error("a query process could not open the store: %s", reason)
            raise _NotReady(QueryRefused(503, "query: the SPARQL engine is not available; the server log says why"))
        if time.monotonic() > deadline:
            raise _NotReady(self.runner._time_limit(waited=True))

    def _kill(self) -> int | None:
        status = None
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            status = self.process.wait()
            self.process = None
        return status

    def stop(self) -> None:
        process = self.process
        if process is not None and process.poll() is None:
            process.kill()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass


class _NotReady(Exception):
    def __init__(self, refusal: QueryRefused):
        super().__init__(refusal.message)
        self.refusal = refusal
