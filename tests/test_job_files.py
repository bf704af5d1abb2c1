"""Scenario jobs shared by the worker processes of one server: followed, not repeated; orphans of
killed makers made again. The job runner itself (claims, status files) is tested in test_jobs.py.

The "other process" here is a real one (a subprocess holding a real flock), or a second
ScenarioService in this process: flock locks belong to open files, so two services conflict as two
processes would.
"""
from __future__ import annotations

import subprocess
import sys

from factforge.generators.spec import ScenarioSpec
from factforge.server.scenarios import ScenarioService

SPEC = {"predicate": "dbo:capital", "size": 30, "ambiguous": "random_walk", "seed": 11}

# Another process: claims a job, says it runs, tells the test, then waits until it is killed.
HOLDER = """
import sys
from factforge.publish.jobs import JobFiles
files = JobFiles(sys.argv[1])
claim = files.claim(sys.argv[2])
assert claim is not None
files.write(sys.argv[2], {"id": sys.argv[2], "status": "running", "step": "negatives",
                          "progress": {"done": 3, "total": 7}, "spec": __import__("json").loads(sys.argv[3])})
print("held", flush=True)
sys.stdin.read()
"""


def hold(folder, key: str, spec: dict | None = None) -> subprocess.Popen:
    import json

    process = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), key, json.dumps(spec or {})],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "held"
    return process


def kill(process: subprocess.Popen) -> None:
    process.kill()
    process.wait(timeout=30)


def test_a_job_made_by_another_process_is_followed_not_repeated(demo_kb_store, tmp_path):
    service = ScenarioService(demo_kb_store, tmp_path / "sc")
    try:
        spec = service.parse_spec(SPEC)
        scenario_id = service.scenario_id(spec)
        holder = hold(service.job_files.folder, scenario_id, spec.to_dict())
        try:
            job = service.submit(spec)
            assert job.remote and job.future is None and job.status == "running" and job.step == "negatives"
            assert service.status(scenario_id).status == "running"
            assert service.wait(job, 0.2).status == "running"  # waits, but the other process is not done
            assert not service.ready(scenario_id)
        finally:
            kill(holder)
        # Its maker died: the job reads as failed, and asking again makes it here.
        assert service.status(scenario_id).status == "failed"
        assert service.status(scenario_id).error["status"] == 503
        again = service.wait(service.submit(spec), 120)
        assert not again.remote and again.status == "done" and service.ready(scenario_id)
    finally:
        service.close()


def test_two_services_on_one_folder_make_a_scenario_once(demo_kb_store, tmp_path):
    first, second = (ScenarioService(demo_kb_store, tmp_path / "sc") for _ in range(2))
    try:
        spec = ScenarioSpec.from_dict({**SPEC, "size": 60})
        made = first.submit(spec)
        followed = second.submit(spec)
        assert made.future is not None and not made.remote
        # The second finds the first's claim (or, on a very fast machine, the finished scenario).
        assert followed.future is None and (followed.remote or followed.status == "done")
        assert second.wait(followed, 120).status == "done" and first.wait(made, 120).status == "done"
        assert second.status(made.id).status == "done" and second.manifest(made.id)["counts"]["test"]["true"] == 30
        # A made scenario answers for its job: the job's files are gone, in every process.
        assert first.job_files.read(made.id) is None and not list((tmp_path / "sc" / ".jobs").glob(f"{made.id}*"))
        assert second.status(made.id).status == "done"
    finally:
        first.close()
        second.close()


def test_the_status_of_an_unknown_or_malformed_id_is_none(demo_kb_store, tmp_path):
    service = ScenarioService(demo_kb_store, tmp_path / "sc")
    try:
        assert service.status("sc-00000000000000000000") is None
        assert service.status("../../etc/passwd") is None
    finally:
        service.close()


def test_a_damaged_status_file_reads_as_failed_or_as_no_job(demo_kb_store, tmp_path):
    service = ScenarioService(demo_kb_store, tmp_path / "sc")
    try:
        spec = service.parse_spec(SPEC)
        scenario_id = service.scenario_id(spec)
        service.job_files.write(scenario_id, {"status": "weird", "spec": spec.to_dict(), "progress": "x"})
        job = service.status(scenario_id)
        assert job.status == "failed" and job.error["status"] == 503 and job.steps_done == 0
        service.job_files.write(scenario_id, {"status": "running", "spec": "not a spec"})
        assert service.status(scenario_id) is None
        # and asking for it makes it, over the damaged file
        assert service.wait(service.submit(spec), 120).status == "done"
        assert service.job_files.read(scenario_id) is None and service.status(scenario_id).status == "done"
    finally:
        service.close()


def _age(folder, key: str, seconds: float) -> None:
    import os
    import time

    for path in folder.glob(f"{key}.*"):
        os.utime(path, (time.time() - seconds, time.time() - seconds))


def test_a_failed_job_keeps_its_status_and_a_service_start_clears_stale_ones(demo_kb_store, tmp_path):
    service = ScenarioService(demo_kb_store, tmp_path / "sc")
    try:
        spec = service.parse_spec({**SPEC, "size": 5000})  # more capital facts than the demo KB has
        job = service.wait(service.submit(spec), 120)
        assert job.status == "failed" and job.error["status"] == 422
        assert service.job_files.read(job.id)["status"] == "failed"  # other processes' pollers see why
    finally:
        service.close()
    jobs = tmp_path / "sc" / ".jobs"
    _age(jobs, job.id, 2 * 3600)
    ScenarioService(demo_kb_store, tmp_path / "sc").close()
    assert not list(jobs.glob(f"{job.id}*"))


def test_a_running_service_clears_stale_job_files_when_it_trims_its_jobs(demo_kb_store, tmp_path, monkeypatch):
    monkeypatch.setattr("factforge.server.scenarios.SWEEP_EVERY", 0.0)  # at every trim, not once a minute
    service = ScenarioService(demo_kb_store, tmp_path / "sc", keep_jobs=1)
    try:
        stale = "sc-0123456789abcdef0123"  # a failure another process left two hours ago
        claim = service.job_files.claim(stale)
        service.job_files.write(stale, {"status": "failed"})
        claim.release()
        _age(tmp_path / "sc" / ".jobs", stale, 2 * 3600)
        for seed in (1, 2, 3):  # fail fast (more facts than the demo KB has); finished jobs pass keep_jobs
            job = service.wait(service.submit(service.parse_spec({**SPEC, "size": 5000, "seed": seed})), 120)
            assert job.status == "failed"
        assert not list((tmp_path / "sc" / ".jobs").glob(f"{stale}*"))
        assert service.job_files.read(job.id)["status"] == "failed"  # recent failures stay readable
    finally:
        service.close()
