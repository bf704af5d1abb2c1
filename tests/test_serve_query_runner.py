"""The /sparql query runner (server/query_runner.py), spoken to directly: answers and refusals, the
time limit for a query that waits in line, a runaway query really stopped (its process killed and
replaced), the bounded queue, a worker that survives a bug, and close()."""
from __future__ import annotations

import threading
import time

import pytest

from test_sparql_endpoint import COUNT

#: a cartesian count: no row is ever yielded, so only killing its process stops it
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


def wait_for(check, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "state not reached in time"
        time.sleep(0.02)


@pytest.fixture
def runner(demo_kb_store):
    from factforge.server.query_runner import QueryRunner

    made = QueryRunner(demo_kb_store, timeout=2.0, row_cap=20, workers=1, queue_size=1)
    yield made
    made.close()


def test_answers_and_refusals(runner, demo_kb_store):
    from factforge.server.query_runner import QueryRefused

    answer = runner.run(COUNT, "csv", "turtle")
    assert answer.body.decode().split() == ["n", str(demo_kb_store.triple_count())] and answer.rows == 1
    for text, status in [("SELECT * WHERE { ?s ?p ?o }", 422), ("SELECT ?s WHERE { ?s ?p }", 400),
                         ("DELETE WHERE { ?s ?p ?o }", 403), ("SELECT * { SERVICE <http://a/> {} }", 403)]:
        with pytest.raises(QueryRefused) as refused:
            runner.run(text, "json", "turtle")
        assert refused.value.status == status


def test_a_runaway_query_is_killed_and_a_query_in_line_times_out_then_the_worker_serves_on(runner):
    from factforge.server.query_runner import QueryRefused

    assert runner.run(COUNT, "json", "turtle").rows == 1  # its process is up
    first = runner._hosts[0].process
    outcomes = {}

    def runaway():
        try:
            runner.run(RUNAWAY, "json", "turtle")
        except QueryRefused as refused:
            outcomes["runaway"] = refused.status
    thread = threading.Thread(target=runaway)
    thread.start()
    wait_for(lambda: runner.load()["sparql_running"] == 1)
    with pytest.raises(QueryRefused) as queued:
        runner.run(COUNT, "json", "turtle")  # the only worker is busy: waits in line, times out
    thread.join()
    assert queued.value.status == 503 and "time limit of 2 s" in queued.value.message
    assert outcomes["runaway"] == 503
    assert first.poll() is not None  # the runaway's process was killed, not left computing
    assert runner.run(COUNT, "json", "turtle").rows == 1  # and a new one answers


def test_past_the_queue_bound_a_query_is_turned_away_at_once(runner):
    from factforge.server.query_runner import QueryRefused

    threads = [threading.Thread(target=lambda: pytest.raises(QueryRefused, runner.run, RUNAWAY, "json", "turtle"))
               for _ in range(2)]
    for thread in threads:
        thread.start()
    wait_for(lambda: runner.load() == {"sparql_running": 1, "sparql_waiting": 1})
    with pytest.raises(QueryRefused) as busy:
        runner.run(COUNT, "json", "turtle")
    assert busy.value.status == 503 and "busy" in busy.value.message
    assert int(busy.value.headers["Retry-After"]) >= 1
    for thread in threads:
        thread.join()


def test_an_unexpected_error_is_a_500_and_the_worker_survives(runner, monkeypatch):
    from factforge.server.query_runner import QueryRefused

    def broken(job):
        raise RuntimeError("a bug")

    monkeypatch.setattr(runner._hosts[0], "answer", broken)
    with pytest.raises(QueryRefused) as failed:
        runner.run(COUNT, "json", "turtle")
    assert failed.value.status == 500 and "RuntimeError" in failed.value.message
    monkeypatch.undo()
    assert runner.run(COUNT, "json", "turtle").rows == 1


def test_closed_runner_refuses_at_once_and_leaves_no_process(runner):
    from factforge.server.query_runner import QueryRefused

    assert runner.run(COUNT, "json", "turtle").rows == 1
    process = runner._hosts[0].process
    runner.close()
    with pytest.raises(QueryRefused) as refused:
        runner.run(COUNT, "json", "turtle")
    assert refused.value.status == 503 and "shutting down" in refused.value.message
    wait_for(lambda: process.poll() is not None, 30)


def test_a_store_on_disk_is_opened_read_only_by_the_query_process(dbpedia_store):
    from factforge.server.query_runner import QueryRunner

    made = QueryRunner(dbpedia_store, timeout=30, row_cap=10, workers=1)
    try:
        answer = made.run(COUNT, "csv", "turtle")
        assert int(answer.body.decode().split()[1]) == dbpedia_store.triple_count()
    finally:
        made.close()


def test_a_query_process_that_crashes_costs_only_that_query(runner):
    """A crash of the SPARQL engine (a stack overflow is a SIGSEGV) mid-query: that query gets a
    400, the server lives, and the next query gets a new process."""
    import os
    import signal

    from factforge.server.query_runner import QueryRefused

    runner.timeout = 60.0
    assert runner.run(COUNT, "json", "turtle").rows == 1  # its process is up
    outcome = {}

    def runaway():
        try:
            runner.run(RUNAWAY, "json", "turtle")
        except QueryRefused as refused:
            outcome["refused"] = refused
    thread = threading.Thread(target=runaway)
    thread.start()
    wait_for(lambda: runner.load()["sparql_running"] == 1)
    crashed = runner._hosts[0].process
    os.kill(crashed.pid, signal.SIGSEGV)
    thread.join(timeout=60)
    assert outcome["refused"].status == 400 and "stopped on this query" in outcome["refused"].message
    assert crashed.poll() == -signal.SIGSEGV
    assert runner.run(COUNT, "json", "turtle").rows == 1
    assert runner._hosts[0].process.pid != crashed.pid


def test_a_query_past_its_memory_limit_fails_alone(demo_kb_store):
    """A sorted cartesian product grows without bound: it must fail in its own process
    at the memory limit, not take the machine's memory."""
    from factforge.server.query_runner import QueryRefused, QueryRunner

    made = QueryRunner(demo_kb_store, timeout=120, row_cap=10, workers=1, memory_mb=256)
    try:
        with pytest.raises(QueryRefused) as refused:
            made.run("SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?a LIMIT 1", "json", "turtle")
        assert refused.value.status == 400 and "memory limit of 256 MB" in refused.value.message
        assert made.run(COUNT, "json", "turtle").rows == 1
    finally:
        made.close()
