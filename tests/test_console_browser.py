"""The web console end to end: the real app under waitress, driven in headless Chromium.

Every check compares what the page shows with what the HTTP API answers to an independent client
(requests) for the same question. Debian's /usr/bin/chromium is used as it is; Playwright's own
browser download is never needed. Without Chromium the module is skipped, unless
FACTFORGE_REQUIRE_BROWSER=1 says a missing browser is a failure.
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest
import requests

CHROMIUM = Path("/usr/bin/chromium")
REQUIRED = os.environ.get("FACTFORGE_REQUIRE_BROWSER") == "1"

if not CHROMIUM.exists():
    if REQUIRED:
        pytest.fail(f"FACTFORGE_REQUIRE_BROWSER=1 but {CHROMIUM} is missing (apt-get install chromium)",
                    pytrace=False)
    pytest.skip(f"{CHROMIUM} not found: the console's browser tests need Debian's chromium "
                "(set FACTFORGE_REQUIRE_BROWSER=1 to make this a failure)", allow_module_level=True)
try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect, sync_playwright
except ImportError:
    if REQUIRED:
        pytest.fail("FACTFORGE_REQUIRE_BROWSER=1 but the playwright package is missing", pytrace=False)
    pytest.skip("the playwright package is not installed", allow_module_level=True)

BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1280, "height": 800}
JSON_RESULTS = "application/sparql-results+json"

# The shared machine can be slow; auto-waiting assertions wait this long before failing.
expect.set_options(timeout=20_000)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS, headless=True)
        except PlaywrightError as error:
            if REQUIRED:
                raise
            pytest.skip(f"{CHROMIUM} would not start headless: {error}")
        yield launched
        launched.close()


@pytest.fixture
def page(browser, demo_http):
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True, base_url=demo_http)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert not errors, f"the console raised JavaScript errors: {errors}"


def sparql_json(base: str, query: str) -> dict:
    response = requests.post(f"{base}/sparql", data=query.encode(), timeout=30,
                             headers={"Content-Type": "application/sparql-query", "Accept": JSON_RESULTS})
    response.raise_for_status()
    return response.json()


def table_cells(page) -> list[list[str]]:
    """The full value behind every result cell (IRIs are shown abbreviated, so read data-value)."""
    return page.eval_on_selector_all(
        "#result-table tbody tr",
        "rows => rows.map(r => [...r.querySelectorAll('td:not(.rownum)')].map(td => td.dataset.value ?? ''))")


def run_query(page, query: str) -> None:
    page.fill("#query", query)
    page.click("#run")


def screenshot(page, tmp_path: Path, name: str) -> None:
    target = tmp_path / f"{name}.png"
    page.screenshot(path=str(target))
    shutil.copyfile(target, f"/tmp/{name}.png")  # a fixed place to look at after a run


# --- header ------------------------------------------------------------------------------------
def test_header_shows_the_kb(page, demo_http):
    kb = requests.get(f"{demo_http}/api/kb", timeout=30).json()
    page.goto("/")
    expect(page.locator("#kb-triples")).to_have_attribute("data-value", str(kb["triples"]))
    expect(page.locator("#kb-triples")).to_have_text(f"{kb['triples']:,}")
    expect(page.locator("#kb-fingerprint")).to_have_text(kb["fingerprint"])
    expect(page.locator("#kb-backend")).to_have_text(kb["backend"]["backend"])
    expect(page.locator(".toplinks a[href='/docs']")).to_be_visible()
    expect(page.locator(".toplinks a[href='/openapi.json']")).to_be_visible()
    assert page.title() == "factforge console"


STATIC = Path(__file__).resolve().parents[1] / "server" / "static"


def test_every_module_loads_with_no_console_error(browser, demo_http):
    """The console is ES modules: one that fails to load (404, wrong type, a bad import) stops the
    whole graph, so every module of server/static must arrive as JavaScript and nothing may complain."""
    context = browser.new_context(viewport=VIEWPORT, base_url=demo_http)
    page = context.new_page()
    problems: list[str] = []
    scripts: dict[str, tuple[int, str]] = {}
    page.on("console", lambda message: problems.append(f"console.{message.type}: {message.text}")
            if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"failed: {request.url} {request.failure}"))
    page.on("response", lambda response: scripts.__setitem__(
        response.url.removeprefix(demo_http), (response.status, response.headers.get("content-type", "")))
        if response.request.resource_type == "script" else None)
    try:
        page.goto("/#scenario")
        # Each of these is drawn by a different module, so all of them ran.
        expect(page.locator("#knobs")).to_have_attribute("data-ready", "true")
        expect(page.locator(".predicate").first).to_be_visible()
        expect(page.locator("#kb-triples")).to_have_attribute("data-value", re.compile(r"^\d+$"))
        page.click("#tab-sparql")
        expect(page.locator("#example option")).not_to_have_count(1)
        page.click("#run")
        expect(page.locator("#result-table tbody tr").first).to_be_visible()
    finally:
        context.close()
    assert problems == []
    assert set(scripts) == {f"/static/{path.name}" for path in STATIC.glob("*.js")}
    assert {status for status, _ in scripts.values()} == {200}
    assert {kind.split(";")[0] for _, kind in scripts.values()} == {"text/javascript"}


def test_iris_are_abbreviated_with_the_servers_prefix_table(page, demo_http, monkeypatch):
    """The console reads its prefixes from the server: a prefix the Python table gains (here the demo
    KB's own st:, which no table had) shows in the console without a change to the console."""
    from factforge.sparql import terms

    statement = "https://w3id.org/factforge/demo/statement/"
    assert statement not in terms.PREFIXES.values()
    monkeypatch.setitem(terms.PREFIXES, "st", statement)
    served = requests.get(f"{demo_http}/api/prefixes", timeout=30).json()["items"]
    assert {"prefix": "st", "namespace": statement} in served

    query = ("SELECT ?s ?p WHERE { ?s a <http://www.w3.org/1999/02/22-rdf-syntax-ns#Statement> ; ?p ?o } "
             "ORDER BY ?s ?p LIMIT 3")
    rows = sparql_json(demo_http, query)["results"]["bindings"]
    assert rows and all(row["s"]["value"].startswith(statement) for row in rows)
    page.goto("/")
    run_query(page, query)
    expect(page.locator("#result-table tbody tr")).to_have_count(len(rows))
    subjects = page.locator("#result-table tbody td:nth-child(2) button.iri")
    expect(subjects).to_have_text(["st:" + row["s"]["value"].removeprefix(statement) for row in rows])
    # The rest of the table still applies: rdf:type and the dbo: predicates are abbreviated as before.
    predicates = page.locator("#result-table tbody td:nth-child(3) button.iri")
    expect(predicates).to_have_text([terms.compact(row["p"]["value"]) for row in rows])


# --- SPARQL tab --------------------------------------------------------------------------------
def test_example_query_shows_the_endpoints_rows(page, demo_http, tmp_path):
    examples = {e["name"]: e for e in requests.get(f"{demo_http}/api/examples", timeout=30).json()["items"]}
    example = examples["predicate_counts"]
    page.goto("/")
    expect(page.locator("#example option[value='predicate_counts']")).to_have_count(1)
    page.select_option("#example", "predicate_counts")
    expect(page.locator("#query")).to_have_value(example["query"])
    expect(page.locator("#example-description")).to_have_text(example["description"])
    page.click("#run")

    expected = sparql_json(demo_http, example["query"])
    variables = expected["head"]["vars"]
    rows = expected["results"]["bindings"]
    expect(page.locator("#result-table tbody tr")).to_have_count(len(rows))
    expect(page.locator("#result-table thead th:not(.rownum)")).to_have_text([f"?{v}" for v in variables])
    assert table_cells(page) == [[row[v]["value"] if v in row else "" for v in variables] for row in rows]
    expect(page.locator("#sparql-status")).to_contain_text(f"{len(rows)} rows")
    expect(page.locator("#sparql-status")).to_have_text(re.compile(rf"{len(rows)} rows · [\d.]+ m?s"))  # and the time
    # IRIs are abbreviated but still name the full IRI; literals show their datatype subtly.
    first = page.locator("#result-table tbody tr").first
    expect(first.locator("button.iri")).to_have_attribute("data-iri", rows[0]["p"]["value"])
    expect(first.locator(".meta").first).to_have_text("^^xsd:integer")
    screenshot(page, tmp_path, "console-sparql")


def test_clicking_an_iri_shows_that_entitys_triples(page, demo_http):
    page.goto("/")
    first_query = ("SELECT ?country WHERE { ?country <http://dbpedia.org/ontology/capital> ?city } "
                   "ORDER BY ?country LIMIT 5")
    run_query(page, first_query)
    expect(page.locator("#result-table tbody tr")).to_have_count(5)
    entity = sparql_json(demo_http, first_query)["results"]["bindings"][0]["country"]["value"]

    page.locator(f"#result-table button.iri[data-iri='{entity}']").click()
    expect(page.locator("#entity-bar")).to_be_visible()
    expect(page.locator("#entity-name")).to_have_text(entity)
    expect(page.locator("#entity-raw")).to_have_attribute("href", entity)
    triples = sparql_json(demo_http, f"SELECT ?p ?o WHERE {{ <{entity}> ?p ?o }}")["results"]["bindings"]
    assert triples, "the demo KB gives every country some triples"
    expect(page.locator("#result-table tbody tr")).to_have_count(len(triples))
    assert sorted(map(tuple, table_cells(page))) == sorted((t["p"]["value"], t["o"]["value"]) for t in triples)
    expect(page.locator("#query")).to_have_value(re.compile(re.escape(f"<{entity}>")))

    page.click("#back")
    expect(page.locator("#query")).to_have_value(first_query)
    expect(page.locator("#entity-bar")).to_be_hidden()
    expect(page.locator("#result-table tbody tr")).to_have_count(5)


def test_a_syntax_error_shows_the_parsers_message(page, demo_http):
    bad = "SELEC ?x WHERE { ?x ?p ?o }"
    answer = requests.get(f"{demo_http}/sparql", params={"query": bad}, timeout=30)
    assert answer.status_code == 400
    message = answer.json()["error"]
    page.goto("/")
    page.fill("#query", bad)
    page.press("#query", "Control+Enter")  # the keyboard shortcut, not the button
    expect(page.locator("#sparql-error")).to_be_visible()
    expect(page.locator("#sparql-error .error-message")).to_have_text(message)
    expect(page.locator("#sparql-error")).to_contain_text("400")
    expect(page.locator("#result-table")).to_have_count(0)


def test_downloads_hold_the_same_rows_as_the_endpoint(page, demo_http):
    query = ("SELECT ?s ?label WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label } "
             "ORDER BY ?s ?label LIMIT 25")
    page.goto("/")
    run_query(page, query)
    expect(page.locator("#result-table tbody tr")).to_have_count(25)

    with page.expect_download() as info:
        page.click("#downloads button[data-format='csv']")
    download = info.value
    assert download.suggested_filename == "results.csv"
    direct = requests.post(f"{demo_http}/sparql", data=query.encode(), timeout=30,
                           headers={"Content-Type": "application/sparql-query", "Accept": "text/csv"})
    saved = Path(download.path()).read_text(encoding="utf-8")
    assert list(csv.reader(io.StringIO(saved))) == list(csv.reader(io.StringIO(direct.text)))
    assert len(list(csv.reader(io.StringIO(saved)))) == 26  # header + rows

    with page.expect_download() as info:
        page.click("#downloads button[data-format='json']")
    assert json.loads(Path(info.value.path()).read_text(encoding="utf-8")) == sparql_json(demo_http, query)


def test_ask_and_construct_results(page, demo_http):
    page.goto("/")
    run_query(page, "ASK { ?s <http://dbpedia.org/ontology/capital> ?o }")
    expect(page.locator("#ask-result")).to_have_text("true")
    construct = ("CONSTRUCT { ?s <http://dbpedia.org/ontology/capital> ?o } "
                 "WHERE { ?s <http://dbpedia.org/ontology/capital> ?o } LIMIT 3")
    run_query(page, construct)
    turtle = requests.get(f"{demo_http}/sparql", params={"query": construct}, timeout=30,
                          headers={"Accept": "text/turtle"}).text
    expect(page.locator("#graph-result")).to_have_text(turtle.strip() or "# empty graph")
    expect(page.locator("#downloads button[data-format='ttl']")).to_be_visible()


def test_downloads_are_the_servers_answer_formats(page, demo_http, monkeypatch):
    """The console offers the formats sparql/result_formats.py's table holds, as /api/result-formats
    serves it: a format the table loses (TSV) or relabels (CSV) is gone or relabelled in the console,
    with no change to the console."""
    from dataclasses import replace

    from factforge.sparql import result_formats

    table = tuple(replace(f, label="Comma-separated") if f.name == "csv" else f
                  for f in result_formats.FORMATS if f.name != "tsv")
    monkeypatch.setattr(result_formats, "FORMATS", table)
    served = requests.get(f"{demo_http}/api/result-formats", timeout=30).json()["items"]
    assert [f["name"] for f in served] == [f.name for f in table]
    page.goto("/")
    run_query(page, "SELECT ?s WHERE { ?s ?p ?o } ORDER BY ?s LIMIT 2")
    buttons = page.locator("#downloads button")
    expect(buttons).to_have_text([f["label"] for f in served if not f["graph"]])
    assert "Comma-separated" in buttons.all_inner_texts() and "TSV" not in buttons.all_inner_texts()
    assert [b.get_attribute("data-format") for b in buttons.all()] == [f["extension"] for f in served
                                                                        if not f["graph"]]
    query = "SELECT ?s WHERE { ?s ?p ?o } ORDER BY ?s LIMIT 2"
    with page.expect_download() as info:
        page.click("#downloads button[data-format='srx']")  # XML, which the console never listed itself
    assert info.value.suggested_filename == "results.srx"
    direct = requests.post(f"{demo_http}/sparql", data=query.encode(), timeout=30, headers={
        "Content-Type": "application/sparql-query", "Accept": "application/sparql-results+xml"})
    assert Path(info.value.path()).read_bytes() == direct.content
    run_query(page, "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } LIMIT 2")
    expect(page.locator("#graph-result")).to_be_visible()
    expect(buttons).to_have_text([f["label"] for f in served if f["graph"]])


def test_result_values_are_shown_as_text_never_markup(page):
    page.goto("/")
    run_query(page, 'SELECT ?x ?y WHERE { BIND("<img src=x onerror=alert(1)>" AS ?x) BIND(IRI("javascript:alert(1)") AS ?y) }')
    expect(page.locator("#result-table tbody tr")).to_have_count(1)
    expect(page.locator("#result-table td.term-literal .lit")).to_have_text("<img src=x onerror=alert(1)>")
    assert page.locator("#results img").count() == 0
    # A non-web IRI can still be explored in the console but is never an href.
    expect(page.locator("#result-table button.iri")).to_have_attribute("data-iri", "javascript:alert(1)")
    assert page.locator("#results a.raw").count() == 0


# --- Scenario tab ------------------------------------------------------------------------------
def open_scenario_tab(page) -> None:
    page.goto("/")
    page.focus("#tab-sparql")
    page.keyboard.press("ArrowRight")  # the tabs follow the WAI-ARIA keyboard pattern
    expect(page.locator("#panel-scenario")).to_be_visible()
    expect(page.locator("#tab-scenario")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#knobs")).to_have_attribute("data-ready", "true")


def choose_predicate(page, text: str, name: str) -> None:
    page.fill("#predicate-filter", text)
    option = page.locator(f".predicate[data-name='{name}']")
    expect(page.locator(".predicate")).to_have_count(1)
    option.click()
    expect(page.locator("#f-predicate")).to_have_value(name)


def test_generate_a_scenario_preview_counts_and_downloads(page, demo_http, tmp_path):
    open_scenario_tab(page)
    predicates = requests.get(f"{demo_http}/api/predicates", params={"q": "capital"}, timeout=30).json()
    capital = next(p for p in predicates["items"] if p["name"] == "dbo:capital")
    row = page.locator(".predicate[data-name='dbo:capital']")
    expect(row).to_contain_text(f"{capital['facts']} facts")
    expect(row.locator(".badge")).to_have_text(capital["functionality"])
    choose_predicate(page, "capital", "dbo:capital")
    # The knobs carry the schema's ranges.
    schema = requests.get(f"{demo_http}/openapi.json", timeout=30).json()["components"]["schemas"]["ScenarioSpec"]
    expect(page.locator("#f-size")).to_have_attribute("min", str(schema["properties"]["size"]["minimum"]))
    expect(page.locator("#f-size")).to_have_attribute("max", str(schema["properties"]["size"]["maximum"]))
    expect(page.locator("#f-popularity option")).to_have_text(schema["properties"]["popularity"]["enum"])
    page.fill("#f-size", "40")
    page.click("#generate")

    expect(page.locator("#scenario-preview tbody tr")).to_have_count(20)
    api = requests.post(f"{demo_http}/api/scenarios", json={"predicate": "dbo:capital", "size": 40}, timeout=60)
    assert api.status_code == 201
    body = api.json()
    expect(page.locator("#scenario-id")).to_have_text(body["id"])
    counts = body["manifest"]["counts"]["test"]
    test_row = page.locator("#scenario-counts tr[data-split='test'] td")
    expect(test_row).to_have_text([str(counts["true"]), str(counts["false"]), str(counts["true"] + counts["false"])])
    facts = requests.get(f"{demo_http}{body['links']['data']['json']['test']}", timeout=30).json()["facts"][:20]
    expect(page.locator("#scenario-preview tbody td:first-child")).to_have_text([f["id"] for f in facts])
    expect(page.locator("#scenario-preview tbody .label")).to_have_text(
        ["true" if f["label"] else "false" for f in facts])
    for name in body["links"]["data"]:
        expect(page.locator(f"#scenario-downloads a[data-format='{name}'][data-split='test']")).to_have_count(1)
    expect(page.locator("#scenario-downloads a[data-format='answers']")).to_have_attribute("href", body["links"]["answers"])
    expect(page.locator("#scenario-downloads a[data-format='reference']")).to_have_attribute(
        "href", body["links"]["reference"])
    expect(page.locator("#scenario-downloads a[data-format='reference_removed']")).to_have_attribute(
        "href", body["links"]["reference_removed"])
    screenshot(page, tmp_path, "console-scenario")

    with page.expect_download() as info:
        page.click("#scenario-downloads a[data-format='tsv'][data-split='test']")
    assert info.value.suggested_filename == f"{body['id']}-test.tsv"
    direct = requests.get(f"{demo_http}/api/scenarios/{body['id']}", params={"format": "tsv"}, timeout=30)
    assert direct.status_code == 200
    assert Path(info.value.path()).read_bytes() == direct.content


def test_an_endpoint_servers_console_links_only_what_it_serves(browser, tmp_path, monkeypatch):
    """`serve --endpoint` (the demo KB behind a real `oxigraph serve`): the scenario's downloads
    hold no link that answers 409 (the plain reference link); the removed triples are offered, and
    R in full only as the `?whole=true` link, saying it is the whole KB read through the server.
    Every link of the list answers 200, and the removed triples download as the API sends them."""
    from conftest import TEST_TOKEN, served_demo_kb

    from factforge.server.app import create_app
    from factforge.server.serve import BackgroundServer
    from factforge.sparql.store import open_store

    monkeypatch.setenv("FACTFORGE_CACHE", str(tmp_path / "cache"))
    with served_demo_kb(tmp_path) as (_local, flags):
        remote = open_store(endpoint=flags[1], fingerprint=flags[-1])
        app = create_app(remote, {"SCENARIO_DIR": tmp_path / "scenarios", "RELEASES_DIR": tmp_path / "releases",
                                  "TOKEN": TEST_TOKEN})
        with BackgroundServer(app) as server:
            context = browser.new_context(viewport=VIEWPORT, accept_downloads=True, base_url=server.url)
            page = context.new_page()
            try:
                open_scenario_tab(page)
                choose_predicate(page, "capital", "dbo:capital")
                page.fill("#f-size", "40")
                page.click("#generate")
                expect(page.locator("#scenario-preview tbody tr")).to_have_count(20, timeout=120_000)
                api = requests.post(f"{server.url}/api/scenarios", json={"predicate": "dbo:capital", "size": 40},
                                    timeout=120)
                assert api.status_code == 201, api.text
                links = api.json()["links"]
                expect(page.locator("#scenario-id")).to_have_text(api.json()["id"])
                downloads = page.locator("#scenario-downloads")
                expect(downloads.locator("a[data-format='reference']")).to_have_count(0)
                whole = downloads.locator("a[data-format='reference_whole']")
                expect(whole).to_have_attribute("href", links["reference_whole"])
                assert links["reference_whole"].endswith("/reference?whole=true")
                expect(whole).to_contain_text("whole KB")
                expect(whole).to_have_attribute("title", re.compile(r"whole KB.*whole=true.*removed triples"))
                expect(downloads.locator("a[data-format='reference_removed']")).to_have_attribute(
                    "href", links["reference_removed"])
                assert requests.get(server.url + links["reference"], timeout=60).status_code == 409
                for href in downloads.locator("a").evaluate_all("links => links.map((a) => a.getAttribute('href'))"):
                    assert requests.get(server.url + href, timeout=300).status_code == 200, href
                with page.expect_download() as info:
                    downloads.locator("a[data-format='reference_removed']").click()
                removed = requests.get(server.url + links["reference_removed"], timeout=60).content
                assert removed and Path(info.value.path()).read_bytes() == removed
            finally:
                context.close()


def test_the_knobs_follow_the_servers_constraints_table(page, demo_http, monkeypatch):
    """The knobs' bounds and defaults are generators/spec.py's CONSTRAINTS as /openapi.json states
    them: a bound changed in the table (here on the test's own server) shows in the console."""
    from dataclasses import replace

    from factforge.generators import spec

    monkeypatch.setitem(spec.CONSTRAINTS, "size", replace(spec.CONSTRAINTS["size"], high=500, default=40))
    monkeypatch.setitem(spec.CONSTRAINTS, "type_overlap", replace(spec.CONSTRAINTS["type_overlap"], high=7))
    schema = requests.get(f"{demo_http}/openapi.json", timeout=30).json()["components"]["schemas"]["ScenarioSpec"]
    assert schema["properties"]["size"]["maximum"] == 500 and schema["properties"]["type_overlap"]["maximum"] == 7
    open_scenario_tab(page)
    expect(page.locator("#f-size")).to_have_attribute("max", "500")
    expect(page.locator("#f-size")).to_have_value("40")
    expect(page.locator("#f-type_overlap")).to_have_attribute("max", "7")
    expect(page.locator("#f-size").locator("xpath=ancestor::div[@class='field']//span[@class='range']")).to_have_text(
        "2–500")
    # and the server holds the form to the same table
    too_big = requests.post(f"{demo_http}/api/scenarios", json={"predicate": "dbo:capital", "size": 600}, timeout=30)
    assert too_big.status_code == 422 and too_big.json()["field"] == "size"


def test_without_the_schema_the_form_says_so_and_draws_no_knobs(page):
    """The console has no bounds of its own to fall back on: knobs drawn from a stale copy would
    accept what the server refuses."""
    page.route("**/openapi.json", lambda route: route.fulfill(status=503, content_type="application/json",
                                                             body='{"ok": false, "status": 503, "error": "down"}'))
    page.goto("/")
    page.click("#tab-scenario")
    expect(page.locator("#scenario-error")).to_contain_text("The knobs could not be read from /openapi.json: down")
    expect(page.locator("#knobs input, #knobs select")).to_have_count(0)
    assert page.locator("#knobs").get_attribute("data-ready") is None


@pytest.mark.parametrize("field, typed", [("transparency", "2"), ("size", "1")])
def test_an_out_of_range_knob_shows_the_servers_error_at_the_field(page, demo_http, field, typed):
    answer = requests.post(f"{demo_http}/api/scenarios", json={"predicate": "dbo:capital", field: int(typed)}, timeout=30)
    assert answer.status_code == 422 and answer.json()["field"] == field
    open_scenario_tab(page)
    choose_predicate(page, "capital", "dbo:capital")
    page.fill(f"#f-{field}", typed)
    page.click("#generate")
    expect(page.locator(f"#err-{field}")).to_have_text(answer.json()["error"])
    expect(page.locator(f"#f-{field}")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#scenario-result")).to_be_hidden()
    # Reset puts the defaults back and takes the error away.
    page.click("#reset-knobs")
    expect(page.locator(f"#err-{field}")).to_be_hidden()


def test_a_slow_scenario_shows_progress_while_its_job_runs(page, demo_http):
    """The 202 path: the first POST is answered as if the job were still running, and the job URL
    reports a step until the test lets it through; the page must poll, show the step, then finish."""
    released = {"value": False}

    def as_pending(route):
        if route.request.method != "POST" or released["value"]:
            route.continue_()
            return
        real = route.fetch()
        if real.status != 201:
            route.fulfill(response=real)
            return
        scenario_id = real.json()["id"]
        route.fulfill(status=202, content_type="application/json", body=json.dumps({
            "id": scenario_id, "status": "running", "step": "true facts", "progress": {"done": 1, "total": 5},
            "status_url": f"/api/jobs/{scenario_id}", "scenario_url": f"/api/scenarios/{scenario_id}"}))

    def job_status(route):
        if released["value"]:
            route.continue_()
            return
        route.fulfill(status=200, content_type="application/json", body=json.dumps({
            "id": route.request.url.rsplit("/", 1)[-1], "status": "running", "step": "false facts",
            "progress": {"done": 2, "total": 5}}))

    page.route("**/api/scenarios", as_pending)
    page.route("**/api/jobs/*", job_status)
    open_scenario_tab(page)
    choose_predicate(page, "capital", "dbo:capital")
    page.fill("#f-size", "30")
    page.click("#generate")
    expect(page.locator("#progress")).to_be_visible()
    expect(page.locator("#progress-label")).to_have_text("Step 2 / 5 · false facts")
    expect(page.locator("#progress-bar")).to_have_js_property("value", 2)
    released["value"] = True
    expect(page.locator("#scenario-preview tbody tr")).to_have_count(20)
    expect(page.locator("#progress")).to_be_hidden()
    expect(page.locator("#scenario-counts tr[data-split='test'] td").last).to_have_text("30")


# --- Scenario analysis: audit and evaluation -----------------------------------------------------
CAPITAL_SPEC = {"predicate": "dbo:capital", "size": 40}


def generate_capital(page, demo_http) -> dict:
    """Generate the dbo:capital scenario in the browser; answer the API's view of the same scenario
    (the id comes from the spec, so after the first test this is read from disk)."""
    open_scenario_tab(page)
    choose_predicate(page, "capital", "dbo:capital")
    page.fill("#f-size", str(CAPITAL_SPEC["size"]))
    page.click("#generate")
    # The page's own job first: asked for while it still runs, the API would answer 202.
    expect(page.locator("#scenario-result")).to_be_visible()
    api = requests.post(f"{demo_http}/api/scenarios", json=CAPITAL_SPEC, timeout=60)
    assert api.status_code == 201, api.text
    body = api.json()
    expect(page.locator("#scenario-id")).to_have_text(body["id"])
    expect(page.locator("#evaluate")).to_be_visible()
    return body


def test_the_audit_panel_shows_the_apis_audit(page, demo_http):
    body = generate_capital(page, demo_http)
    report = requests.get(f"{demo_http}/api/scenarios/{body['id']}/audit", timeout=30)
    assert report.status_code == 200
    report = report.json()
    badge = page.locator("#audit-badge")
    expect(badge).to_have_attribute("data-flagged", "true" if report["flagged"] else "false")
    expect(badge).to_contain_text("flagged" if report["flagged"] else "not flagged")
    expect(page.locator("#audit-reasons li")).to_have_text(report["reasons"])
    expect(page.locator("#audit-about")).to_contain_text("shortcut")
    limit = report["thresholds"]["auroc"]
    expect(page.locator("#audit-threshold")).to_contain_text(str(limit))
    baselines = report["baselines"]
    assert baselines, "the demo audit has baselines"
    expect(page.locator("#audit-baselines tbody tr")).to_have_count(len(baselines))
    for name, result in baselines.items():
        row = page.locator(f"#audit-baselines tr[data-baseline='{name}']")
        if result["auroc"] is None:
            expect(row.locator(".pill")).to_have_text("skipped")
            continue
        expect(row).to_have_attribute("data-auroc", str(result["auroc"]))
        expect(row.locator(".auroc")).to_have_text(f"{result['auroc']:.3f}")
        expect(row.locator(".pill")).to_have_text(_verdict(result, limit))
    drift = report["drift"]
    expect(page.locator("#audit-drift-top")).to_have_text(drift["top"])
    expect(page.locator("#audit-drift-share")).to_have_text(f"{round(drift['share'] * 100)}%")
    strongest = sorted(report["pmi"].items(),
                       key=lambda kv: -max(abs(kv[1]["npmi_true"]), abs(kv[1]["npmi_false"])))[:3]
    expect(page.locator("#audit-pmi tbody tr")).to_have_count(len(strongest))
    strengths = [max(abs(v["npmi_true"]), abs(v["npmi_false"])) for _, v in strongest]
    shown = page.eval_on_selector_all("#audit-pmi tbody tr", "rows => rows.map(r => r.dataset.feature)")
    assert all(f in report["pmi"] for f in shown)
    # The shown features are the strongest (ties may come in any order).
    assert sorted(max(abs(report["pmi"][f]["npmi_true"]), abs(report["pmi"][f]["npmi_false"])) for f in shown) \
        == sorted(strengths)


def _verdict(result: dict, limit: float) -> str:
    if result["auroc"] > limit:
        return "over"
    if result["auroc"] < 1 - limit:
        fit = result.get("in_sample")
        return "fold artifact" if fit is not None and 1 - limit <= fit <= limit else "under"
    return "ok"


# The demo KB's 60-fact random-walk birthPlace set at seed 2: its subjects and objects are each as
# often true as false, and its folds read the frequency baseline below chance (0.367) while a fit on
# every fact is at chance (0.500).
FOLD_ARTIFACT_SPEC = {"predicate": "dbo:birthPlace", "size": 60, "transparency": 0, "ambiguous": "random_walk",
                      "seed": 2}


def test_the_audit_panel_tells_a_fold_artifact_from_a_shortcut(page, demo_http):
    open_scenario_tab(page)
    choose_predicate(page, "birthPlace", "dbo:birthPlace")
    page.fill("#f-size", str(FOLD_ARTIFACT_SPEC["size"]))
    page.fill("#f-transparency", str(FOLD_ARTIFACT_SPEC["transparency"]))
    page.select_option("#f-ambiguous", FOLD_ARTIFACT_SPEC["ambiguous"])
    page.fill("#f-seed", str(FOLD_ARTIFACT_SPEC["seed"]))
    page.click("#generate")
    expect(page.locator("#scenario-result")).to_be_visible()
    api = requests.post(f"{demo_http}/api/scenarios", json=FOLD_ARTIFACT_SPEC, timeout=60)
    assert api.status_code == 201, api.text
    expect(page.locator("#scenario-id")).to_have_text(api.json()["id"])
    report = requests.get(f"{demo_http}/api/scenarios/{api.json()['id']}/audit", timeout=30).json()
    limit = report["thresholds"]["auroc"]
    artifacts = [name for name, result in report["baselines"].items()
                 if result["auroc"] is not None and _verdict(result, limit) == "fold artifact"]
    assert artifacts, f"the scenario no longer has a fold artifact; pick another spec: {report['baselines']}"
    expect(page.locator("#audit-badge")).to_have_attribute("data-flagged", "true" if report["flagged"] else "false")
    for name in artifacts:
        pill = page.locator(f"#audit-baselines tr[data-baseline='{name}'] .pill")
        expect(pill).to_have_text("fold artifact")
        expect(pill).to_have_class("pill ok")
        expect(pill).to_have_attribute("title", re.compile(r"in sample 0\.\d{3}, so the folds' artifact, not flagged"))


def test_perfect_predictions_give_auroc_one_and_a_roc_picture(page, demo_http, tmp_path):
    body = generate_capital(page, demo_http)
    facts = requests.get(f"{demo_http}{body['links']['data']['json']['test']}", timeout=30).json()["facts"]
    predictions = tmp_path / "perfect.tsv"
    predictions.write_text("".join(f"{f['id']}\t{1.0 if f['label'] else 0.0}\n" for f in facts), encoding="utf-8")
    direct = requests.post(f"{demo_http}/api/scenarios/{body['id']}/evaluate", params={"name": "perfect"},
                           data=predictions.read_bytes(), headers={"Content-Type": "text/tab-separated-values"},
                           timeout=60)
    assert direct.status_code == 200, direct.text
    expected = direct.json()
    assert expected["auroc"] == 1.0

    page.set_input_files("#eval-file", str(predictions))
    expect(page.locator("#eval-text")).to_be_disabled()  # the file is what is sent
    page.fill("#eval-name", "perfect")
    page.click("#evaluate-run")
    expect(page.locator("#eval-auroc")).to_have_text("1.000")
    expect(page.locator("#evaluate-error")).to_be_hidden()
    for key, value in expected["counts"].items():
        expect(page.locator(f"#eval-counts [data-count='{key}'] dd")).to_have_text(str(value))
    # Same name and scores, same evaluation: the page shows the API's own links.
    expect(page.locator("#eval-roc")).to_have_attribute("src", expected["links"]["png"])
    expect(page.locator("#eval-links a[data-format='svg']")).to_have_attribute("href", expected["links"]["svg"])
    expect(page.locator("#eval-links a[data-format='json']")).to_have_attribute("href", expected["links"]["json"])
    page.wait_for_function("() => { const img = document.querySelector('#eval-roc');"
                           " return img.complete && img.naturalWidth > 0; }")
    assert requests.get(f"{demo_http}{expected['links']['svg']}", timeout=30).headers["Content-Type"].startswith(
        "image/svg+xml")
    page.locator("#evaluate").scroll_into_view_if_needed()
    page.evaluate("document.querySelector('.analysis-grid').scrollIntoView({block: 'end'})")
    screenshot(page, tmp_path, "console-evaluate")


def test_bad_predictions_show_the_servers_error(page, demo_http, tmp_path):
    body = generate_capital(page, demo_http)
    url = f"{demo_http}/api/scenarios/{body['id']}/evaluate"
    # A CSV file (sent as text/csv because of its extension) with a bad score on line 3.
    bad = tmp_path / "bad.csv"
    bad.write_text("id,score\nte00001,0.5\nte00002,high\n", encoding="utf-8")
    answer = requests.post(url, data=bad.read_bytes(), headers={"Content-Type": "text/csv"}, timeout=30)
    assert answer.status_code == 422
    message = answer.json()["error"]
    assert ":3:" in message and "score" in message
    page.set_input_files("#eval-file", str(bad))
    page.click("#evaluate-run")
    expect(page.locator("#evaluate-error")).to_be_visible()
    expect(page.locator("#evaluate-error .error-message")).to_have_text(message)
    expect(page.locator("#evaluate-error")).to_contain_text("422")
    expect(page.locator("#evaluate-error")).to_contain_text("bad.csv")
    expect(page.locator("#evaluate-result")).to_be_hidden()

    # Pasted JSON Lines naming an id the scenario does not have: the ids are named.
    page.click("#eval-clear-file")
    expect(page.locator("#eval-text")).to_be_enabled()
    pasted = '{"id": "te00001", "score": 0.5}\n{"id": "<b>nope</b>", "score": 0.1}\n'
    answer = requests.post(url, data=pasted.encode(), headers={"Content-Type": "application/x-ndjson"}, timeout=30)
    assert answer.status_code == 422
    page.fill("#eval-text", pasted)
    page.click("#evaluate-run")
    expect(page.locator("#evaluate-error .error-message")).to_have_text(answer.json()["error"])
    expect(page.locator("#evaluate-error")).to_contain_text("<b>nope</b>")  # shown as text, never markup
    assert page.locator("#evaluate-error b").count() == 0


def test_predictions_are_sent_as_the_servers_table_says(page, demo_http, tmp_path):
    """The file picker's extensions and the media type a file is sent as come from /api/prediction-formats:
    a table naming JSON Lines' alias as its media type makes the console send that one."""
    table = requests.get(f"{demo_http}/api/prediction-formats", timeout=30).json()["items"]
    jsonl = next(f for f in table if f["name"] == "jsonl")
    assert jsonl["aliases"], "the test needs a media type the server reads JSON Lines as besides its own"
    swapped = [{**f, "media_type": f["aliases"][0], "aliases": [f["media_type"]]} if f is jsonl else f for f in table]
    page.route("**/api/prediction-formats", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps({"items": swapped})))
    body = generate_capital(page, demo_http)
    expect(page.locator("#eval-file")).to_have_attribute(
        "accept", ",".join(f".{e}" for f in table for e in f["extensions"]))
    facts = requests.get(f"{demo_http}{body['links']['data']['json']['test']}", timeout=30).json()["facts"]
    predictions = tmp_path / f"scores.{jsonl['extensions'][0]}"
    predictions.write_text("".join(json.dumps({"id": f["id"], "score": float(f["label"])}) + "\n" for f in facts),
                           encoding="utf-8")
    page.set_input_files("#eval-file", str(predictions))
    with page.expect_request(lambda r: r.url.split("?")[0].endswith("/evaluate") and r.method == "POST") as sent:
        page.click("#evaluate-run")
    assert sent.value.headers["content-type"] == f"{jsonl['aliases'][0]}; charset=utf-8"
    expect(page.locator("#eval-auroc")).to_have_text("1.000")
    expect(page.locator("#evaluate-status")).to_have_text(f"Scored {predictions.name} as {jsonl['label']}.")


def test_without_the_prediction_formats_scoring_says_so_and_sends_nothing(page, demo_http, tmp_path):
    page.route("**/api/prediction-formats", lambda route: route.fulfill(
        status=503, content_type="application/json", body='{"ok": false, "status": 503, "error": "down"}'))
    posted = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" and "/evaluate" in r.url else None)
    generate_capital(page, demo_http)
    assert page.locator("#eval-file").get_attribute("accept") is None  # no copied extensions to offer
    page.fill("#eval-text", "te00001\t0.5\n")
    page.click("#evaluate-run")
    expect(page.locator("#evaluate-error .error-message")).to_have_text(
        "the predictions formats could not be read from the server (down)")
    expect(page.locator("#evaluate-error")).to_contain_text("503")
    assert posted == []


def test_claims_in_a_chosen_language_beside_their_evidence(page, demo_http, tmp_path):
    body = generate_capital(page, demo_http)
    languages = requests.get(f"{demo_http}/api/kb", timeout=30).json()["claims"]["languages"]
    expect(page.locator("#claims-lang option")).to_have_text(languages)
    page.select_option("#claims-lang", "de")
    page.click("#claims-show")
    expect(page.locator("#claims-table")).to_have_attribute("data-lang", "de")
    api = requests.get(f"{demo_http}{body['links']['claims']['fever']}", params={"lang": "de"}, timeout=120)
    assert api.status_code == 200, api.text
    records = [json.loads(line) for line in api.text.splitlines()][:50]
    rows = page.locator("#claims-table tbody tr")
    expect(rows).to_have_count(len(records))
    expect(page.locator("#claims-table td.claim")).to_have_text([r["claim"] for r in records])
    expect(page.locator("#claims-table .claim-label")).to_have_text([r["label"] for r in records])
    shown = page.eval_on_selector_all("#claims-table tbody tr", """rows => rows.map(r => [...r.querySelectorAll(
        '.evidence-set')].map(set => [...set.querySelectorAll('li')].map(li => [li.dataset.line, li.dataset.s,
        li.dataset.p, li.dataset.o])))""")
    expected = [[[[str(item[3]), t["s"], t["p"], t["o"]] for item, t in zip(items, triples)]
                 for items, triples in zip(r["evidence"], r["evidence_triples"])] for r in records]
    assert shown == expected and any(sets for sets in expected)
    # The answers (how a claim was made) are a download, never on the page.
    answers = requests.get(f"{demo_http}{body['links']['claims']['answers']}", params={"lang": "de"}, timeout=60).json()
    assert "template" in next(iter(answers["answers"].values()))
    text = page.locator("#claims").inner_text()
    assert not any(a["template"] in text for a in answers["answers"].values())
    expect(page.locator("#claims-links a[data-part='answers']")).to_have_attribute(
        "href", f"{body['links']['claims']['answers']}?lang=de")
    screenshot(page, tmp_path, "console-claims")
