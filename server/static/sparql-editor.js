// The SPARQL tab: run the editor's query on /sparql, show the answer, explore an IRI's triples and
// go back to what was shown before.
import { $, showError } from "./dom.js";
import { fetchOk } from "./http.js";
import { iriRef, isWebIri } from "./iris.js";
import { fmt } from "./numbers.js";
import { loadPrefixes } from "./prefixes.js";
import { saveAnswer, showDownloads } from "./result-downloads.js";
import { formatNamed, isFormat, loadResultFormats } from "./result-formats.js";
import { MAX_SHOWN, showBoolean, showGraph, showTable } from "./results-view.js";
import { exampleOf, forgetExample, initExamples } from "./sparql-examples.js";

// The answers the console shows: SELECT and ASK as SPARQL JSON (a table), graphs as Turtle (text).
const SHOWN_TABLE = "json";
const SHOWN_GRAPH = "turtle";

let editor;
let status;
let errorBox;
let results;
let downloads;
let current = null;     // {query, entity, name} of the shown result
const back = [];        // what Back returns to
let running = 0;        // id of the latest run, so a slow earlier answer cannot overwrite it

async function download(accept, ext) {
  if (!current) return;
  try {
    await saveAnswer(current.query, accept, (current.name || "results") + "." + ext);
  } catch (error) {
    showError(errorBox, error);
  }
}

async function run(options) {
  const query = editor.value;
  if (!query.trim()) { showError(errorBox, { message: "The query is empty." }); return; }
  const id = ++running;
  const opts = options || {};
  if (!opts.keepHistory && current && current.query !== query) back.push(current);
  const shown = { query, entity: opts.entity || null, name: opts.entity ? "triples" : exampleOf(query) };
  showEntityBar(shown.entity);
  $("back").hidden = back.length === 0;
  showError(errorBox, null);
  status.textContent = "Running…";
  status.className = "status running";
  results.setAttribute("aria-busy", "true");
  $("run").disabled = true;
  const started = performance.now();
  try {
    const formats = await loadResultFormats();
    const table = formatNamed(formats, SHOWN_TABLE);
    const accept = table.media_type + ", " + formatNamed(formats, SHOWN_GRAPH).media_type + ";q=0.9";
    const response = await fetchOk("/sparql", { method: "POST",
      headers: { "Content-Type": "application/sparql-query", Accept: accept }, body: query });
    const type = (response.headers.get("Content-Type") || "").split(";")[0].trim();
    let summary;
    if (isFormat(table, type)) {
      // The table abbreviates IRIs, so it waits for the prefix table too.
      const [data] = await Promise.all([response.json(), loadPrefixes()]);
      if (id !== running) return;
      if (typeof data.boolean === "boolean") {
        showBoolean(results, data.boolean);
        summary = "ASK answered " + data.boolean;
      } else {
        const n = showTable(results, data, showEntity);
        summary = fmt(n) + (n === 1 ? " row" : " rows") + (n > MAX_SHOWN ? " (showing the first " + fmt(MAX_SHOWN) + ")" : "");
      }
      showDownloads(downloads, formats.filter((f) => !f.graph), download);
    } else {
      const text = await response.text();
      if (id !== running) return;
      showGraph(results, text);
      const triples = response.headers.get("X-Result-Rows");
      summary = (triples !== null ? fmt(Number(triples)) + " triples" : "graph") + " as Turtle";
      showDownloads(downloads, formats.filter((f) => f.graph), download);
    }
    current = shown;
    const ms = performance.now() - started;
    status.textContent = summary + " · " + (ms < 1000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(2) + " s");
    status.className = "status ok";
  } catch (error) {
    if (id !== running) return;
    current = null;
    downloads.replaceChildren();
    results.replaceChildren();
    status.textContent = "";
    status.className = "status";
    showError(errorBox, error);
  } finally {
    if (id === running) {
      $("run").disabled = false;
      results.removeAttribute("aria-busy");
    }
  }
}

function showEntityBar(iri) {
  $("entity-bar").hidden = !iri;
  if (!iri) return;
  $("entity-name").textContent = iri;
  const raw = $("entity-raw");
  raw.hidden = !isWebIri(iri);
  if (isWebIri(iri)) raw.href = iri; else raw.removeAttribute("href");
}

function entityQuery(iri) {
  const ref = iriRef(iri);
  if (!ref) return null;
  return "SELECT ?p ?o WHERE {\n  " + ref + " ?p ?o\n}\nORDER BY ?p ?o\nLIMIT 1000\n";
}

function showEntity(iri) {
  const query = entityQuery(iri);
  if (!query) {
    showError(errorBox, { message: "This IRI cannot be written in a query: " + iri });
    return;
  }
  if (current) back.push(current);
  editor.value = query;
  forgetExample();
  run({ entity: iri, keepHistory: true });
}

function goBack() {
  const previous = back.pop();
  if (!previous) return;
  editor.value = previous.query;
  run({ entity: previous.entity, keepHistory: true });
}

export function initSparqlEditor() {
  editor = $("query");
  status = $("sparql-status");
  errorBox = $("sparql-error");
  results = $("results");
  downloads = $("downloads");
  initExamples(editor);
  $("run").addEventListener("click", () => run());
  $("back").addEventListener("click", goBack);
  editor.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      run();
    }
  });
}
