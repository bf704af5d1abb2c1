"""``factforge serve``: the HTTP server, from the command line's options (one process or --workers N)."""
from __future__ import annotations

import argparse
import os
import re
import time
from pathlib import Path

from factforge.sparql.store import StoreError, open_store

from .options import CliError, copy_option, endpoint_options, store_options


def register(sub) -> None:
    serve = sub.add_parser("serve", help="serve the API, the SPARQL endpoint and the console over HTTP (waitress)")
    store_options(serve, remembered=False)
    copy_option(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--threads", type=int, default=8, help="request threads (default 8)")
    serve.add_argument("--workers", type=int, default=None,
                       help="server processes on the port (default $FACTFORGE_WORKERS or 1; one per core serves more)")
    serve.add_argument("--listen-fd", type=int, help=argparse.SUPPRESS)  # a worker of --workers N
    serve.add_argument("--endpoint-wait", type=float, default=0.0, metavar="S",
                       help="wait up to S seconds at start for --endpoint to answer (default 0: fail at once; "
                            "for a server started beside it, as in docker/compose.yaml)")
    serve.add_argument("--sparql-timeout", type=float, default=30.0, metavar="S", help="/sparql time limit (default 30 s)")
    serve.add_argument("--row-cap", type=int, default=100_000, help="/sparql row cap (default 100000)")
    serve.add_argument("--sparql-workers", type=int, default=2, metavar="N",
                       help="/sparql queries run at once, each in its own process (default 2)")
    serve.add_argument("--sparql-queue", type=int, default=2, metavar="N",
                       help="/sparql queries that may wait for a worker; more get 503 at once (default 2)")
    serve.add_argument("--sparql-memory", type=int, default=2048, metavar="MB",
                       help="memory of one /sparql query process; past it the query gets 400 (default 2048)")
    serve.add_argument("--service-allow", action="append", default=[], metavar="IRI",
                       help="a SPARQL endpoint that /sparql queries may call with SERVICE <IRI> (repeat for more; "
                            "default: SERVICE is refused)")
    serve.add_argument("--connection-limit", type=int, default=1000, metavar="N",
                       help="open connections at most; past it new ones wait (default 1000)")
    serve.add_argument("--idle-timeout", type=float, default=30.0, metavar="S",
                       help="a connection that sends nothing for S seconds is closed (default 30)")
    serve.add_argument("--max-facts", type=int, default=20_000, help="largest scenario served (size + train_size)")
    serve.add_argument("--scenarios", metavar="DIR", help="where made scenarios are kept (default: in the cache)")
    serve.add_argument("--releases", metavar="DIR", help="where frozen releases are kept (default: in the cache)")
    serve.add_argument("--scenario-disk", type=float, default=2048.0, metavar="MB",
                       help="bound on the disk made scenarios take; least recently used ones are evicted and made "
                            "again when asked for (default 2048 MB; releases are never evicted)")
    serve.add_argument("--generation-queue", type=int, default=8, metavar="N",
                       help="scenarios made or waiting at once, all workers together; more are refused with 429 "
                            "(default 8)")
    serve.set_defaults(func=cmd_serve)


def _workers(given: int | None) -> int:
    """--workers, or its default from $FACTFORGE_WORKERS (named in the error when that is what is
    wrong: a container's environment is easy to forget)."""
    source, value = "--workers", given
    if value is None:
        source, raw = "FACTFORGE_WORKERS", os.environ.get("FACTFORGE_WORKERS", "1")
        try:
            value = int(raw)
        except ValueError:
            raise CliError(f"FACTFORGE_WORKERS: {raw!r} is not a whole number (it sets the default of --workers)") from None
    if not 1 <= value <= 64:
        raise CliError(f"{source}: {value} is not between 1 and 64")
    return value


def cmd_serve(args) -> int:
    if not 0 <= args.port <= 65535:
        raise CliError(f"--port: {args.port} is not a port number")
    args.workers = _workers(args.workers)
    if args.threads < 1:
        raise CliError(f"--threads: {args.threads} is below 1")
    if not 0 <= args.endpoint_wait <= 3600:
        raise CliError(f"--endpoint-wait: {args.endpoint_wait:g} is not between 0 and 3600 seconds")
    if args.endpoint_wait and not args.endpoint:
        raise CliError("--endpoint-wait: there is no --endpoint to wait for")
    endpoint_options(args)
    _check_serving_limits(args)
    if not 0 < args.scenario_disk < float("inf"):
        raise CliError(f"--scenario-disk: {args.scenario_disk:g} is not a positive number of MB")
    if args.generation_queue < 1:
        raise CliError(f"--generation-queue: {args.generation_queue} is below 1")
    if args.endpoint_wait and args.listen_fd is None:  # workers are started once it answers
        _wait_for_endpoint(args.endpoint, args.endpoint_wait)
    if args.workers > 1 and args.listen_fd is None:
        return _supervise(args)
    from factforge.server.serve import CannotListen, serve
    from factforge.sparql.demo_kb import demo_store

    worker = args.listen_fd is not None
    if args.store or args.endpoint:
        if args.store and not Path(args.store).exists():
            raise CliError(f"--store: {args.store} does not exist (load something into it first)")
        # The server only reads: it, its query processes, the workers of --workers N and every reading
        # command open the store read-only, which RocksDB allows many processes to do at once (and a
        # load waits until the readers are gone).
        store = open_store(args.store, args.endpoint, read_only=bool(args.store), **endpoint_options(args))
    else:
        if not worker:
            print("No --store or --endpoint: serving the bundled demo KB from memory.", flush=True)
        store = demo_store(progress=not args.quiet and not worker)
    try:
        serve(store, app_config(args), host=args.host, port=args.port, threads=args.threads, listen_fd=args.listen_fd)
    except CannotListen as error:
        raise CliError(f"--port: {error}") from None
    return 0


def app_config(args) -> dict:
    return {"SPARQL_TIMEOUT": args.sparql_timeout, "SPARQL_ROW_CAP": args.row_cap, "MAX_FACTS": args.max_facts,
            "SPARQL_WORKERS": args.sparql_workers, "SPARQL_QUEUE": args.sparql_queue, "SPARQL_WARM": True,
            "SERVICE_ALLOW": list(args.service_allow), "SPARQL_MEMORY_MB": args.sparql_memory,
            "CONNECTION_LIMIT": args.connection_limit, "IDLE_TIMEOUT": args.idle_timeout,
            "RELEASES_DIR": args.releases, "SCENARIO_DIR": args.scenarios,
            "SCENARIO_DISK_MB": args.scenario_disk, "GENERATION_QUEUE": args.generation_queue,
            "TOKEN": os.environ.get("FACTFORGE_TOKEN") or None}


def _check_serving_limits(args) -> None:
    if not 1 <= args.sparql_workers <= 64:
        raise CliError(f"--sparql-workers: {args.sparql_workers} is not between 1 and 64")
    if not 0 <= args.sparql_queue <= 1024:
        raise CliError(f"--sparql-queue: {args.sparql_queue} is not between 0 and 1024")
    if args.sparql_workers + args.sparql_queue >= args.threads:
        raise CliError(f"--sparql-queue: {args.sparql_workers} workers + {args.sparql_queue} waiting would take "
                       f"every one of the {args.threads} request threads (--threads); leave some for the API")
    if not 64 <= args.sparql_memory <= 1_048_576:
        raise CliError(f"--sparql-memory: {args.sparql_memory} is not between 64 and 1048576 MB")
    for iri in args.service_allow:
        if not re.fullmatch(r"https?://[^\s<>\"{}|^`\\]+", iri):
            raise CliError(f"--service-allow: {iri!r} is not an http(s) IRI")
    if not 10 <= args.connection_limit <= 100_000:
        raise CliError(f"--connection-limit: {args.connection_limit} is not between 10 and 100000")
    if not 1 <= args.idle_timeout <= 3600:
        raise CliError(f"--idle-timeout: {args.idle_timeout:g} is not between 1 and 3600 seconds")


def _wait_for_endpoint(url: str, seconds: float) -> None:
    """Until the endpoint answers a query, or ``seconds`` pass: a compose file starts the SPARQL
    server and factforge together, and a big store takes a while to open (some servers refuse
    connections meanwhile, others answer 503). The last failure is in the error at the deadline."""
    store = open_store(None, url, timeout=10)
    deadline = time.monotonic() + seconds
    told = False
    while True:
        try:
            store.ask_query("ASK {}")
            return
        except StoreError as error:
            if time.monotonic() >= deadline:
                raise CliError(f"--endpoint: {url} did not answer within --endpoint-wait {seconds:g} s ({error})") from None
        if not told:
            print(f"waiting up to {seconds:g} s for {url} to answer", flush=True)
            told = True
        time.sleep(0.5)


def _supervise(args) -> int:
    from factforge.server.workers import Supervisor, WorkerFailed

    if args.store and not Path(args.store).exists():
        raise CliError(f"--store: {args.store} does not exist (load something into it first)")
    child = (["--quiet"] if args.quiet else []) + [
        "serve", "--threads", str(args.threads), "--sparql-timeout", str(args.sparql_timeout),
        "--row-cap", str(args.row_cap), "--max-facts", str(args.max_facts),
        "--sparql-workers", str(args.sparql_workers), "--sparql-queue", str(args.sparql_queue),
        "--sparql-memory", str(args.sparql_memory),
        "--connection-limit", str(args.connection_limit), "--idle-timeout", str(args.idle_timeout),
        "--scenario-disk", repr(args.scenario_disk), "--generation-queue", str(args.generation_queue)]
    for iri in args.service_allow:
        child += ["--service-allow", iri]
    for graph in args.graphs:
        child += ["--graph", graph]
    if args.endpoint:  # computed here once, not by every worker (a GROUP BY over the whole KB)
        fingerprint = open_store(None, args.endpoint, **endpoint_options(args)).fingerprint()
        child += ["--endpoint-fingerprint", fingerprint]
        if args.endpoint_copy:  # each worker builds the same whole index the user asked for
            child += ["--endpoint-copy"]
    for flag, value in (("--store", args.store), ("--endpoint", args.endpoint), ("--scenarios", args.scenarios),
                        ("--releases", args.releases)):
        if value:
            child += [flag, str(Path(value).resolve()) if flag != "--endpoint" else value]
    if not (args.store or args.endpoint):
        print("No --store or --endpoint: each worker serves the bundled demo KB from memory.", flush=True)
    try:
        supervisor = Supervisor(child, host=args.host, port=args.port, workers=args.workers)
    except OSError as error:
        raise CliError(f"--port: cannot listen on {args.host}:{args.port} ({error.strerror or error})") from None
    try:
        return supervisor.run()
    except WorkerFailed as error:
        raise CliError(str(error)) from None
