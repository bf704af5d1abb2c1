"""``factforge query``: one read-only SPARQL query, its results on stdout."""
from __future__ import annotations

import sys
from pathlib import Path

from factforge.sparql.result_formats import FORMATS

from .options import CliError, reading_store, store_options


def register(sub) -> None:
    query = sub.add_parser("query", help="run a read-only SPARQL query")
    store_options(query)
    query.add_argument("query", nargs="?", help="the query text")
    query.add_argument("--file", metavar="Q.rq", help="read the query from a file")
    query.add_argument("--format", dest="result_format", default="tsv",
                       choices=[f.name for f in FORMATS])
    query.set_defaults(func=cmd_query)


def cmd_query(args) -> int:
    if bool(args.query) == bool(args.file):
        raise CliError("query: give the query text or --file, not both or neither")
    text = args.query
    if args.file:
        try:
            text = Path(args.file).read_text(encoding="utf-8")
        except OSError as error:
            raise CliError(f"--file: {error.strerror}: {args.file}") from None
        except UnicodeDecodeError:
            raise CliError(f"--file: {args.file} is not UTF-8 text") from None
    store = reading_store(args)
    last = b""
    for last in store.answer_file(text, args.result_format).chunks():
        sys.stdout.buffer.write(last)
    if not last.endswith(b"\n"):
        sys.stdout.buffer.write(b"\n")
    return 0
