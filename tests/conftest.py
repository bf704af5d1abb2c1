"""Shared fixtures: real data from ../shared/data, stores over it, and a real `oxigraph serve`."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("FACTFORGE_DATA", ROOT.parent / "shared" / "data"))
DBPEDIA_NT = DATA / "dbpedia50" / "dbpedia50.nt"
ONTOLOGY_TTL = DATA / "dbpedia-ontology" / "dbo-2018.12.28.ttl"
FACTBENCH = DATA / "factbench" / "train"
CODEX = DATA / "codex-s"
ONTOLOGY_GRAPH = "https://w3id.org/factforge/graph/ontology"


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    """Statistics caches go to a per-run folder, never the user's ~/.cache."""
    os.environ["FACTFORGE_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    yield


def need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"real data not found at {path}")
    return path


@pytest.fixture(scope="session")
def dbpedia_store(tmp_path_factory):
    """DBpedia50 in the default graph and the DBpedia ontology in its own graph, on disk."""
    from factforge.sparql.loading import load_files
    from factforge.sparql.store import open_store

    store = open_store(tmp_path_factory.mktemp("dbpedia") / "store")
    load_files(store, [need(DBPEDIA_NT)], progress=False)
    load_files(store, [need(ONTOLOGY_TTL)], graph=ONTOLOGY_GRAPH, progress=False)
    return store


def store_from_text(folder: Path, name: str, text: str):
    """An in-memory store holding a small hand-written KB (the file name gives its format)."""
    from factforge.sparql.loading import load_files
    from factforge.sparql.store import open_store

    path = folder / name
    path.write_text(text)
    store = open_store(None)
    load_files(store, [path], progress=False)
    return store


#: how long a test waits for a state before it fails: long, since a loaded machine is slow, not stuck
WAIT = 180.0



def stop_process(process: subprocess.Popen, *, grace: float) -> None:
    """Ask a server to stop; kill it when it has not within ``grace`` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

def wait_for(probe, what: str, *, until=bool, timeout: float = WAIT, interval: float = 0.05):
    """``probe()``'s first answer that passes ``until``, asked again every ``interval`` s; an
    AssertionError naming ``what`` and the last answer once ``timeout`` s have passed without one."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if until(value):
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: not within {timeout:g} s (last: {value!r:.500})")
        time.sleep(interval)


def settled(send, timeout: float = WAIT):
    """The first answer of ``send()`` that is not a 202, sending again while it is (an idempotent
    POST answers 202 while its job runs, and 201 or an error once it has ended)."""
    return wait_for(send, "an answer other than 202", until=lambda response: response.status_code != 202,
                    timeout=timeout)


def job_end(base: str, response, timeout: float = WAIT) -> dict:
    """The status of a 202's job once it has ended (done or failed), read at its status URL, which
    answers 200 whatever the job's state."""
    url = base + response.json()["status_url"]

    def status() -> dict:
        answer = requests.get(url, timeout=30)
        assert answer.status_code == 200, answer.text
        return answer.json()

    return wait_for(status, f"the job at {url} to end", until=lambda s: s["status"] not in ("queued", "running"),
                    timeout=timeout)


def line_from(stream, prefix: str, timeout: float = WAIT) -> str:
    """The first line of a process's output that starts with ``prefix`` ("" when the output ends
    first). Read in a thread, so a process that hangs without a word fails the test at ``timeout``
    instead of hanging it; the thread ends with the process's output."""
    found: list[str] = []

    def read() -> None:
        line = stream.readline()
        line = line.decode() if isinstance(line, bytes) else line
        while line and not line.startswith(prefix):
            line = stream.readline()
            line = line.decode() if isinstance(line, bytes) else line
        found.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    if reader.is_alive():
        raise AssertionError(f"no line starting with {prefix!r} within {timeout:g} s")
    return found[0]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class OxigraphServer:
    """A real `oxigraph serve` on loopback over files loaded by `oxigraph load`."""

    def __init__(self, workdir: Path, files: list[tuple[Path, str | None]], port: int | None = None):
        self.location = workdir / "oxigraph-server"
        binary = shutil.which("oxigraph")
        if binary is None:
            pytest.skip("the oxigraph CLI (PyPI package 'oxigraph') is not installed")
        for path, graph in files:
            command = [binary, "load", "--location", str(self.location), "--file", str(path)]
            if graph:
                command += ["--graph", graph]
            subprocess.run(command, check=True, capture_output=True)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [binary, "serve-read-only", "--location", str(self.location), "--bind", f"127.0.0.1:{self.port}",
             "--union-default-graph"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self._wait()

    @property
    def query_url(self) -> str:
        return f"{self.url}/query"

    def _wait(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"oxigraph serve exited: {self.process.stderr.read().decode()}")
            try:
                urllib.request.urlopen(f"{self.url}/query?query=ASK%7B%7D", timeout=1).read()
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("oxigraph serve did not answer within 30 s")

    def stop(self) -> None:
        stop_process(self.process, grace=10)


@contextmanager
def served_demo_kb(folder: Path):
    """The demo KB behind a real `oxigraph serve` and in a local store loaded by the command line:
    (the local store's folder, the flags that name the server with the local store's fingerprint)."""
    from factforge.sparql.demo_kb import demo_kb_path

    (folder / "kb").mkdir()
    server = OxigraphServer(folder / "kb", [(demo_kb_path(), None)])
    try:
        local = folder / "store"
        command = [sys.executable, "-m", "factforge", "--quiet"]
        subprocess.run([*command, "load", "--store", str(local), str(demo_kb_path())], check=True, capture_output=True)
        fingerprint = subprocess.run([*command, "fingerprint", "--store", str(local)], check=True, capture_output=True,
                                     text=True).stdout.strip()
        yield local, ["--endpoint", server.query_url, "--endpoint-fingerprint", fingerprint]
    finally:
        server.stop()


@pytest.fixture(scope="session")
def dbpedia_server(tmp_path_factory):
    server = OxigraphServer(tmp_path_factory.mktemp("server"),
                            [(need(DBPEDIA_NT), None), (need(ONTOLOGY_TTL), ONTOLOGY_GRAPH)])
    yield server
    server.stop()


@pytest.fixture(scope="session")
def factbench_kb():
    """The whole FactBench train split in an in-memory store: (store, records, load report).
    Loaded once per run (it takes a while); tests only read it."""
    from factforge.sparql.embedded import EmbeddedStore
    from factforge.sparql.factbench import load_factbench

    store = EmbeddedStore()
    records, report = load_factbench(store, need(FACTBENCH), progress=False)
    return store, records, report



@pytest.fixture(scope="session")
def demo_kb_store():
    """The bundled demo KB in an in-memory store (what `factforge serve` offers by default)."""
    from factforge.sparql.demo_kb import demo_store

    return demo_store()


TEST_TOKEN = "test-token-not-secret"


@pytest.fixture(scope="session")
def demo_http(demo_kb_store, tmp_path_factory):
    """The real app under waitress on a loopback port, over the demo KB; yields its base URL.

    Mutating routes accept ``Authorization: Bearer TEST_TOKEN``.
    """
    from factforge.server.app import create_app
    from factforge.server.serve import BackgroundServer

    root = tmp_path_factory.mktemp("http")
    app = create_app(demo_kb_store, {"SCENARIO_DIR": root / "scenarios", "RELEASES_DIR": root / "releases",
                                     "TOKEN": TEST_TOKEN, "SPARQL_TIMEOUT": 10.0, "SPARQL_ROW_CAP": 5000})
    with BackgroundServer(app) as server:
        yield server.url


class SparqlProxy:
    """A reverse proxy on loopback in front of a real SPARQL endpoint. It passes on the status, the
    body and the Content-Type only (no server or cap headers, as some proxies do), keeps the text
    of every query it relayed, and with ``cap`` cuts every SELECT answer (JSON) and N-Triples answer
    at that many rows without saying so: a server that caps silently (``cap`` may be changed while it
    runs, as an administrator would). ``alter(query, body)`` rewrites the body of each answer (a
    server that answers wrongly). ``refuse(body)`` answers 400 to each request it is true of,
    without passing it on (an endpoint that refuses some queries). ``rows`` counts the rows it
    passed on (SELECT solutions and N-Triples lines): what a command in another process read of the KB; ``answers`` (query, rows) per answer."""

    def __init__(self, target: str, *, cap: int | None = None, alter=None, refuse=None):
        import http.server
        import json
        import urllib.error
        import urllib.parse

        proxy = self
        self.cap = cap
        self.queries: list[str] = []
        self.rows = 0
        self.answers: list[tuple[str, int]] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the stdlib's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                proxy.queries.append(urllib.parse.parse_qs(body.decode())["query"][0])
                request = urllib.request.Request(target, data=body, method="POST", headers={
                    "Accept": self.headers["Accept"], "Content-Type": self.headers["Content-Type"]})
                try:
                    if refuse is not None and refuse(body.decode()):
                        status, data, media = 400, b"refused by the proxy", "text/plain"
                    else:
                        with urllib.request.urlopen(request, timeout=300) as answer:
                            status, data, media = answer.status, answer.read(), answer.headers["Content-Type"]
                except urllib.error.HTTPError as error:
                    status, data, media = error.code, error.read(), error.headers.get("Content-Type", "text/plain")
                if proxy.cap is not None and status == 200:
                    data = _cut(data, media, proxy.cap, json)
                if alter is not None and status == 200:
                    data = alter(proxy.queries[-1], data)
                if status == 200:
                    rows = _rows(data, media, json)
                    proxy.rows += rows
                    proxy.answers.append((proxy.queries[-1], rows))
                self.send_response(status)
                self.send_header("Content-Type", media)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/sparql"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _cut(data: bytes, media: str, cap: int, json) -> bytes:
    if "sparql-results+json" in media:
        answer = json.loads(data)
        if "results" in answer:
            answer["results"]["bindings"] = answer["results"]["bindings"][:cap]
        return json.dumps(answer).encode()
    if "n-triples" in media:
        return b"".join(data.splitlines(keepends=True)[:cap])
    return data


def _rows(data: bytes, media: str, json) -> int:
    if "sparql-results+json" in media:
        return len(json.loads(data).get("results", {}).get("bindings", []))
    if "n-triples" in media:
        return len(data.splitlines())
    return 0
