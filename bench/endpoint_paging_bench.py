"""Endpoint paging benchmark: keyset pages against OFFSET pages through a real `oxigraph serve`.

    python bench/endpoint_paging_bench.py [FILE.nt] [--predicate IRI] [--page-size N ...]

Loads FILE (default DBpedia50 from $FACTFORGE_DATA or ../shared/data) into a temporary Oxigraph store, serves it read-only on a loopback
port, and reads every fact of one predicate (default dbo:birthPlace) through ``EndpointStore`` with
small pages, as a server capping answers low would force: once following the last key (keyset, the
default) and once at a growing OFFSET (``keyset = False``). Prints time and pages per run; asserts
nothing beyond both runs giving the same rows.
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FILE = Path(os.environ.get("FACTFORGE_DATA", ROOT.parent / "shared" / "data")) / "dbpedia50" / "dbpedia50.nt"


def serve(location: Path) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen([shutil.which("oxigraph"), "serve-read-only", "--location", str(location), "--bind",
                                f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/query"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}?query=ASK%7B%7D", timeout=1).read()
            return process, url
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                raise SystemExit("oxigraph serve did not answer within 60 s")
            time.sleep(0.1)


def main() -> None:
    from factforge.sparql.remote import EndpointStore
    from factforge.sparql.terms import iri

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--predicate", default="dbo:birthPlace")
    parser.add_argument("--page-size", type=int, nargs="+", default=[100, 1000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        location = Path(folder) / "store"
        subprocess.run([shutil.which("oxigraph"), "load", "--location", str(location), "--file", str(args.file)],
                       check=True, capture_output=True)
        process, url = serve(location)
        try:
            print("| page size | paging | rows | pages | seconds |\n|---|---|---|---|---|")
            for size in args.page_size:
                answers = []
                for keyset in (True, False):
                    store = EndpointStore(url, page_size=size)
                    store.keyset = keyset
                    start = time.perf_counter()
                    rows = Counter((r["s"].value, r["o"].value)
                                   for r in store.select("predicate_facts", predicate=iri(args.predicate)))
                    seconds = time.perf_counter() - start
                    answers.append(rows)
                    total = sum(rows.values())
                    print(f"| {size} | {'keyset' if keyset else 'offset'} | {total} | {total // size + 1} | "
                          f"{seconds:.1f} |", flush=True)
                assert answers[0] == answers[1], "keyset and OFFSET pages differ"
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
