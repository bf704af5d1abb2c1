"""`factforge serve --workers N`: real processes on one port, jobs seen by every process, dead workers replaced."""
from __future__ import annotations

import concurrent.futures
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from conftest import WAIT, free_port, job_end, line_from, wait_for

SPEC = {"predicate": "dbo:capital", "size": 40, "ambiguous": "random_walk", "seed": 21}
ROOT = Path(__file__).resolve().parents[1]
# `factforge serve` with the supervisor's restart window (seconds) taken from the first argument
WITH_WINDOW = ("import sys, factforge.server.workers as w; w.RESTART_WINDOW = float(sys.argv.pop(1)); "
               "from factforge.cli.main import main; sys.exit(main(sys.argv[1:]))")


def children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry))
    return found


class Served:
    """`factforge serve ...` as a subprocess, up once it has printed its "factforge serving" line."""

    def __init__(self, tmp_path: Path, *args: str, restart_window: float | None = None):
        self.port = free_port()
        program = ["-m", "factforge"] if restart_window is None else ["-c", WITH_WINDOW, str(restart_window)]
        env = {**os.environ, "FACTFORGE_CACHE": str(tmp_path / "cache")}
        # stderr to a file, not a pipe: a pipe nobody reads stalls a server that logs more than it holds
        self.stderr_path = tmp_path / f"serve-{self.port}.stderr"
        with open(self.stderr_path, "w") as stderr:
            self.process = subprocess.Popen([sys.executable, *program, "--quiet", "serve", "--port",
                                             str(self.port), *args], stdout=subprocess.PIPE, stderr=stderr,
                                            text=True, env=env, cwd=tmp_path)
        try:
            line = line_from(self.process.stdout, "factforge serving")
        except AssertionError:
            self.stop()
            raise
        if not line:
            raise AssertionError(f"serve exited {self.process.wait(timeout=60)}: {self.stderr()}")
        self.line = line
        self.url = f"http://127.0.0.1:{self.port}"

    def stderr(self) -> str:
        return self.stderr_path.read_text()

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=30)


@pytest.fixture
def served(tmp_path):
    running = []

    def start(*args: str, **options) -> Served:
        running.append(Served(tmp_path, *args, **options))
        return running[-1]

    yield start
    for server in running:
        server.stop()


def follow(url: str, response: requests.Response) -> dict:
    """The scenario's job once it has ended: polled at a 202's status URL, each time on a new
    connection (the status URL answers 200 while the job runs too), or the 201's own body."""
    if response.status_code == 202:
        return job_end(url, response)
    assert response.status_code == 201, response.text
    return response.json()


def test_processes_on_one_scenario_folder_share_jobs(served, tmp_path, demo_kb_store):
    """A job that another process is making is reported, not made again; an orphan is made anew."""
    from factforge.server.scenarios import ScenarioService
    from test_job_files import hold, kill

    folder = tmp_path / "scenarios"
    service = ScenarioService(demo_kb_store, folder)  # only to name the scenario, as the servers will
    spec = service.parse_spec(SPEC)
    scenario_id = service.scenario_id(spec)
    service.close()
    first, second = served("--scenarios", str(folder)), served("--scenarios", str(folder))

    holder = hold(folder / ".jobs", scenario_id, spec.to_dict())  # a third process is making it
    try:
        status = requests.get(f"{second.url}/api/jobs/{scenario_id}", timeout=30)
        assert status.status_code == 200 and status.json()["status"] == "running"
        posted = requests.post(f"{first.url}/api/scenarios", json=SPEC, timeout=60)
        assert posted.status_code == 202 and posted.json()["id"] == scenario_id
        assert posted.json()["status"] == "running" and posted.json()["step"] == "negatives"
        waiting = requests.get(f"{first.url}/api/scenarios/{scenario_id}", timeout=30)
        assert waiting.status_code == 409 and "still being made" in waiting.json()["error"]
    finally:
        kill(holder)

    orphan = requests.get(f"{second.url}/api/jobs/{scenario_id}", timeout=30).json()
    assert orphan["status"] == "failed" and "send the same request again" in orphan["error"]["error"]
    body = follow(first.url, requests.post(f"{first.url}/api/scenarios", json=SPEC, timeout=60))
    assert body["status"] == "done"
    assert requests.get(f"{second.url}/api/jobs/{scenario_id}", timeout=30).json()["status"] == "done"
    data = [requests.get(f"{server.url}/api/scenarios/{scenario_id}", params={"format": "tsv"}, timeout=30)
            for server in (first, second)]
    assert [r.status_code for r in data] == [200, 200] and data[0].text == data[1].text


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigterm_stops_the_server_cleanly(served, workers):
    """SIGTERM ends `serve` with status 0 after the requests under way, not by the signal's default
    action: as PID 1 in a container a process has no default action, and would ignore it."""
    server = served("--workers", workers)
    assert requests.get(server.url + "/api/kb", timeout=30).status_code == 200
    assert server.stop() == 0, server.stderr()
    assert "Traceback" not in server.stderr()


def test_sigterm_does_not_wait_for_the_release_being_made(tmp_path, monkeypatch):
    """A release of many scenarios is under way when SIGTERM comes: the server stops without
    finishing it (the interpreter would otherwise wait for its thread), leaves no archive, and the
    job reads as stopped, so the same request can start it again."""
    from factforge.publish import releases as lib
    from factforge.server.release_jobs import ReleaseJobs

    env_token = "sigterm-secret"
    monkeypatch.setenv("FACTFORGE_TOKEN", env_token)
    server = Served(tmp_path, "--releases", str(tmp_path / "rel"))
    try:
        specs = [{**SPEC, "size": 20, "seed": seed} for seed in range(100)]
        response = requests.post(server.url + "/api/releases", json={"name": "big", "specs": specs},
                                 headers={"Authorization": f"Bearer {env_token}"}, timeout=60)
        assert response.status_code == 202, response.text
        status = {"status": "queued", "progress": {"done": 0}}
        deadline = time.monotonic() + 300
        while status["status"] in ("queued", "running") and status["progress"]["done"] < 1 \
                and time.monotonic() < deadline:  # stop it half-way, once it has made something
            time.sleep(0.01)
            status = requests.get(server.url + response.json()["status_url"], timeout=30).json()
        assert status["status"] == "running" and status["progress"]["done"] < len(specs), status
    finally:
        assert server.stop() == 0, server.stderr()
    assert not (tmp_path / "rel" / "big.tar.gz").exists()
    later = ReleaseJobs(tmp_path / "rel")  # the next server on this folder
    try:
        stopped = later.status("big")
        assert stopped["status"] == "failed" and "stopped before it finished" in stopped["error"]["error"]
        assert lib.list_releases(tmp_path / "rel") == [] and not list((tmp_path / "rel").glob(".big.*"))
    finally:
        later.close()


def test_workers_share_one_port_and_one_store(served, tmp_path):
    store = tmp_path / "store"
    subprocess.run([sys.executable, "-m", "factforge", "--quiet", "load", str(ROOT / "sparql/demo/demo.ttl"),
                    "--store", str(store)], check=True, capture_output=True, cwd=tmp_path)
    # A queue for every concurrent query below: this is about workers sharing a port and a store,
    # and on a loaded machine the default queue of 2 sheds some of them with 503 (as it should)
    server = served("--store", str(store), "--workers", "2", "--threads", "16", "--sparql-queue", "8")
    assert "with 2 worker processes" in server.line
    workers = children(server.process.pid)
    assert len(workers) == 2

    taken = subprocess.run([sys.executable, "-m", "factforge", "serve", "--workers", "2", "--port",
                            str(server.port)], capture_output=True, text=True, timeout=60)
    assert taken.returncode == 1 and taken.stderr.startswith("factforge: error: --port: cannot listen")

    posted = requests.post(f"{server.url}/api/scenarios", json=SPEC, timeout=60)
    assert posted.status_code in (201, 202)
    body = follow(server.url, posted)  # each poll on a new connection: either worker may answer it
    assert body["status"] == "done"
    url = f"{server.url}/api/scenarios/{body['id']}?format=tsv"
    query = f"{server.url}/sparql?query=SELECT%20(COUNT(*)%20AS%20%3Fn)%20WHERE%20%7B%3Fs%20%3Fp%20%3Fo%7D"

    def fetch(i: int) -> tuple[int, str]:
        response = requests.get(url if i % 2 else query, headers={"Accept": "text/csv"}, timeout=30)
        return response.status_code, response.text

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(fetch, range(64)))
    assert {status for status, _ in answers} == {200}
    assert len({text for status, text in answers}) == 2  # every worker gives the same two answers

    # A killed worker is replaced, and the server answers throughout.
    victim = min(workers)
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        now = children(server.process.pid)
        if len(now) == 2 and victim not in now:
            break
        assert requests.get(url, timeout=30).status_code == 200
        time.sleep(0.2)
    now = children(server.process.pid)
    assert len(now) == 2 and victim not in now and (workers - {victim}) < now
    assert "exited with status -9; starting another" in _stderr_until(server, "starting another")
    for _ in range(10):
        assert requests.get(url, timeout=30).text == answers[1][1]

    assert server.stop() == 0
    # the supervisor has exited; its workers are gone, or zombies until init reaps them
    wait_for(lambda: [pid for pid in now if Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid)],
             "the workers to exit with their supervisor", until=lambda alive: not alive)


def test_workers_that_keep_dying_stop_the_server(served):
    from factforge.server.workers import RESTARTS

    # Every replacement is waited for before the next kill, and a loaded machine can take longer
    # than the real window (a minute) to start RESTARTS of them: the window is made long enough.
    window = 3600
    server = served("--workers", "2", restart_window=window)  # the demo KB in each worker
    for death in range(RESTARTS + 1):
        workers = children(server.process.pid)
        os.kill(min(workers), signal.SIGKILL)
        if death < RESTARTS:  # replaced: wait until the new worker is up, then kill again
            assert _stderr_until(server, "is ready", times=death + 1).count("is ready") == death + 1
    assert server.process.wait(timeout=120) == 1
    said = server.stderr()
    assert f"exited {RESTARTS + 1} times within {window} s" in said
    # the last survivor was stopped too (after the supervisor exits, /proc would show an orphan under init)
    assert len(workers) == 2 and all("zombie" in _state(pid) for pid in workers)


def _stderr_until(server: Served, text: str, times: int = 1, timeout: float = WAIT) -> str:
    """The server's stderr once it holds ``text`` ``times`` times (or once the server has exited, or
    at the timeout)."""
    deadline = time.monotonic() + timeout
    while (server.stderr().count(text) < times and server.process.poll() is None
           and time.monotonic() < deadline):
        time.sleep(0.05)
    return server.stderr()


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return "zombie"


def test_a_worker_that_cannot_start_stops_the_server(tmp_path):
    empty = tmp_path / "not-a-store"
    empty.mkdir()
    done = subprocess.run([sys.executable, "-m", "factforge", "--quiet", "serve", "--store", str(empty),
                           "--workers", "2", "--port", str(free_port())], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "FACTFORGE_CACHE": str(tmp_path / "cache")})
    assert done.returncode == 1
    assert "no factforge store here" in done.stderr and "exited before it was ready" in done.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_port_in_use_is_a_clear_error(tmp_path, workers):
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        done = subprocess.run([sys.executable, "-m", "factforge", "--quiet", "serve", "--workers", workers,
                               "--port", str(taken.getsockname()[1])], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "FACTFORGE_CACHE": str(tmp_path / "cache")})
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("factforge: error: --port: cannot listen on 127.0.0.1:")


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_server_started_before_its_endpoint_waits_for_it(tmp_path, workers):
    """As compose starts them: factforge first, the SPARQL server a moment later on its port."""
    from conftest import OxigraphServer
    from factforge.sparql.demo_kb import demo_kb_path

    endpoint_port, port = free_port(), free_port()
    endpoint = f"http://127.0.0.1:{endpoint_port}/query"
    with open(tmp_path / "serve.stderr", "w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "factforge", "--quiet", "serve", "--endpoint", endpoint, "--endpoint-wait", "120",
             "--workers", workers, "--port", str(port)], stdout=subprocess.PIPE, stderr=stderr, text=True,
            env={**os.environ, "FACTFORGE_CACHE": str(tmp_path / "cache")})
    oxigraph = None
    try:
        assert process.stdout.readline() == f"waiting up to 120 s for {endpoint} to answer\n"
        oxigraph = OxigraphServer(tmp_path, [(demo_kb_path(), None)], port=endpoint_port)
        line = line_from(process.stdout, "factforge serving")
        assert line.startswith("factforge serving endpoint KB"), (tmp_path / "serve.stderr").read_text()
        kb = requests.get(f"http://127.0.0.1:{port}/api/kb", timeout=60).json()
        assert kb["backend"]["endpoint"] == endpoint and kb["triples"] > 1000
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
        if oxigraph is not None:
            oxigraph.stop()


def test_an_endpoint_that_never_answers_is_a_clear_error(tmp_path):
    endpoint = f"http://127.0.0.1:{free_port()}/query"
    done = subprocess.run([sys.executable, "-m", "factforge", "--quiet", "serve", "--endpoint", endpoint,
                           "--endpoint-wait", "1", "--port", str(free_port())], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "FACTFORGE_CACHE": str(tmp_path / "cache")})
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"factforge: error: --endpoint: {endpoint} did not answer within "
                                  "--endpoint-wait 1 s"), done.stderr


@pytest.mark.parametrize("args, field", [(["--workers", "0"], "--workers"), (["--workers", "65"], "--workers"),
                                         (["--threads", "0"], "--threads"), (["--port", "70000"], "--port"),
                                         (["--endpoint", "http://x/q", "--endpoint-wait", "-1"], "--endpoint-wait"),
                                         (["--endpoint-wait", "5"], "--endpoint-wait")])
def test_bad_serve_options_name_the_option(args, field, capsys):
    from factforge.cli.main import main

    assert main(["serve", *args]) == 1
    assert capsys.readouterr().err.startswith(f"factforge: error: {field}:")


def test_workers_default_from_the_environment(monkeypatch):
    from factforge.cli.serve import _workers

    monkeypatch.setenv("FACTFORGE_WORKERS", "3")
    assert _workers(None) == 3
    assert _workers(2) == 2  # the option wins over the environment
    monkeypatch.delenv("FACTFORGE_WORKERS")
    assert _workers(None) == 1


@pytest.mark.parametrize("value", ["abc", "0", "2.5"])
def test_a_bad_workers_environment_variable_is_named(value, monkeypatch, capsys):
    from factforge.cli.main import main

    monkeypatch.setenv("FACTFORGE_WORKERS", value)
    assert main(["serve"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("factforge: error: FACTFORGE_WORKERS:") and "Traceback" not in err
