"""``factforge serve --workers N``: N server processes on one listening socket, and their supervisor.

One CPython process serves on one core at a time (the GIL), so past one core a server needs more
processes. The supervisor binds one listening socket per worker, all on the port with SO_REUSEPORT,
and starts each worker as a fresh interpreter that inherits its socket (``factforge serve
--listen-fd FD``: no fork of a process that may hold threads). The kernel spreads connections over
the sockets evenly; with one shared socket, whichever worker woke first took the connection, and
under load one worker could hold twice its share of keep-alive connections. The supervisor keeps
every socket open, so a replaced worker takes over its predecessor's socket and queue. Workers share everything that lives on disk: finished
scenarios, job status and claims (publish/jobs.py), releases, the statistics cache. An embedded
store is opened read-only by each worker, which RocksDB allows many processes to do.

A worker that dies is replaced; one that dies before it is ready, or too often, stops the server
with its exit status, because starting it again would fail the same way.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

READY = "factforge worker ready:"  # a worker's first line on stdout, then the KB it serves
START_TIMEOUT = 600.0               # a big store may take minutes to open and profile
RESTARTS = 5                        # at most this many replacements ...
RESTART_WINDOW = 60.0               # ... within this many seconds
STOP_GRACE = 10.0


@dataclass
class Worker:
    process: subprocess.Popen
    started: float = field(default_factory=time.monotonic)
    ready: threading.Event = field(default_factory=threading.Event)
    described: str = ""


class Supervisor:
    def __init__(self, child_args: list[str], *, host: str, port: int, workers: int):
        self.child_args = child_args
        self.count = workers
        # A plain bind first: SO_REUSEPORT would let us share the port with another server of this
        # user (a second `factforge serve` on the same port) instead of refusing it.
        with socket.create_server((host, port)) as probe:
            self.host, self.port = host, probe.getsockname()[1]
        self.sockets = [socket.create_server((host, self.port), backlog=2048, reuse_port=True)
                        for _ in range(workers)]
        for sock in self.sockets:
            sock.set_inheritable(True)
        self.workers: list[Worker] = []
        self.restarts: list[float] = []
        # A plain flag, not an Event: a signal handler runs on the main thread between bytecodes,
        # maybe while that thread holds the Event's own lock (in Event.wait), and would deadlock.
        self._stopping = False

    def _start_one(self, slot: int) -> Worker:
        fd = self.sockets[slot].fileno()
        command = [sys.executable, "-m", "factforge", *self.child_args, "--listen-fd", str(fd)]
        process = subprocess.Popen(command, pass_fds=(fd,), stdout=subprocess.PIPE, text=True, bufsize=1)
        worker = Worker(process)
        threading.Thread(target=self._relay, args=(worker,), daemon=True, name=f"relay-{process.pid}").start()
        return worker

    def _relay(self, worker: Worker) -> None:
        # A worker's stdout comes through here: its ready line is read, the rest passed on.
        for line in worker.process.stdout:
            if not worker.ready.is_set() and line.startswith(READY):
                worker.described = line[len(READY):].strip()
                worker.ready.set()
            else:
                sys.stdout.write(line)
                sys.stdout.flush()

    def _wait_ready(self, worker: Worker) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while not worker.ready.wait(0.1):
            if worker.process.poll() is not None or self._stopping or time.monotonic() > deadline:
                raise WorkerFailed(f"a worker process exited before it was ready (status {worker.process.poll()})",
                                   worker.process.poll())

    def run(self) -> int:
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            self.workers = [self._start_one(slot) for slot in range(self.count)]
            for worker in self.workers:
                self._wait_ready(worker)
            print(f"factforge serving {self.workers[0].described} on http://{self.host}:{self.port}/ with "
                  f"{self.count} worker processes (console /, API /api, SPARQL /sparql, docs /docs)", flush=True)
            while not self._stopping:
                self._replace_dead()
                time.sleep(0.2)
            return 0
        except WorkerFailed as error:
            if self._stopping:
                return 0
            print(f"factforge: error: {error}", file=sys.stderr, flush=True)
            return error.status
        finally:
            self._stop_all()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            for sock in self.sockets:
                sock.close()

    def _on_signal(self, *_args) -> None:
        self._stopping = True

    def _replace_dead(self) -> None:
        for index, worker in enumerate(self.workers):
            status = worker.process.poll()
            if status is None or self._stopping:  # a Ctrl-C reaches the workers too
                continue
            now = time.monotonic()
            self.restarts = [t for t in self.restarts if now - t < RESTART_WINDOW] + [now]
            if len(self.restarts) > RESTARTS:
                raise WorkerFailed(f"worker processes exited {len(self.restarts)} times within "
                                   f"{RESTART_WINDOW:.0f} s (last status {status}); stopping", status)
            print(f"factforge: worker process {worker.process.pid} exited with status {status}; starting another",
                  file=sys.stderr, flush=True)
            self.workers[index] = replacement = self._start_one(index)
            self._wait_ready(replacement)
            print(f"factforge: worker process {replacement.process.pid} is ready", file=sys.stderr, flush=True)

    def _stop_all(self) -> None:
        alive = [w.process for w in self.workers if w.process.poll() is None]
        for process in alive:
            process.terminate()
        deadline = time.monotonic() + STOP_GRACE
        for process in alive:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class WorkerFailed(Exception):
    def __init__(self, message: str, status: int | None):
        super().__init__(message)
        # The server's exit status: the worker's own when it exited with one, 1 when it was killed
        # by a signal (Popen says -N) or had not exited (a start that timed out).
        self.status = status if status is not None and status > 0 else 1


def watch_parent() -> None:
    """End this worker when its supervisor is gone (killed with SIGKILL, it could not stop us)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)  # no cleanup to wait for: finished work is on disk, unfinished work is orphaned

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()
