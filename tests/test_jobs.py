"""The job runner of scenarios and releases (publish/jobs.py): claims, status files, a job made by
exactly one process, failures recorded, and the job of a killed maker reported, not left running.

The other processes are real ones (subprocesses holding real flocks); flock locks belong to open
files, so two claims in this process conflict as two processes' would.
"""
from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import wait_for
from test_job_files import _age, hold, kill

from factforge.publish.jobs import Job, JobFiles, JobRunner, MakerStopped
from factforge.server.job_errors import release_failure, scenario_failure


def said(key: str, error: BaseException) -> dict:
    """A failure as a caller describes it (the server's are in server/job_errors.py)."""
    return {"key": key, "what": type(error).__name__, "text": str(error)}


class Step(Job):
    def __init__(self, key: str):
        super().__init__()
        self.name, self.done = key, 0

    @property
    def key(self) -> str:
        return self.name

    def to_dict(self) -> dict:
        return {"status": self.status, "done": self.done, **({"error": self.error} if self.error else {})}


# A process with a runner of its own: it tries to claim job "job" in FOLDER and, with the claim,
# makes it on its runner: the work notes its pid in RAN, says it is running, publishes a step, then
# waits for a line on stdin. It prints "claimed" or "refused" first, "made" at the end.
RUNNER = """
import os, sys
from pathlib import Path
from factforge.publish.jobs import JobRunner
sys.path.insert(0, sys.argv[3])
from test_jobs import Step, said

folder, ran = Path(sys.argv[1]), Path(sys.argv[2])
runner = JobRunner(folder, said)
claim = runner.files.claim("job")
print("claimed" if claim else "refused", flush=True)
if claim:
    def work(job):
        with open(ran, "a") as out:
            out.write(f"{os.getpid()}\\n")
        job.done = 1
        runner.publish(job)
        print("running", flush=True)
        if sys.stdin.readline().strip() != "go":
            raise RuntimeError("told to fail")

    job = Step("job")
    job.claim = claim
    runner.start(job, work, answered=lambda job: False).result()
    print("made", flush=True)
sys.stdin.read()
"""


def runner_process(folder, ran) -> subprocess.Popen:
    tests = str(__import__("pathlib").Path(__file__).parent)
    return subprocess.Popen([sys.executable, "-c", RUNNER, str(folder), str(ran), tests],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def test_of_two_processes_claiming_one_job_exactly_one_makes_it(tmp_path):
    ran = tmp_path / "ran"
    first, second = runner_process(tmp_path / "jobs", ran), runner_process(tmp_path / "jobs", ran)
    try:
        said_first, said_second = first.stdout.readline().strip(), second.stdout.readline().strip()
        assert sorted([said_first, said_second]) == ["claimed", "refused"]
        maker = first if said_first == "claimed" else second
        assert maker.stdout.readline().strip() == "running"
        runner = JobRunner(tmp_path / "jobs", said)
        assert runner.read("job") == {"status": "running", "done": 1}  # the other process's step, seen here
        maker.stdin.write("go\n")
        maker.stdin.flush()
        assert maker.stdout.readline().strip() == "made"
        assert runner.read("job") == {"status": "done", "done": 1}
        assert ran.read_text().splitlines() == [str(maker.pid)]
        assert not runner.files.held("job")  # the claim went with the job
        runner.close()
    finally:
        for process in (first, second):
            kill(process)


def test_a_killed_makers_job_is_reported_failed_and_can_be_made_again(tmp_path):
    ran = tmp_path / "ran"
    maker = runner_process(tmp_path / "jobs", ran)
    runner = JobRunner(tmp_path / "jobs", said)
    try:
        assert maker.stdout.readline().strip() == "claimed"
        assert maker.stdout.readline().strip() == "running"
        assert runner.read("job")["status"] == "running"
    finally:
        kill(maker)
    try:
        # Not stuck at "running": the report is the caller's own words for a maker that stopped.
        assert runner.read("job") == {"status": "failed", "done": 1,
                                      "error": {"key": "job", "what": "MakerStopped", "text": "job"}}
        job = Step("job")
        job.claim = runner.files.claim("job")
        assert job.claim is not None  # nobody holds it now: it may be made again, here
        runner.start(job, lambda job: None).result(timeout=60)
        assert job.status == "done" and runner.read("job") is None  # made: its files went
        assert not list((tmp_path / "jobs").iterdir())
    finally:
        runner.close()


def test_a_failure_is_recorded_as_the_caller_describes_it_and_frees_the_claim(tmp_path):
    runner = JobRunner(tmp_path, said)
    try:
        job = Step("bad")
        job.claim = runner.files.claim("bad")

        def work(job):
            job.done = 2
            runner.publish(job)
            raise KeyError("no such thing")

        runner.start(job, work).result(timeout=60)
        failed = {"status": "failed", "done": 2, "error": {"key": "bad", "what": "KeyError", "text": "'no such thing'"}}
        assert job.status == "failed" and job.finished is not None and job.claim is None
        assert JobFiles(tmp_path).read("bad") == failed  # another process's pollers see why
        assert runner.read("bad") == failed and not runner.files.held("bad")
        again = runner.files.claim("bad")  # and whoever asks again may make it
        assert again is not None
        again.release()
    finally:
        runner.close()


def test_the_runner_makes_one_job_at_a_time_in_the_order_started(tmp_path):
    import threading

    runner = JobRunner(tmp_path, said)
    order, go = [], threading.Event()
    try:
        jobs = [Step(key) for key in ("a", "b", "c")]
        for job in jobs:
            job.claim = runner.files.claim(job.key)
            runner.start(job, lambda job: (order.append(job.key), go.wait(60)))
        wait_for(lambda: order, "the first job to start")
        others = JobFiles(tmp_path)  # as another process reads them
        assert [others.read(key)["status"] for key in "abc"] == ["running", "queued", "queued"]
        go.set()
        for job in jobs:
            job.future.result(timeout=60)
        assert order == ["a", "b", "c"] and [job.status for job in jobs] == ["done"] * 3
    finally:
        go.set()
        runner.close()


def test_the_servers_failures_keep_their_http_statuses(tmp_path):
    """The HTTP answers of failed jobs, unchanged since they moved from the runner to server/job_errors.py."""
    from factforge.generators.spec import SpecError
    from factforge.publish.releases import ReleaseError, ReleaseExists
    from factforge.sparql.store import StoreError

    assert scenario_failure("sc", SpecError("size", "size: too big")) == {
        "status": 422, "error": "size: too big", "field": "size"}
    assert scenario_failure("sc", StoreError("gone")) == {"status": 502, "error": "the store could not answer: gone"}
    assert scenario_failure("sc", ZeroDivisionError("/srv/x")) == {
        "status": 500, "error": "generation failed (ZeroDivisionError); the server log has the details"}
    release = release_failure(tmp_path)
    assert release("r", ReleaseExists(f"name: {tmp_path}/r.tar.gz exists", "name")) == {
        "status": 409, "error": "name: r.tar.gz exists", "field": "name"}
    assert release("r", ReleaseError("specs[1].size: too big", "specs[1].size"))["status"] == 422
    assert release("r", OSError("disk")) == {"status": 500, "error": "release failed (OSError)"}
    assert release("r", MakerStopped("r")) == scenario_failure("sc", MakerStopped("sc")) == {
        "status": 503, "error": "the server process making this stopped before it finished; "
                                "send the same request again to start it over"}


def test_a_claim_is_exclusive_until_released(tmp_path):
    files = JobFiles(tmp_path)
    assert not files.held("a")
    first = files.claim("a")
    assert first is not None and files.held("a") and files.claim("a") is None
    assert files.claim("b") is not None  # claims are per job
    first.release()
    assert not files.held("a")
    again = files.claim("a")
    assert again is not None
    again.release()


@pytest.mark.parametrize("failure", [scenario_failure, release_failure("/srv/releases")], ids=["scenario", "release"])
def test_a_killed_makers_running_job_reads_as_failed(tmp_path, failure):
    """Over HTTP (server/job_errors.py), as it read before the runner left HTTP to the server."""
    runner = JobRunner(tmp_path, failure)
    files = runner.files
    holder = hold(tmp_path, "job")
    try:
        assert files.held("job") and files.claim("job") is None
        assert runner.read("job")["status"] == "running"
    finally:
        kill(holder)
        runner.close()
    status = runner.read("job")
    assert status["status"] == "failed" and status["error"]["status"] == 503
    assert "send the same request again" in status["error"]["error"]
    claim = files.claim("job")  # and the job may be made again
    assert claim is not None
    claim.release()


def test_a_finished_status_stays_as_written(tmp_path):
    files = JobFiles(tmp_path)
    claim = files.claim("job")
    files.write("job", {"status": "done"})
    claim.release()
    runner = JobRunner(tmp_path, failure=said)
    assert files.read("job") == {"status": "done"} == runner.read("job")
    assert files.read("missing") is None and runner.read("missing") is None
    runner.close()


@pytest.mark.parametrize("content", ["", "{", "[]"])
def test_an_unreadable_status_file_is_no_status(tmp_path, content):
    files = JobFiles(tmp_path)
    (tmp_path / "job.json").write_text(content)
    assert files.read("job") is None  # never an exception


def test_remove_finished_takes_old_jobs_nobody_holds(tmp_path):
    files = JobFiles(tmp_path)
    for key, status in (("old-failed", "failed"), ("old-orphan", "running"), ("old-held", "running"),
                        ("fresh-failed", "failed")):
        claim = files.claim(key)
        files.write(key, {"status": status})
        claim.release()
    held = files.claim("old-held")  # a maker still at work (flock belongs to the open file: as another process)
    for key in ("old-failed", "old-orphan", "old-held"):
        _age(tmp_path, key, 7200)
    try:
        assert files.remove_finished(older_than=3600) == 2
        left = sorted(p.name for p in tmp_path.iterdir())
        assert left == ["fresh-failed.json", "fresh-failed.lock", "old-held.json", "old-held.lock"]
        assert files.read("old-held")["status"] == "running"
    finally:
        held.release()


def test_remove_finished_takes_status_files_left_half_written_by_a_killed_writer(tmp_path):
    import os

    files = JobFiles(tmp_path)
    old, fresh = tmp_path / ".job.123.456.partial", tmp_path / ".job.123.789.partial"
    for path in (old, fresh):
        path.write_text('{"status": "runn')
    os.utime(old, (old.stat().st_mtime - 7200,) * 2)
    files.remove_finished(older_than=3600)
    assert sorted(p.name for p in tmp_path.iterdir()) == [fresh.name]


def test_a_claim_waiting_for_a_removed_job_gets_the_new_lock_file(tmp_path):
    """A claimant waiting while the holder removes the job's files ends up holding the lock file at
    the path, not the removed one: otherwise it would own the job while a third process locked the
    new file of the same name."""
    import os
    import threading
    import time

    files = JobFiles(tmp_path)
    holder = files.claim("job")
    got, refused_once = [], threading.Event()

    def wait_for_it():  # asks again until it has the claim, however slow this machine is today
        deadline = time.monotonic() + 30
        while not got and time.monotonic() < deadline:
            claim = files.claim("job")
            if claim is not None:
                got.append(claim)
            else:
                refused_once.set()

    waiter = threading.Thread(target=wait_for_it)
    waiter.start()
    assert refused_once.wait(30), "the waiter never asked while the claim was held"
    files.remove("job", holder)
    waiter.join()
    assert got, "the claim never came free"
    try:
        path = tmp_path / "job.lock"
        assert path.exists() and os.fstat(got[0]._fd).st_ino == path.stat().st_ino
        assert files.claim("job", tries=1) is None  # and so it excludes everyone who opens the path now
    finally:
        got[0].release()


def test_a_lock_file_opened_before_its_removal_is_told_apart(tmp_path):
    """The check behind claim(): a descriptor opened before remove() is not the file at the path."""
    import os

    from factforge.publish.jobs import _same_file

    files = JobFiles(tmp_path)
    path = str(tmp_path / "job.lock")
    holder = files.claim("job")
    early = os.open(path, os.O_RDWR)  # a claimant between its open and its flock
    try:
        assert _same_file(early, path)
        files.remove("job", holder)
        assert not _same_file(early, path)  # the path is gone
        again = files.claim("job")  # a new file at the path
        assert again is not None and not _same_file(early, path)
        again.release()
    finally:
        os.close(early)




def test_no_publishing_module_writes_an_http_status():
    """HTTP statuses of jobs are the server's (server/job_errors.py): publish/ sits below it."""
    import re
    from pathlib import Path

    for path in sorted((Path(__file__).resolve().parents[1] / "publish").rglob("*.py")):
        found = re.findall(r"""["']status["']\s*:\s*\d{3}\b""", path.read_text(encoding="utf-8"))
        assert not found, f"{path.name} writes {found}"
