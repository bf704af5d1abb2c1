"""A child process that evaluates ``/sparql`` queries for the server, one at a time.

Why a process: Oxigraph cannot abort a query. A query that never yields a row (a cartesian
``COUNT``, a planner that never finishes) would hold a thread for hours, and one whose parser
overflows the stack kills the process it runs in. Here the server kills this process at the time
limit, or loses only it in a crash, and starts another (server/query_runner.py).

Why a big stack: queries are evaluated on a thread with ``STACK_BYTES`` of stack, so nesting that
the text scanner lets through (server/query_guard.py) parses instead of crashing.

Protocol over one socket (``multiprocessing.connection`` messages): the server sends the store to
open, then one request per query; every reply is a JSON header, then the body when it is ``ok``.
"""
from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection

import pyoxigraph as ox

from factforge.sparql import results
from factforge.sparql.result_formats import GRAPH_MEDIA, RESULT_MEDIA

#: reserved, not used: the kernel commits stack pages only as the parser touches them
STACK_BYTES = 512 * 1024 * 1024


class Refusal(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def open_store(conn: Connection, setup: dict) -> ox.Store:
    if setup.get("path"):
        return ox.Store.read_only(setup["path"])
    store = ox.Store()
    dump = conn.recv_bytes()
    if dump:
        store.bulk_load(dump, format=ox.RdfFormat.N_QUADS)
    return store


def evaluate(store: ox.Store, request: dict) -> tuple[bytes, str, int | None]:
    """The serialized answer, its media type and row count; Refusal when it cannot be given."""
    deadline, row_cap, limit = request["deadline"], request["row_cap"], request["timeout_text"]
    result_format, graph_format = request["result_format"], request["graph_format"]
    try:
        result = store.query(request["query"], use_default_graph_as_union=True)
    except SyntaxError as error:
        raise Refusal(400, f"query: SPARQL syntax error: {error}") from None
    except OSError as error:
        raise Refusal(400, f"query: could not be evaluated: {error}") from None

    def rows(items):
        taken = 0
        for item in items:
            taken += 1
            if taken > row_cap:
                raise Refusal(422, f"query: more than the row cap of {row_cap} results; add a LIMIT")
            if taken % 256 == 0 and time.monotonic() > deadline:
                raise Refusal(503, f"query: stopped at the time limit of {limit} s")
            yield item

    try:
        if isinstance(result, ox.QueryBoolean):
            return results.ask_bytes(bool(result), result_format), RESULT_MEDIA[result_format], None
        if isinstance(result, ox.QuerySolutions):
            variables = [v.value for v in result.variables]
            collected = [tuple(solution) for solution in rows(result)]
            body = results.select_bytes(result_format, variables, collected)
            return body, RESULT_MEDIA[result_format], len(collected)
        triples = list(rows(result))
        return results.graph_bytes(triples, graph_format), GRAPH_MEDIA[graph_format][1], len(triples)
    except OSError as error:  # a SERVICE call that failed, an evaluation error
        raise Refusal(400, f"query: could not be evaluated: {error}") from None


def serve(conn: Connection) -> None:
    try:
        _serve(conn)
    except (EOFError, ConnectionError):
        return  # the server stopped, or closed us: nothing is waiting for an answer


def _serve(conn: Connection) -> None:
    setup = json.loads(conn.recv_bytes())
    try:
        store = open_store(conn, setup)
    except (OSError, ValueError, SyntaxError) as error:
        conn.send_bytes(json.dumps({"ready": False, "error": str(error)}).encode())
        return
    conn.send_bytes(json.dumps({"ready": True}).encode())
    while True:
        request = json.loads(conn.recv_bytes())
        try:
            body, media, count = evaluate(store, request)
        except Refusal as refusal:
            conn.send_bytes(json.dumps({"ok": False, "status": refusal.status, "message": refusal.message}).encode())
            continue
        conn.send_bytes(json.dumps({"ok": True, "media": media, "rows": count}).encode())
        conn.send_bytes(body)


def _die_with_parent() -> None:
    """Be killed when the server is, even mid-query (Linux; elsewhere the closed socket ends us
    at the next request)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:
        os._exit(0)


def _limit_memory(megabytes: int) -> None:
    """Cap this process's heap, so a query that materializes too much (a sorted cartesian
    product grows without bound) fails here instead of exhausting the machine's
    memory. RLIMIT_DATA counts private writable mappings, the query thread's stack among them."""
    if megabytes <= 0:
        return
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return
    limit = STACK_BYTES + megabytes * 1024 * 1024 + _current_data()
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def _current_data() -> int:
    """Bytes of data segment already in use (the interpreter and its imports)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def main(argv: list[str]) -> int:
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the server; it ends us
    conn = Connection(int(argv[0]))
    _limit_memory(int(argv[1]) if len(argv) > 1 else 0)
    threading.stack_size(STACK_BYTES)
    worker = threading.Thread(target=serve, args=(conn,), name="query-host")
    worker.start()
    worker.join()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
