"""The /sparql query runner's worker hand-off (server/query_runner.py), spoken to directly: the time
limit holds for a query that waits in line, a worker survives a failure, and close() refuses."""
from __future__ import annotations

import threading

import pytest

from test_sparql_endpoint import COUNT, SLOW


@pytest.fixture
def runner(demo_kb_store):
    from server.query_runner import QueryRunner

    made = QueryRunner(demo_kb_store, timeout=0.3, row_cap=20, workers=1)
    yield made
    made.close()


def test_answers_and_refusals(runner, demo_kb_store):
    from server.query_runner import QueryRefused

    answer = runner.run(COUNT, "csv", "turtle")
    assert answer.body.decode().split() == ["n", str(demo_kb_store.triple_count())] and answer.rows == 1
    for text, status in [("SELECT * WHERE { ?s ?p ?o }", 422), ("SELECT ?s WHERE { ?s ?p }", 400),
                         ("DELETE WHERE { ?s ?p ?o }", 403)]:
        with pytest.raises(QueryRefused) as refused:
            runner.run(text, "json", "turtle")
        assert refused.value.status == status


def test_a_query_waiting_behind_a_slow_one_gets_503_and_the_worker_serves_on(runner):
    from server.query_runner import QueryRefused

    outcomes = {}

    def slow():
        try:
            runner.run(SLOW, "json", "turtle")
        except QueryRefused as refused:
            outcomes["slow"] = refused.status

    started = threading.Event()
    evaluate = runner._evaluate

    def watched(text, *args):
        if text == SLOW:
            started.set()
        return evaluate(text, *args)

    runner._evaluate = watched
    thread = threading.Thread(target=slow)
    thread.start()
    assert started.wait(10)
    with pytest.raises(QueryRefused) as queued:
        runner.run(COUNT, "json", "turtle")  # the only worker is busy with SLOW: waits in line, times out
    thread.join()
    assert queued.value.status == 503 and "time limit of 0.3 s" in queued.value.message
    assert outcomes["slow"] == 503
    runner.timeout = 60  # the worker stops SLOW at its next row; then it answers again
    assert runner.run(COUNT, "json", "turtle").rows == 1


def test_an_unexpected_error_is_a_500_and_the_worker_survives(runner, monkeypatch):
    from server.query_runner import QueryRefused

    def broken(*args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(runner, "_evaluate", broken)
    with pytest.raises(QueryRefused) as failed:
        runner.run(COUNT, "json", "turtle")
    assert failed.value.status == 500 and "RuntimeError" in failed.value.message
    monkeypatch.undo()
    assert runner.run(COUNT, "json", "turtle").rows == 1


def test_closed_runner_refuses_at_once(runner):
    from server.query_runner import QueryRefused

    runner.close()
    with pytest.raises(QueryRefused) as refused:
        runner.run(COUNT, "json", "turtle")
    assert refused.value.status == 503 and "shutting down" in refused.value.message
