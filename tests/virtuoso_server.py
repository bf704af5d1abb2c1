"""A private Virtuoso 7 for tests and benches: its own folder and virtuoso.ini on loopback ports,
RDF files bulk-loaded into named graphs, stopped by its owner."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import requests

from conftest import free_port, stop_process, wait_for

VIRTUOSO = shutil.which("virtuoso-t")
ISQL = shutil.which("isql-vt") or shutil.which("isql")

INI = """\
[Database]
DatabaseFile = {dir}/virtuoso.db
ErrorLogFile = {dir}/virtuoso.log
LockFile = {dir}/virtuoso.lck
TransactionFile = {dir}/virtuoso.trx
xa_persistent_file = {dir}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {dir}/virtuoso-temp.db
TransactionFile = {dir}/virtuoso-temp.trx
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:{sql_port}
DirsAllowed = {dir}, {data_dirs}
NumberOfBuffers = {buffers}
MaxDirtyBuffers = {dirty}
CheckpointInterval = 0
ServerThreads = 4

[HTTPServer]
ServerPort = 127.0.0.1:{http_port}
ServerRoot = {dir}
ServerThreads = 4
MaxClientConnections = 4

[SPARQL]
ResultSetMaxRows = {cap}
MaxQueryExecutionTime = {max_seconds}
MaxQueryCostEstimationTime = 0
"""


class VirtuosoServer:
    """A private Virtuoso in ``workdir``: started, loaded, stopped by this object."""

    def __init__(self, workdir: Path, loads: list[tuple[Path, str]], *, cap: int, buffers: int = 10_000,
                 max_seconds: int = 300):
        """``cap``: ResultSetMaxRows; ``buffers``: 8 kB pages of memory (a 10M-triple load wants far
        more than the tests' KB); ``max_seconds``: MaxQueryExecutionTime, past which a query fails."""
        self.dir = workdir
        self.sql_port, self.http_port = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.http_port}/sparql"
        data_dirs = ", ".join(sorted({str(path.parent) for path, _graph in loads})) or str(workdir)
        (workdir / "virtuoso.ini").write_text(INI.format(dir=workdir, data_dirs=data_dirs, sql_port=self.sql_port,
                                                         http_port=self.http_port, cap=cap,
                                                         buffers=buffers, dirty=buffers * 3 // 5,
                                                         max_seconds=max_seconds))
        self.log = open(workdir / "stdout.log", "wb")
        self.process = subprocess.Popen([VIRTUOSO, "+configfile", str(workdir / "virtuoso.ini"), "+foreground"],
                                        cwd=workdir, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            wait_for(self._answers, "Virtuoso to answer SPARQL", timeout=180, interval=0.2)
            self._load(loads)
        except BaseException:
            self.stop()
            raise

    def _answers(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"virtuoso-t exited: {(self.dir / 'stdout.log').read_text(errors='replace')[-2000:]}")
        try:
            return requests.get(self.url, params={"query": "ASK {}"}, timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def isql(self, statements: str, *, timeout: float = 600) -> str:
        result = subprocess.run([ISQL, f"127.0.0.1:{self.sql_port}", "dba", "dba", f"exec={statements}"],
                                capture_output=True, text=True, timeout=timeout)
        assert result.returncode == 0 and "*** Error" not in result.stdout, result.stdout + result.stderr
        return result.stdout

    def _load(self, loads: list[tuple[Path, str]]) -> None:
        for path, graph in loads:
            self.isql(f"ld_dir('{path.parent}', '{path.name}', '{graph}');")
        self.isql("rdf_loader_run(); checkpoint;", timeout=7200)  # a bench's 10M triples take long
        errors = self.isql("SELECT ll_file FROM DB.DBA.load_list WHERE ll_state <> 2 OR ll_error IS NOT NULL;")
        assert "0 Rows" in errors, errors

    def stop(self) -> None:
        stop_process(self.process, grace=60)  # a checkpoint on shutdown can take a while
        self.log.close()
