"""What several commands share: the one-line error, the KB options and opening the KB they name."""
from __future__ import annotations

import argparse
import os
import re
from dataclasses import replace
from pathlib import Path

from factforge.sparql.endpoint_fingerprints import MAX_AGE
from factforge.sparql.store import Store, open_store


def knob_help(constraint) -> str:
    """A spec knob's flag help, from the spec's constraints table: what it does, what it accepts, its default."""
    if constraint.kind in ("integer", "number"):
        low, high = ((int(constraint.low), int(constraint.high)) if constraint.kind == "integer"
                     else (f"{constraint.low:g}", f"{constraint.high:g}"))
        # a knob without a default says in its help what it does when not given
        default = "" if constraint.default is None else f" (default {constraint.default})"
        return f"{constraint.help}, {low}..{high}{default}"
    if constraint.kind == "text":
        return f"{constraint.help} (default {constraint.default})"
    if constraint.kind == "choice":
        return f"{constraint.help}: {' | '.join(constraint.allowed())} (default {constraint.default})"
    if constraint.kind == "choices":
        default = f" (default {','.join(constraint.default)})" if constraint.default else ""
        return f"{constraint.help}, comma-separated: {', '.join(constraint.allowed())}{default}"
    return constraint.help


def knob_option(parser: argparse.ArgumentParser, name: str, *, table: dict | None = None, flag: str | None = None,
                **default) -> None:
    """The flag of one knob of a constraints table (the spec's unless ``table`` is given):
    ``--max-path-length`` for ``max_path_length``, or ``flag`` (its value goes to ``name`` all the
    same); ``default=`` overrides the table's default where a command has its own (the grid)."""
    from factforge.generators.spec import CONSTRAINTS

    constraint = replace((table or CONSTRAINTS)[name], **default)
    flag = flag or "--" + name.replace("_", "-")
    if constraint.kind == "boolean":
        parser.add_argument(flag, dest=name, action="store_true", help=constraint.help)
        return
    value = ",".join(constraint.default) if constraint.kind == "choices" else constraint.default
    kind = {"integer": int, "number": float}.get(constraint.kind)
    parser.add_argument(flag, dest=name, **({"type": kind} if kind else {}), default=value, help=knob_help(constraint))


class CliError(Exception):
    """A problem to report in one line."""


def store_options(parser: argparse.ArgumentParser, *, required: bool = False, remembered: bool = True) -> None:
    """--store/--endpoint and the endpoint's options; ``remembered``: the command may use an endpoint
    fingerprint computed by an earlier command (``serve`` computes its own once, for all its workers)."""
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument("--store", metavar="DIR", default=os.environ.get("FACTFORGE_STORE"),
                       help="embedded store directory (default: $FACTFORGE_STORE)")
    group.add_argument("--endpoint", metavar="URL", help="a SPARQL 1.1 query endpoint instead of the embedded store")
    parser.add_argument("--graph", dest="graphs", action="append", default=[], metavar="IRI",
                        help="with --endpoint: a graph of the KB, sent as default-graph-uri (repeat for each; needed "
                             "for Virtuoso, whose default graph also holds its system graphs)")
    parser.add_argument("--endpoint-fingerprint", metavar="ID",
                        help="with --endpoint: use ID as the KB fingerprint (the key of every cache, written in every "
                             "scenario) instead of computing one. The computed one hashes per-predicate counts and the "
                             "first facts of each predicate: it misses a change that keeps every count outside that "
                             "sample (an object swapped), so pin a version label you change with the data")
    if remembered:
        parser.add_argument("--fingerprint-max-age", type=float, default=MAX_AGE, metavar="S",
                            help=f"with --endpoint: use the fingerprint an earlier command computed for the same URL "
                                 f"and graphs if it is at most S seconds old (default {MAX_AGE:g}; 0: compute it now). "
                                 f"A change to the KB within that time goes unseen")


def copy_option(parser: argparse.ArgumentParser,
                needed: str = "needed for homogeneity > 0; otherwise only the neighbourhoods a scenario reads are "
                              "fetched") -> None:
    """For the commands that read an endpoint's KB by neighbourhoods; ``needed``: what needs the copy."""
    parser.add_argument("--endpoint-copy", action="store_true",
                        help=f"with --endpoint: copy every link of the KB into a local index first (the old way; "
                             f"{needed})")


def endpoint_options(args) -> dict:
    """The EndpointStore options of the command line; refused without --endpoint."""
    graphs, pinned = getattr(args, "graphs", []), getattr(args, "endpoint_fingerprint", None)
    copy = getattr(args, "endpoint_copy", False)
    if (graphs or pinned or copy) and not args.endpoint:
        flag = '--graph' if graphs else '--endpoint-fingerprint' if pinned else '--endpoint-copy'
        raise CliError(f"{flag}: only with --endpoint")
    if pinned is not None and not re.fullmatch(r"[A-Za-z0-9_.-]{1,100}", pinned):
        raise CliError(f"--endpoint-fingerprint: {pinned[:100]!r} is not 1-100 letters, digits, '_', '.' or '-' "
                       f"(it names a cache folder)")
    max_age = getattr(args, "fingerprint_max_age", None)
    if max_age is not None and not 0 <= max_age <= 10 ** 9:
        raise CliError(f"--fingerprint-max-age: {max_age:g} is not between 0 and {10 ** 9} seconds")
    options = {"graphs": graphs} if graphs else {}
    if pinned:
        options["fingerprint"] = pinned
    elif args.endpoint and max_age is not None:
        options["fingerprint_max_age"] = max_age
    if copy:
        options["copy"] = True
    return options


def reading_store(args) -> Store:
    """The KB of a command that only reads it. Read-only, as RocksDB lets many processes open a
    store that way at once (a read-write open locks it): a long generate does not keep a profile
    out. Statistics caches are still written, beside the store when this user may write there."""
    if not args.store and not args.endpoint:
        raise CliError("give --store DIR or --endpoint URL (or set FACTFORGE_STORE)")
    if args.store and not Path(args.store).exists():
        raise CliError(f"--store: {args.store} does not exist (load something into it first)")
    return open_store(args.store, args.endpoint, read_only=bool(args.store), **endpoint_options(args))
