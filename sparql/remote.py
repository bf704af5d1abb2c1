"""A remote SPARQL 1.1 endpoint (oxigraph serve, Virtuoso, QLever, Fuseki) over the SPARQL Protocol.

Read-only. Results are converted to pyoxigraph terms so that callers cannot tell this backend
from the embedded one. What makes the answers the same as the embedded store's (docs/endpoints.md):

* the KB's graphs: given (``graphs``, sent as ``default-graph-uri``), or else the endpoint's
  default graph must be the union of the KB's graphs (``oxigraph serve --union-default-graph``);
  a Virtuoso default graph, which also holds Virtuoso's system graphs, is refused;
* complete answers: a SELECT is read as one unordered answer when it can be shown whole (fewer
  rows than a cap the server announced or the probe found, or as many rows as the server's own
  COUNT of the query), else in ordered pages below the server's cap (``sparql.paging``); an answer
  that may have been cut short is an error, never data. Rows of an unordered answer are sorted
  here, so that the same KB gives the same order whatever the engine sent;
* answers read as they arrive (``json_results_stream``), an unordered one sorted in runs spilled
  to disk (``spilled_sort``): memory holds a run, not the body.
"""
from __future__ import annotations

import json
import re
import sys
from contextlib import contextmanager
from typing import Iterator

import pyoxigraph as ox

from . import endpoint_fingerprints
from . import fingerprint as fp
from . import results
from .interface import Row, Store, StoreError
from .answer_file import AnswerFile
from .json_results_stream import JsonResults, MalformedAnswer
from .messages import shown
from .read_costs import ReadCosts
from .paging import SORTED_TOP, Cursor, Select, probe_count, probe_rows, query_form
from .protocol import EndpointHTTPError, IncompleteAnswer, Reply, SparqlHttp
from .result_formats import BY_NAME, GRAPH_MEDIA, RESULT_MEDIA
from .spilled_sort import RUN_ROWS, SpilledSort

JSON = RESULT_MEDIA["json"]
NTRIPLES = BY_NAME["ntriples"]
GRAPHS = f"{NTRIPLES.media_type}, {BY_NAME['turtle'].media_type};q=0.9"
#: rows asked for in one page: at most Virtuoso's default cap, so that it pages without a retry
PAGE_SIZE = 10_000
#: graphs a Virtuoso database always holds; one of them in the default graph means system triples are in it
VIRTUOSO_SYSTEM_GRAPH = "http://www.openlinksw.com/schemas/virtrdf#"
#: facts of each predicate that the fingerprint's content sample reads, and predicates a query
SAMPLE_FACTS = 8
SAMPLE_BATCH = 25


class RowCapExceeded(StoreError):
    client_status = 422


class EndpointStore(Store):
    kind = "endpoint"
    #: pages start after the last key read (False: at the OFFSET of every row read; the older way, for comparison)
    keyset = True
    #: a SELECT is first asked for whole, unordered, and paged only when that answer was cut (False:
    #: ordered pages only; each page sorts the whole answer in the server, so they cost far more)
    unordered = True
    #: a SELECT answer is parsed as it arrives, and an unordered one sorted in runs spilled to disk
    #: (False: each body read whole and parsed at once; the older way, for comparison)
    streamed = True
    #: rows of an unordered answer held in memory while it is sorted
    run_rows = RUN_ROWS
    stable_blank_ids = False

    def __init__(self, url: str, *, timeout: float = 300.0, fingerprint: str | None = None,
                 graphs: tuple[str, ...] | list[str] = (), page_size: int = PAGE_SIZE,
                 fingerprint_max_age: float | None = None, copy: bool = False):
        if not url.startswith(("http://", "https://")):
            raise StoreError(f"endpoint: {url!r} is not an http(s) URL")
        for graph in graphs:
            _check_graph(graph)
        self.url = url
        self.timeout = timeout
        self.graphs = tuple(graphs)
        self.page_size = page_size
        self.whole_index = copy  # True: the old way, every link copied into a local index
        self.rows_read = 0  # SELECT rows received, for tests and benches of what a command moves
        self._http = SparqlHttp(url, graphs=self.graphs, timeout=timeout)
        self._fingerprint = fingerprint
        self._pinned = fingerprint  # given by the user: names this KB (caches, remembered probes)
        self._probe_recalled = False
        self.fingerprint_max_age = fingerprint_max_age  # None: computed by this store, not remembered
        self._cap: int | None = None         # the server's row cap, once seen
        self._whole_below = 1                # an answer of fewer rows than this was not cut (the probe showed it)
        self._virtuoso = False               # set by the first answer that says so
        # holds Virtuoso's system graph, whatever its answers' headers say (_check_dataset): never
        # trusted for a cut answer's mark, which a proxy may strip; only for how it joins
        self._virtuoso_graphs = False
        self._dataset_checked = False
        self.read_costs = ReadCosts()          # what its answers cost, as neighbourhood readers timed them

    # --- transport -------------------------------------------------------------------------------
    @property
    def hash_joins_subqueries(self) -> bool:
        self._check_dataset()
        return not (self._virtuoso or self._virtuoso_graphs)

    def _post(self, query: str, accept: str) -> Reply:
        return self._seen(self._http.post(query, accept))

    def _seen(self, reply: Reply) -> Reply:
        """What an answer's headers tell of the server, kept."""
        self._virtuoso = self._virtuoso or reply.is_virtuoso
        if reply.row_cap is not None:
            self._cap = reply.row_cap
        return reply

    @contextmanager
    def _select_answer(self, query: str) -> Iterator[tuple[Reply, JsonResults]]:
        """A SELECT answer whose bindings are read as they arrive (or from the whole body: ``streamed``)."""
        if not self.streamed:
            data, reply = self._json(query)
            yield reply, _Whole(data)
            return
        with self._http.opened(query, JSON) as reply:
            try:
                yield self._seen(reply), JsonResults(reply.read)
            except MalformedAnswer as error:
                raise StoreError(f"endpoint {self.url} sent invalid JSON: {error}") from None

    def _json(self, query: str) -> tuple[dict, Reply]:
        reply = self._post(query, JSON)
        try:
            return json.loads(reply.body), reply
        except ValueError as error:
            raise StoreError(f"endpoint {self.url} sent invalid JSON: {error}") from None

    # --- the dataset -----------------------------------------------------------------------------
    def select(self, template: str, **params) -> Iterator[Row]:
        self._check_dataset()
        return super().select(template, **params)

    def ask(self, template: str, **params) -> bool:
        self._check_dataset()
        return super().ask(template, **params)

    def construct(self, template: str, **params) -> Iterator[ox.Triple]:
        self._check_dataset()
        return super().construct(template, **params)

    def _check_dataset(self) -> None:
        """Once: the named graphs exist, or the default graph is the KB and only the KB."""
        if self._dataset_checked:
            return
        if self.graphs:
            for graph in self.graphs:  # each as the only default graph: with default-graph-uri alone, a
                # dataset has no named graph for GRAPH <g> to find
                alone = EndpointStore(self.url, timeout=self.timeout, graphs=(graph,))
                if not alone.ask_query("ASK { ?s ?p ?o }"):
                    raise StoreError(f"--graph: endpoint {self.url} has no triple in graph <{graph}>")
            # a Virtuoso behind a proxy that drops its Server header is still told by its system
            # graph: it runs two joined subqueries as a nested loop (docs/endpoints.md). An endpoint
            # that refuses a query without the graphs is not taken for one: the graphs' answers decide
            try:
                whole = EndpointStore(self.url, timeout=self.timeout)
                self._virtuoso_graphs = whole.ask_query(f"ASK {{ GRAPH <{VIRTUOSO_SYSTEM_GRAPH}> {{ ?s ?p ?o }} }}")
            except EndpointHTTPError:
                self._virtuoso_graphs = False
        elif self.ask_query(f"ASK {{ GRAPH <{VIRTUOSO_SYSTEM_GRAPH}> {{ ?s ?p ?o }} }}"):
            raise StoreError(
                f"endpoint {self.url} is a Virtuoso server whose default graph also holds its system graphs "
                f"(<{VIRTUOSO_SYSTEM_GRAPH}> and others): they would count as KB facts. Name the KB's graphs "
                f"with --graph IRI (repeat it for each; SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }} "
                f"lists them)")
        else:
            self._warn_unless_union()
        self._dataset_checked = True

    def _warn_unless_union(self) -> None:
        """A triple of a named graph that the default graph lacks: the default graph is not the
        union of the graphs (``oxigraph serve`` without ``--union-default-graph``), so a KB split
        over graphs (data, ontology) is read in part only."""
        sample = list(self.select_query(
            "SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o FILTER(!isBlank(?s) && !isBlank(?o)) } } LIMIT 1"))
        if not sample:
            return
        row = sample[0]
        if not self.ask_query(f"ASK {{ {row['s']} {row['p']} {row['o']} }}"):
            print(f"factforge: warning: the default graph of endpoint {self.url} is not the union of its named "
                  f"graphs (oxigraph serve without --union-default-graph?): only the default graph is read as "
                  f"the KB. Start the server with --union-default-graph, or name the KB's graphs with --graph IRI",
                  file=sys.stderr, flush=True)

    # --- queries ---------------------------------------------------------------------------------
    def select_query(self, query: str) -> Iterator[Row]:
        """Every row: whole when the query's own LIMIT fits in a page and no cap cut it, else read
        in ordered pages; an error when completeness cannot be shown."""
        parsed = Select.parse(query)
        if parsed is None:
            variables, bindings = self._select_once(query)
            yield from (_row(binding) for binding in bindings)
            return
        if parsed.limit is not None and parsed.limit <= self.page_size:
            bindings = self._whole_or_none(query)
            if bindings is not None:
                yield from (_row(binding) for binding in bindings)
                return
        order = parsed.variables
        if order is None:
            order = list(self._json(parsed.variables_query())[0].get("head", {}).get("vars", []))
        if not order:
            yield from (_row(binding) for binding in self._select_once(query)[1])
            return
        if self.unordered:
            rows = self._unordered_whole(query, parsed, order)
            if rows is not None:
                yield from (_row(binding) for binding in rows)
                return
        yield from self._pages(parsed, order)

    def _unordered_whole(self, query: str, parsed: Select, order: list[str]) -> SpilledSort | None:
        """The answer of ``query`` sent as it is, sorted here, when it is shown whole; None when a
        cap cut it or would (then it is paged). Where a silent cap is known, the server's COUNT comes
        first, and an answer the cap would cut is not asked for."""
        if self._cap is None:
            self._recall_probe()
        count = self._count(parsed) if self._cap is not None and not self._virtuoso else None
        if count is not None and count >= self._cap:
            return None
        rows = SpilledSort(_sort_key(order), run_rows=self.run_rows)
        try:
            whole = self._read_unordered(query, parsed, rows, count)
        except BaseException:
            rows.close()
            raise
        if not whole:
            rows.close()
            return None
        return rows

    def _read_unordered(self, query: str, parsed: Select, rows: SpilledSort, count: int | None) -> bool:
        """Whether the answer read into ``rows`` is whole. A small answer (at most a page) is shown
        whole as any page is, by the cap the server announced or the probe found; a larger one by the
        server's COUNT of the same query (one row, never cut): fewer rows than counted were cut at a
        cap, more are an error."""
        with self._select_answer(query) as (reply, answer):
            if reply.row_cap is not None:
                return False  # Virtuoso marks an answer that reached its cap: the rest of it is not read
            rows.extend(answer.bindings())
        self.rows_read += rows.rows
        read = rows.rows
        if count is None:
            if read <= self.page_size:
                return not (read and self._capped_at(reply, read) is not None)
            if self._cap is not None and read >= self._cap:
                return False
            count = self._count(parsed)
        if count == read:
            return True
        if count is not None and read < count:
            self._cap = read if self._cap is None else min(self._cap, read)  # cut silently: page below it
            return False
        raise IncompleteAnswer(f"endpoint {self.url} sent {read:,} rows of an answer it counts as {count}: the KB "
                               f"changed while it was read, or the server cannot count its own answer, so none of "
                               f"it is used")

    def _count(self, parsed: Select) -> int | None:
        try:
            return int(_bindings(self._json(parsed.count())[0])[0]["n"]["value"])
        except (IndexError, KeyError, TypeError, ValueError):
            return None

    def _pages(self, parsed: Select, order: list[str]) -> Iterator[Row]:
        size = min(self.page_size, self._cap or self.page_size)
        cursor = Cursor(order[0])
        while True:
            offset, after = cursor.start(self.keyset)
            query = parsed.page(order, size, offset=offset, after=after,
                                nested=self._virtuoso and offset + size > SORTED_TOP)
            try:
                reply, bindings = self._bindings_of(query)
            except EndpointHTTPError as error:
                if "SR353" in str(error) and not self._virtuoso:  # Virtuoso's sorted-TOP limit: its own form
                    self._virtuoso = True
                    continue
                raise
            self.rows_read += len(bindings)
            if len(bindings) < size:
                cap = self._capped_at(reply, len(bindings))
                if cap is not None:
                    if cap < 1:
                        raise IncompleteAnswer(f"endpoint {self.url} caps answers at {cap} rows: nothing can be read")
                    size = cap  # ask for the same page again, below the cap
                    continue
            yield from (_row(binding) for binding in bindings)
            if len(bindings) < size:
                return
            cursor.advance(bindings)

    def _whole_or_none(self, query: str) -> list[dict] | None:
        """The answer of a query sent as it is, or None when a cap cut it (then it is paged)."""
        reply, bindings = self._bindings_of(query)
        self.rows_read += len(bindings)
        if bindings and self._capped_at(reply, len(bindings)) is not None:
            return None
        return bindings

    def _bindings_of(self, query: str) -> tuple[Reply, list[dict]]:
        """Every binding of an answer of at most a page or a cap, read as it arrives."""
        with self._select_answer(query) as (reply, answer):
            return reply, list(answer.bindings())

    def _capped_at(self, reply: Reply, rows: int, *, announced: bool = True) -> int | None:
        """The server's row cap when an answer of ``rows`` rows was cut at it, else None (shown whole).
        ``announced``: a SELECT answer, which Virtuoso marks when it cut it (it cuts graphs silently)."""
        if reply.row_cap is not None and rows >= reply.row_cap:
            return reply.row_cap
        if self._cap is None and not (announced and self._virtuoso) and rows >= self._whole_below:
            self._recall_probe()
        if self._cap is None and not (announced and self._virtuoso) and rows >= self._whole_below:
            self._probe(rows + 1)
        if self._cap is not None:
            return self._cap if rows >= self._cap else None
        return None

    def _probe(self, rows: int, *, counted: bool = True) -> None:
        """Find the server's cap, or show there is none up to ``rows`` (at least a page and one): ask
        for that many rows of a query whose true count the server also gives by COUNT. Fewer rows
        than counted: they are the cap. ``counted`` False: an earlier probe showed the server counts
        that query right, so only its rows are asked for."""
        rows = max(rows, self.page_size + 1)
        if counted:
            self._check_probe_count(rows)
        with self._select_answer(probe_rows(rows)) as (_reply, answer):
            got = sum(1 for _binding in answer.bindings())  # counted as they come: as large as the answer probed
        if self._cap is None and got < rows:
            self._cap = got
        self._whole_below = max(self._whole_below, rows)
        if self._remembers:
            endpoint_fingerprints.remember_probe(self.url, self.graphs, pinned=self._pinned, cap=self._cap,
                                                 whole_below=self._whole_below)

    def _check_probe_count(self, rows: int) -> None:
        counted = self._json(probe_count(rows))[0]
        try:
            count = int(_bindings(counted)[0]["n"]["value"])
        except (IndexError, KeyError, TypeError, ValueError):
            count = None
        if count != rows:
            raise IncompleteAnswer(f"endpoint {self.url}: cannot tell whether it cuts answers at a row cap (a probe "
                                   f"of {rows} rows was counted as {count}), so no answer of it can be shown whole")

    @property
    def _remembers(self) -> bool:
        """Whether this store shares what it learns of the server with other processes (a pinned
        fingerprint, or a remembered one)."""
        return self._pinned is not None or self.fingerprint_max_age is not None

    def _recall_probe(self) -> None:
        """Once: what an earlier process's probe of this endpoint found (``endpoint_fingerprints``),
        checked again by its rows alone: a cap lowered since then is found (the probe's count is what
        is saved)."""
        if self._probe_recalled or not self._remembers:
            return
        self._probe_recalled = True
        found = endpoint_fingerprints.probe_found(self.url, self.graphs, pinned=self._pinned,
                                                  max_age=self.fingerprint_max_age)
        if found is not None and self._cap is None:
            self._probe(found["whole_below"], counted=False)

    def _select_once(self, query: str) -> tuple[list[str], list[dict]]:
        """One SELECT answer that cannot be paged (free text): refused when it may be cut short."""
        with self._select_answer(query) as (reply, answer):
            bindings = list(answer.bindings())
        if not answer.has_results:
            raise StoreError("not a SELECT query")
        self.rows_read += len(bindings)
        self._refuse_capped(reply, len(bindings), "rows")
        return answer.variables, bindings

    def _refuse_capped(self, reply: Reply, count: int, what: str) -> None:
        cap = self._capped_at(reply, count, announced=what == "rows") if count else None
        if cap is not None:
            raise IncompleteAnswer(
                f"endpoint {self.url} cut this answer at its cap of {cap} {what} (Virtuoso: ResultSetMaxRows): "
                f"the rest is missing, so none of it is used. Add a LIMIT below {cap} and read further with "
                f"ORDER BY and OFFSET, or raise the endpoint's cap")

    def ask_query(self, query: str) -> bool:
        data, _reply = self._json(query)
        if "boolean" in data:
            return bool(data["boolean"])
        # Virtuoso 7 answers ASK as a SELECT of one variable: one row (1) when true, none when false
        head = data.get("head", {}).get("vars", [])
        if head == ["__ASK_RETVAL"] and "results" in data:
            return any(b.get("__ASK_RETVAL", {}).get("value") not in (None, "0") for b in _bindings(data))
        raise StoreError("not an ASK query")

    def construct_query(self, query: str) -> Iterator[ox.Triple]:
        answer = self.answer_file(query, "ntriples")
        # read back from the file as parsed, once the whole answer was shown complete
        for quad in ox.parse(answer.file_from_start(), format=ox.RdfFormat.N_TRIPLES):
            yield quad.triple
        answer.close()

    def run_query(self, query: str, result_format: str = "json", *, row_cap: int | None = None) -> tuple[bytes, str]:
        answer = self.answer_file(query, result_format, row_cap=row_cap)
        return answer.read(), answer.media_type

    def answer_file(self, query: str, result_format: str = "json", *, row_cap: int | None = None) -> AnswerFile:
        """The answer in ``result_format`` (written here, whatever the endpoint offers), written to a
        file as it arrives and returned once it is shown whole; ``row_cap``: more rows or triples
        than this are refused (as soon as they are read), as the embedded /sparql does."""
        form = query_form(query)
        if form in ("CONSTRUCT", "DESCRIBE"):
            return self._graph_file(query, result_format if result_format in GRAPH_MEDIA else "turtle", row_cap)
        if result_format not in RESULT_MEDIA:
            raise StoreError(f"format: {result_format!r} is not one of {', '.join(RESULT_MEDIA)}")
        if form == "ASK":
            return AnswerFile.of(results.ask_bytes(self.ask_query(query), result_format), RESULT_MEDIA[result_format])
        with AnswerFile("application/x-ndjson") as bindings:  # the rows as they came, until shown whole
            with self._select_answer(query) as (reply, answer):
                self._refuse_capped(reply, reply.row_cap or 0, "rows")  # Virtuoso marks a cut answer up front
                count = 0
                for binding in answer.bindings():
                    count += 1
                    _check_row_cap(count, row_cap)
                    bindings.file.write(json.dumps(binding).encode("utf-8") + b"\n")
            if not answer.has_results:
                raise StoreError("not a SELECT query")
            self.rows_read += count
            self._refuse_capped(reply, count, "rows")
        variables = answer.variables
        rows = (tuple(_term(b[v]) if v in b else None for v in variables)
                for b in map(json.loads, bindings.file_from_start()))
        with AnswerFile(RESULT_MEDIA[result_format], rows=count) as written:
            written.write_text(results.SELECT_CHUNKS[result_format](variables, rows))
        bindings.close()
        return written

    def _graph_file(self, query: str, name: str, row_cap: int | None) -> AnswerFile:
        rdf_format, media = GRAPH_MEDIA[name]
        with AnswerFile(media) as written:
            with self._http.opened(query, GRAPHS) as reply:
                self._seen(reply)
                source = ox.RdfFormat.N_TRIPLES if reply.media_type in (NTRIPLES.media_type, *NTRIPLES.aliases) \
                    else ox.RdfFormat.TURTLE
                triples = _Counted((quad.triple for quad in ox.parse(reply, format=source)), row_cap)
                try:
                    ox.serialize(triples, written.file, format=rdf_format)
                except SyntaxError as error:
                    raise StoreError(f"endpoint {self.url} sent invalid {source.name}: {error}") from None
            # a graph answer carries no cap header (Virtuoso cuts it silently): probe for a cap at its size
            self._refuse_capped(reply, triples.count, "triples")
            written.rows = triples.count
        return written

    # --- identity --------------------------------------------------------------------------------
    def triple_count(self) -> int:
        return self.count("count_triples")

    def fingerprint(self) -> str:
        """The pinned fingerprint if one was given, else ``fingerprint.from_summary``: per-predicate
        counts and a sample of each predicate's first facts in (subject, object) order. It tells apart
        KBs that differ in size or shape, or in any sampled fact; it misses a change that keeps every
        count and lies outside the sample (an object swapped deep inside a large predicate): pin the
        fingerprint (``--endpoint-fingerprint``) to your own version label when that matters. With
        ``fingerprint_max_age``, one computed for the same URL and graphs at most that many seconds
        ago is used instead (``endpoint_fingerprints``)."""
        if self._fingerprint is None and self.fingerprint_max_age is not None:
            self._fingerprint = endpoint_fingerprints.remembered(self.url, self.graphs, self.fingerprint_max_age,
                                                                 self._computed_fingerprint)
        if self._fingerprint is None:
            self._fingerprint = self._computed_fingerprint()
        return self._fingerprint

    def _computed_fingerprint(self) -> str:
        counts = [(r["p"].value, int(r["n"].value), int(r["subjects"].value), int(r["objects"].value))
                  for r in self.select("predicate_counts")]
        sample = self._content_sample(sorted(row[0] for row in counts))
        return fp.from_summary(counts, self.triple_count(), sample)

    def _content_sample(self, predicates: list[str]) -> list[str]:
        lines = []
        for start in range(0, len(predicates), SAMPLE_BATCH):
            parts = [f"{{ SELECT (<{p}> AS ?p) ?s ?o WHERE {{ ?s <{p}> ?o }} ORDER BY ?s ?o LIMIT {SAMPLE_FACTS} }}"
                     for p in predicates[start:start + SAMPLE_BATCH]]
            query = "SELECT ?p ?s ?o WHERE { " + " UNION ".join(parts) + " }"
            lines += [f"{row['p']} {row['s']} {row['o']}" for row in self.select_query(query)]
        return sorted(lines)

    def describe(self) -> dict:
        info = super().describe()
        info["endpoint"] = self.url
        if self.graphs:
            info["graphs"] = list(self.graphs)
        return info


class _Whole(JsonResults):
    """An answer read whole and parsed at once (``EndpointStore.streamed`` False)."""

    def __init__(self, data: dict):
        super().__init__(lambda size: b"")
        self.members = {name: value for name, value in data.items() if name != "results"}
        self.has_results = "results" in data
        self._all = _bindings(data) if self.has_results else []

    def bindings(self) -> Iterator[dict]:
        return iter(self._all)


def _check_graph(graph: str) -> None:
    try:
        ox.NamedNode(graph)
        absolute = bool(re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", graph))
    except ValueError:
        absolute = False
    if not absolute:
        raise StoreError(f"--graph: {shown(graph)} is not an absolute IRI")


class _Counted:
    """Triples passed on and counted, refused past the row cap."""

    def __init__(self, triples: Iterator[ox.Triple], row_cap: int | None):
        self.triples = triples
        self.row_cap = row_cap
        self.count = 0

    def __iter__(self) -> Iterator[ox.Triple]:
        for triple in self.triples:
            self.count += 1
            _check_row_cap(self.count, self.row_cap)
            yield triple


def _check_row_cap(count: int, row_cap: int | None) -> None:
    if row_cap is not None and count > row_cap:
        raise RowCapExceeded(f"more than the row cap of {row_cap} results; add a LIMIT")


def _bindings(data: dict) -> list[dict]:
    try:
        return data["results"]["bindings"]
    except (KeyError, TypeError):
        raise StoreError("not a SELECT answer") from None


def _sort_key(order: list[str]):
    """A total order on the rows of a JSON answer: each variable's text, then its kind (engines
    differ in how they name a typed literal's kind, so that is left out) and datatype or language."""
    def key(binding: dict) -> tuple:
        parts = []
        for name in order:
            value = binding.get(name)
            if value is None:
                parts.append(("", 0, ""))
            else:
                parts.append((value.get("value", ""), _KIND_ORDER.get(value.get("type"), 3),
                              value.get("datatype") or value.get("xml:lang") or ""))
        return tuple(parts)
    return key


_KIND_ORDER = {"uri": 1, "bnode": 2, "literal": 3, "typed-literal": 3, "triple": 4}


def _row(binding: dict) -> Row:
    return {name: _term(value) for name, value in binding.items()}


def _blank(label: str) -> ox.BlankNode:
    """A blank node of an answer. Virtuoso labels them ``nodeID://b10000``, which is no valid blank
    node label (a ValueError took down every command on a KB with blank nodes); such a label becomes
    ``0x`` and its UTF-8 bytes in hex, so distinct labels stay distinct (a server whose own valid
    labels looked like that, beside invalid ones, could make two the same; none seen does). Led by
    a digit, it sorts before every IRI (whose scheme starts with a letter), where the embedded
    store's hex labels sort: the neighbourhood index numbers blank nodes first, as the store's
    ordered slices of a run give them (``entity_in_links``)."""
    try:
        return ox.BlankNode(label)
    except ValueError:
        return ox.BlankNode("0x" + label.encode().hex())


def _term(value: dict):
    kind = value.get("type")
    text = value.get("value", "")
    if kind == "uri":
        return ox.NamedNode(text)
    if kind == "bnode":
        return _blank(text)
    if kind in ("literal", "typed-literal"):
        if "xml:lang" in value:
            return ox.Literal(text, language=value["xml:lang"])
        if "datatype" in value:
            return ox.Literal(text, datatype=ox.NamedNode(value["datatype"]))
        return ox.Literal(text)
    if kind == "triple":
        inner = value["value"]
        return ox.Triple(_term(inner["subject"]), _term(inner["predicate"]), _term(inner["object"]))
    raise StoreError(f"unknown term type in results: {kind!r}")
