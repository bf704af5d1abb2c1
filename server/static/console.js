// factforge web console: a SPARQL editor and a scenario form over the app's own API.
// Every piece of data reaches the DOM through textContent or attributes, never as markup.
"use strict";

(function () {
  // ---------------------------------------------------------------------------------------------
  // Small helpers
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const numberFormat = new Intl.NumberFormat("en-US");
  const fmt = (n) => (typeof n === "number" ? numberFormat.format(n) : String(n));

  // Mirrors sparql/terms.py PREFIXES so the console abbreviates IRIs the way the CLI and API do.
  const PREFIXES = {
    rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    rdfs: "http://www.w3.org/2000/01/rdf-schema#",
    owl: "http://www.w3.org/2002/07/owl#",
    xsd: "http://www.w3.org/2001/XMLSchema#",
    skos: "http://www.w3.org/2004/02/skos/core#",
    foaf: "http://xmlns.com/foaf/0.1/",
    schema: "http://schema.org/",
    dbo: "http://dbpedia.org/ontology/",
    dbr: "http://dbpedia.org/resource/",
    wd: "http://www.wikidata.org/entity/",
    ff: "https://w3id.org/factforge/vocab#",
  };

  function shorten(iri) {
    for (const [prefix, ns] of Object.entries(PREFIXES)) {
      if (iri.startsWith(ns) && iri.length > ns.length) {
        const local = iri.slice(ns.length);
        // A local part with '/' or '#' would read as a different IRI once abbreviated.
        if (!/[\/#?]/.test(local)) return prefix + ":" + local;
      }
    }
    return iri;
  }

  // SPARQL IRIREF: an absolute IRI with none of the characters that would end or break <...>.
  const IRIREF_OK = /^[A-Za-z][A-Za-z0-9+.-]*:[^<>"{}|^`\\\u0000-\u0020]*$/;
  const iriRef = (iri) => (IRIREF_OK.test(iri) ? "<" + iri + ">" : null);
  // Only web IRIs become href targets: a javascript: or data: IRI from the KB must never be clickable.
  const XSD_STRING = PREFIXES.xsd + "string";
  const isWebIri = (iri) => /^https?:\/\/[^\s]+$/i.test(iri);

  async function readError(response) {
    let message = response.status + " " + response.statusText;
    let field = null;
    try {
      const body = await response.json();
      if (body && body.error) message = body.error;
      if (body && body.field) field = body.field;
    } catch (_) { /* a non-JSON error body: the status line says enough */ }
    return { status: response.status, message, field };
  }

  async function getJSON(url) {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    if (!response.ok) throw await readError(response);
    return response.json();
  }

  function showError(box, error) {
    box.replaceChildren();
    if (!error) { box.hidden = true; return; }
    const message = error.message || String(error);
    box.append(el("strong", { text: error.status ? "Error " + error.status + ": " : "Error: " }),
      el("span", { class: "error-message", text: message }));
    box.hidden = false;
  }

  function saveBlob(blob, filename) {
    const url = URL.createObjectURL(blob);
    const a = el("a", { href: url, download: filename, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    // Revoking at once can cancel the download in some browsers; a minute is plenty.
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  // ---------------------------------------------------------------------------------------------
  // Tabs (WAI-ARIA tabs pattern: arrow keys move between tabs)
  const tabs = [$("tab-sparql"), $("tab-scenario")];

  function selectTab(tab, focus) {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      $(t.getAttribute("aria-controls")).hidden = !on;
    }
    if (focus) tab.focus();
    const name = tab.id.replace("tab-", "");
    if (location.hash !== "#" + name) history.replaceState(null, "", "#" + name);
    if (name === "scenario") scenario.init();
  }

  for (const tab of tabs) {
    tab.addEventListener("click", () => selectTab(tab, false));
    tab.addEventListener("keydown", (event) => {
      const i = tabs.indexOf(tab);
      let next = null;
      if (event.key === "ArrowRight") next = tabs[(i + 1) % tabs.length];
      else if (event.key === "ArrowLeft") next = tabs[(i - 1 + tabs.length) % tabs.length];
      else if (event.key === "Home") next = tabs[0];
      else if (event.key === "End") next = tabs[tabs.length - 1];
      if (next) { event.preventDefault(); selectTab(next, true); }
    });
  }

  // ---------------------------------------------------------------------------------------------
  // KB header
  async function loadKb() {
    try {
      const kb = await getJSON("/api/kb");
      $("kb-fingerprint").textContent = kb.fingerprint;
      $("kb-triples").textContent = fmt(kb.triples);
      $("kb-triples").dataset.value = String(kb.triples);
      $("kb-predicates").textContent = fmt(kb.predicates);
      const backend = kb.backend || {};
      $("kb-backend").textContent = backend.backend || "?";
      $("kb-backend").title = backend.endpoint || backend.path || "";
    } catch (error) {
      $("kb-fingerprint").textContent = "unavailable";
      $("kb-fingerprint").title = error.message || String(error);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // SPARQL tab
  const sparql = (function () {
    const editor = $("query");
    const status = $("sparql-status");
    const errorBox = $("sparql-error");
    const results = $("results");
    const downloads = $("downloads");
    const entityBar = $("entity-bar");
    const MAX_SHOWN = 1000; // rows drawn in the table; downloads always hold every row
    const RUN_ACCEPT = "application/sparql-results+json, text/turtle;q=0.9";
    let examples = [];
    let current = null;     // {query, entity, name} of the shown result
    const back = [];        // what Back returns to
    let running = 0;        // id of the latest run, so a slow earlier answer cannot overwrite it

    async function loadExamples() {
      const select = $("example");
      try {
        examples = (await getJSON("/api/examples")).items || [];
      } catch (error) {
        $("example-description").textContent = "Examples unavailable: " + (error.message || error);
        return;
      }
      for (const item of examples) {
        select.append(el("option", { value: item.name, text: item.name.replace(/_/g, " ") + " (" + item.form + ")" }));
      }
    }

    function chooseExample() {
      const item = examples.find((x) => x.name === $("example").value);
      $("example-description").textContent = item ? item.description : "";
      if (item) editor.value = item.query;
    }

    function cell(term) {
      const td = el("td");
      if (!term) return td;
      if (term.type === "uri") {
        td.className = "term-iri";
        td.title = term.value;
        td.dataset.value = term.value;
        const ref = iriRef(term.value);
        if (ref) {
          td.append(el("button", { type: "button", class: "iri", "data-iri": term.value,
            "aria-label": "Show triples of " + term.value, text: shorten(term.value),
            onclick: () => showEntity(term.value) }));
        } else {
          td.append(el("span", { class: "iri-plain", text: term.value }));
        }
        if (isWebIri(term.value)) {
          td.append(el("a", { href: term.value, class: "raw", target: "_blank", rel: "noopener noreferrer",
            "aria-label": "Open " + term.value, title: "Open the IRI itself", text: "↗" }));
        }
      } else if (term.type === "literal" || term.type === "typed-literal") {
        td.className = "term-literal";
        td.dataset.value = term.value;
        td.append(el("span", { class: "lit", text: term.value }));
        if (term["xml:lang"]) td.append(el("span", { class: "meta", text: "@" + term["xml:lang"] }));
        else if (term.datatype && term.datatype !== XSD_STRING) td.append(el("span", { class: "meta", title: term.datatype, text: "^^" + shorten(term.datatype) }));
      } else if (term.type === "bnode") {
        td.className = "term-bnode";
        td.dataset.value = term.value;
        td.textContent = "_:" + term.value;
      } else if (term.type === "triple") {
        td.className = "term-triple";
        const v = term.value || {};
        td.textContent = "<< " + ["subject", "predicate", "object"].map((k) => (v[k] ? v[k].value : "?")).join(" ") + " >>";
      } else {
        td.textContent = term.value === undefined ? "" : String(term.value);
      }
      return td;
    }

    function renderTable(data) {
      const vars = (data.head && data.head.vars) || [];
      const rows = (data.results && data.results.bindings) || [];
      const table = el("table", { class: "data", id: "result-table" });
      const head = el("tr", {}, el("th", { scope: "col", class: "rownum", text: "#" }));
      for (const v of vars) head.append(el("th", { scope: "col", text: "?" + v }));
      table.append(el("thead", {}, head));
      const body = el("tbody");
      rows.slice(0, MAX_SHOWN).forEach((row, i) => {
        const tr = el("tr", {}, el("td", { class: "rownum", text: String(i + 1) }));
        for (const v of vars) tr.append(cell(row[v]));
        body.append(tr);
      });
      table.append(body);
      results.replaceChildren(rows.length ? table : el("p", { class: "empty", text: "No rows." }));
      return rows.length;
    }

    function setDownloads(kind) {
      downloads.replaceChildren();
      const formats = kind === "graph"
        ? [["Turtle", "text/turtle", "ttl"], ["N-Triples", "application/n-triples", "nt"]]
        : [["CSV", "text/csv", "csv"], ["JSON", "application/sparql-results+json", "json"]];
      downloads.append(el("span", { class: "muted", text: "Download" }));
      for (const [label, accept, ext] of formats) {
        downloads.append(el("button", { type: "button", class: "download", "data-format": ext,
          onclick: () => download(accept, ext), text: label }));
      }
    }

    async function download(accept, ext) {
      if (!current) return;
      try {
        const response = await fetch("/sparql", { method: "POST",
          headers: { "Content-Type": "application/sparql-query", Accept: accept }, body: current.query });
        if (!response.ok) throw await readError(response);
        saveBlob(await response.blob(), (current.name || "results") + "." + ext);
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
      const exampleName = examples.some((x) => x.name === $("example").value && x.query === query)
        ? $("example").value : null;
      const shown = { query, entity: opts.entity || null, name: opts.entity ? "triples" : exampleName };
      showEntityBar(shown.entity);
      $("back").hidden = back.length === 0;
      showError(errorBox, null);
      status.textContent = "Running…";
      status.className = "status running";
      results.setAttribute("aria-busy", "true");
      $("run").disabled = true;
      const started = performance.now();
      try {
        const response = await fetch("/sparql", { method: "POST",
          headers: { "Content-Type": "application/sparql-query", Accept: RUN_ACCEPT }, body: query });
        if (!response.ok) throw await readError(response);
        const type = (response.headers.get("Content-Type") || "").split(";")[0].trim();
        let summary;
        if (type === "application/sparql-results+json" || type === "application/json") {
          const data = await response.json();
          if (id !== running) return;
          if (typeof data.boolean === "boolean") {
            results.replaceChildren(el("p", { class: "boolean " + (data.boolean ? "yes" : "no"), id: "ask-result",
              text: data.boolean ? "true" : "false" }));
            summary = "ASK answered " + data.boolean;
          } else {
            const n = renderTable(data);
            summary = fmt(n) + (n === 1 ? " row" : " rows") + (n > MAX_SHOWN ? " (showing the first " + fmt(MAX_SHOWN) + ")" : "");
          }
          setDownloads("table");
        } else {
          const text = await response.text();
          if (id !== running) return;
          results.replaceChildren(el("pre", { class: "graph", id: "graph-result", text: text || "# empty graph" }));
          const triples = response.headers.get("X-Result-Rows");
          summary = (triples !== null ? fmt(Number(triples)) + " triples" : "graph") + " as Turtle";
          setDownloads("graph");
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
      entityBar.hidden = !iri;
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
      $("example").value = "";
      $("example-description").textContent = "";
      run({ entity: iri, keepHistory: true });
    }

    function goBack() {
      const previous = back.pop();
      if (!previous) return;
      editor.value = previous.query;
      run({ entity: previous.entity, keepHistory: true });
    }

    function init() {
      loadExamples();
      $("example").addEventListener("change", chooseExample);
      $("run").addEventListener("click", () => run());
      $("back").addEventListener("click", goBack);
      editor.addEventListener("keydown", (event) => {
        if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          run();
        }
      });
    }

    return { init, run };
  })();

  // ---------------------------------------------------------------------------------------------
  // Scenario analysis: the shortcut audit and the user's own predictions
  const pct = (x) => Math.round(x * 100) + "%";
  const fixed = (x, digits) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits) : "—");

  // A horizontal bar for a value in [0, 1] with the threshold marked; "over" when above it.
  function meter(value, threshold, label) {
    const over = typeof value === "number" && value > threshold;
    const width = typeof value === "number" ? Math.max(0, Math.min(1, value)) * 100 : 0;
    const fill = el("span", { class: "meter-fill" });
    const mark = el("span", { class: "meter-mark", title: "threshold " + threshold });
    // CSSOM writes, not style attributes: they stay allowed under a strict Content-Security-Policy.
    fill.style.width = width.toFixed(1) + "%";
    mark.style.left = (Math.max(0, Math.min(1, threshold)) * 100).toFixed(1) + "%";
    return el("div", { class: "meter" + (over ? " over" : ""), role: "img",
      "aria-label": label + ": " + fixed(value, 3) + ", threshold " + threshold }, fill, mark);
  }

  const audit = (function () {
    let request = 0;
    const BASELINE_HELP = {
      degree: "log degrees of subject and object",
      type: "classes of subject and object",
      shape: "the record's fields and value kinds",
      frequency: "how often subject and object occur in the set",
      direct_link: "whether the KB links subject and object directly",
    };

    function clear() {
      request++;
      $("audit-badge").textContent = "…";
      $("audit-badge").className = "verdict";
      $("audit-badge").removeAttribute("data-flagged");
      $("audit-body").hidden = true;
      showError($("audit-error"), null);
    }

    async function show(scenarioId) {
      clear();
      const mine = request;
      $("audit").setAttribute("aria-busy", "true");
      try {
        const report = await getJSON("/api/scenarios/" + encodeURIComponent(scenarioId) + "/audit");
        if (mine !== request) return;
        render(report);
      } catch (error) {
        if (mine !== request) return;
        $("audit-badge").textContent = "no audit";
        showError($("audit-error"), error);
      } finally {
        if (mine === request) $("audit").removeAttribute("aria-busy");
      }
    }

    function render(report) {
      const thresholds = report.thresholds || {};
      const aurocLimit = typeof thresholds.auroc === "number" ? thresholds.auroc : 0.6;
      const driftLimit = typeof thresholds.drift_share === "number" ? thresholds.drift_share : 0.75;
      const badge = $("audit-badge");
      badge.textContent = report.flagged ? "⚠ flagged: shortcut found" : "✓ not flagged";
      badge.className = "verdict " + (report.flagged ? "flagged" : "ok");
      badge.dataset.flagged = report.flagged ? "true" : "false";

      const reasons = $("audit-reasons");
      reasons.replaceChildren();
      for (const reason of report.reasons || []) reasons.append(el("li", { text: reason }));
      reasons.hidden = !(report.reasons || []).length;

      $("audit-threshold").textContent = "(flag above " + aurocLimit + " or below " + +(1 - aurocLimit).toFixed(4) + ")";
      const rows = $("audit-baselines").tBodies[0];
      rows.replaceChildren();
      for (const [name, result] of Object.entries(report.baselines || {})) {
        const value = result && typeof result.auroc === "number" ? result.auroc : null;
        // far below chance is as much a shortcut as far above: the features tell the label reversed
        const verdict = value === null ? "skipped" : value > aurocLimit ? "over" : value < 1 - aurocLimit ? "under" : "ok";
        const style = verdict === "under" ? "over" : verdict;
        rows.append(el("tr", { "data-baseline": name, class: style, "data-auroc": value === null ? null : String(value) },
          el("th", { scope: "row", title: BASELINE_HELP[name] || null, text: name }),
          el("td", { class: "bar" }, value === null ? el("span", { class: "muted small", text: result.skipped || "skipped" })
            : meter(value, aurocLimit, name + " baseline AUROC")),
          el("td", { class: "num auroc", text: fixed(value, 3) }),
          el("td", {}, el("span", { class: "pill " + style, text: verdict }))));
      }

      const drift = report.drift;
      const box = $("audit-drift");
      box.replaceChildren();
      if (!drift || typeof drift.share !== "number") {
        box.append(el("span", { class: "muted", text: "Not measured (no generator answers for the false facts)." }));
      } else {
        const over = drift.share > driftLimit;
        box.className = "drift" + (over ? " over" : "");
        box.append(el("span", { class: "drift-text" },
          "Top alternative ", el("code", { id: "audit-drift-top", text: drift.top || "—" }), " makes ",
          el("strong", { id: "audit-drift-share", text: pct(drift.share) }),
          " of the false facts" + (typeof drift.count === "number" ? " (" + fmt(drift.count) + ")" : "")
          + "; flag above " + pct(driftLimit) + "."),
          meter(drift.share, driftLimit, "location drift share"));
      }

      const pmi = Object.entries(report.pmi || {})
        .map(([feature, v]) => ({ feature, ...v,
          strength: Math.max(Math.abs(v.npmi_true || 0), Math.abs(v.npmi_false || 0)) }))
        .sort((a, b) => b.strength - a.strength)
        .slice(0, 3);
      const pmiRows = $("audit-pmi").tBodies[0];
      pmiRows.replaceChildren();
      const tint = (x) => (typeof x === "number" && Math.abs(x) >= 0.2 ? (x > 0 ? "pos" : "neg") : "");
      for (const row of pmi) {
        pmiRows.append(el("tr", { "data-feature": row.feature },
          el("td", { class: "mono feature", title: row.feature, text: row.feature }),
          el("td", { class: "num", text: fmt(row.support) }),
          el("td", { class: "num " + tint(row.npmi_true), text: fixed(row.npmi_true, 2) }),
          el("td", { class: "num " + tint(row.npmi_false), text: fixed(row.npmi_false, 2) })));
      }
      if (!pmi.length) pmiRows.append(el("tr", {}, el("td", { colspan: 4, class: "muted", text: "No features." })));
      $("audit-body").hidden = false;
    }

    return { show, clear };
  })();

  const evaluation = (function () {
    const KIND_BY_EXTENSION = { tsv: "tsv", txt: "tsv", csv: "csv", jsonl: "jsonl", ndjson: "jsonl" };
    const MEDIA = { tsv: "text/tab-separated-values", csv: "text/csv", jsonl: "application/x-ndjson" };
    let scenarioId = null;
    let request = 0;
    let busy = false;

    // What a pasted text (or a file with an unknown extension) most likely is.
    function sniff(text) {
      const first = (text.split(/\r?\n/).find((line) => line.trim()) || "").trim();
      if (first.startsWith("{")) return "jsonl";
      if (first.includes("\t")) return "tsv";
      if (first.includes(",")) return "csv";
      return "tsv";
    }

    function reset(id) {
      scenarioId = id;
      request++;
      $("evaluate-result").hidden = true;
      $("eval-roc").removeAttribute("src");
      $("evaluate-status").textContent = "";
      showError($("evaluate-error"), null);
      $("err-eval-name").textContent = "";
      $("eval-name").removeAttribute("aria-invalid");
    }

    function fileChosen() {
      const file = $("eval-file").files[0];
      $("eval-clear-file").hidden = !file;
      $("eval-text").disabled = Boolean(file);
      $("eval-text").title = file ? "Using the file " + file.name + "; clear it to paste scores instead" : "";
    }

    function clearFile() {
      $("eval-file").value = "";
      fileChosen();
    }

    async function submit(event) {
      event.preventDefault();
      if (!scenarioId || busy) return;
      showError($("evaluate-error"), null);
      $("err-eval-name").textContent = "";
      $("eval-name").removeAttribute("aria-invalid");
      const file = $("eval-file").files[0];
      let text;
      let kind;
      let source;
      if (file) {
        try {
          text = await file.text();
        } catch (error) {
          showError($("evaluate-error"), { message: file.name + ": cannot be read (" + (error.message || error) + ")" });
          return;
        }
        const extension = (file.name.match(/\.([^.]+)$/) || [])[1];
        kind = KIND_BY_EXTENSION[(extension || "").toLowerCase()] || sniff(text);
        source = file.name;
      } else {
        text = $("eval-text").value;
        kind = sniff(text);
        source = "pasted scores";
      }
      if (!text.trim()) {
        showError($("evaluate-error"), { message: "Choose a predictions file or paste scores first." });
        return;
      }
      const name = $("eval-name").value.trim() || "predictions";
      const mine = ++request;
      busy = true;
      $("evaluate-run").disabled = true;
      $("evaluate-status").textContent = "Scoring " + source + " (" + kind.toUpperCase() + ")…";
      try {
        const url = "/api/scenarios/" + encodeURIComponent(scenarioId) + "/evaluate?name=" + encodeURIComponent(name);
        const response = await fetch(url, { method: "POST",
          headers: { "Content-Type": MEDIA[kind] + "; charset=utf-8", Accept: "application/json" }, body: text });
        if (!response.ok) throw await readError(response);
        const result = await response.json();
        if (mine !== request) return;
        render(result, source);
        $("evaluate-status").textContent = "Scored " + source + " as " + kind.toUpperCase() + ".";
      } catch (error) {
        if (mine !== request) return;
        $("evaluate-result").hidden = true;
        $("evaluate-status").textContent = "";
        if (error.field === "name") {
          $("err-eval-name").textContent = error.message;
          $("eval-name").setAttribute("aria-invalid", "true");
          $("eval-name").focus();
        } else {
          showError($("evaluate-error"), error);
          $("evaluate-error").append(el("span", { class: "error-source", text: "while scoring " + source }));
        }
      } finally {
        if (mine === request) { busy = false; $("evaluate-run").disabled = false; }
      }
    }

    function render(result, source) {
      $("eval-auroc").textContent = fixed(result.auroc, 3);
      $("eval-auroc").dataset.value = String(result.auroc);
      $("eval-name-shown").textContent = "“" + result.name + "” from " + source;
      const counts = $("eval-counts");
      counts.replaceChildren();
      const c = result.counts || {};
      for (const key of ["facts", "true", "false", "scored", "missing", "unknown"]) {
        if (c[key] === undefined) continue;
        counts.append(el("div", { "data-count": key }, el("dt", { text: key }), el("dd", { text: fmt(c[key]) })));
      }
      const links = result.links || {};
      const box = $("eval-links");
      box.replaceChildren(el("span", { class: "muted", text: "ROC as" }));
      for (const [ext, label] of [["svg", "SVG"], ["png", "PNG"], ["json", "JSON"]]) {
        if (!links[ext]) continue;
        box.append(el("a", { href: links[ext], target: "_blank", rel: "noopener", "data-format": ext, text: label }));
      }
      const img = $("eval-roc");
      img.alt = "ROC curve of " + result.name + ", AUROC " + fixed(result.auroc, 3);
      img.src = links.png;
      $("evaluate-result").hidden = false;
    }

    function init() {
      $("evaluate-form").addEventListener("submit", submit);
      $("eval-file").addEventListener("change", fileChosen);
      $("eval-clear-file").addEventListener("click", clearFile);
    }

    return { init, reset };
  })();
  evaluation.init();

  // ---------------------------------------------------------------------------------------------
  // Scenario tab
  const scenario = (function () {
    // Bounds as generators/spec.py checks them; /openapi.json overrides whatever it states.
    const FALLBACK = {
      size: { type: "integer", minimum: 2, maximum: 100000, default: 300 },
      ratio: { type: "number", minimum: 0.01, maximum: 100, default: 1.0 },
      popularity: { type: "string", enum: ["popular", "unpopular", "random"], default: "random" },
      transparency: { type: "number", minimum: 0, maximum: 1, default: 0.5 },
      homogeneity: { type: "number", minimum: 0, maximum: 1, default: 0.0 },
      ambiguous: { type: "string", enum: ["lcwa", "random_walk"], default: "lcwa" },
      max_path_length: { type: "integer", minimum: 1, maximum: 4, default: 3 },
      type_overlap: { type: "integer", minimum: 0, maximum: 20, default: 4 },
      leakage: { type: "string", enum: ["triple", "inverse", "pair"], default: "triple" },
      train_size: { type: "integer", minimum: 0, maximum: 100000, default: 0 },
      entity_disjoint: { type: "boolean", default: false },
      latest_year: { type: "integer", minimum: 1, maximum: 9999 },
      seed: { type: "integer", minimum: 0, maximum: 4294967295 },
      factbench: { type: "array", items: { enum: ["domain", "range", "domainrange", "property", "random", "date", "mix"] } },
    };
    const KNOBS = [
      { name: "size", label: "Size", help: "test facts, true + false" },
      { name: "ratio", label: "Ratio", help: "true : false", step: 0.1 },
      { name: "train_size", label: "Train size", help: "0 = no training set" },
      { name: "popularity", label: "Popularity", help: "which true facts (Eq. 1)" },
      { name: "transparency", label: "Transparency", help: "share of random false facts", slider: true, step: 0.05 },
      { name: "homogeneity", label: "Homogeneity", help: "true facts from one cluster", slider: true, step: 0.05 },
      { name: "ambiguous", label: "Ambiguous negatives", help: "the other false facts" },
      { name: "seed", label: "Seed", help: "same seed, same bytes", optional: true },
      { name: "max_path_length", label: "Max path length", help: "random-walk paths", advanced: true },
      { name: "type_overlap", label: "Type overlap", help: "LCWA type paths", advanced: true },
      { name: "leakage", label: "Leakage", help: "left out of the reference", advanced: true },
      { name: "latest_year", label: "Latest year", help: "for date corruptions", optional: true, advanced: true },
      { name: "entity_disjoint", label: "Entity-disjoint splits", help: "no entity in train and test", advanced: true },
      { name: "factbench", label: "FactBench corruptions", help: "replace the negatives above", advanced: true },
    ];
    const PREVIEW_ROWS = 20;
    let schema = FALLBACK;
    let started = false;
    let filterTimer = null;
    let filterRequest = 0;
    let chosenPredicate = null;
    let generating = false;

    async function loadSchema() {
      try {
        const doc = await getJSON("/openapi.json");
        const props = doc.components.schemas.ScenarioSpec.properties;
        schema = {};
        for (const [name, fallback] of Object.entries(FALLBACK)) schema[name] = Object.assign({}, fallback, props[name] || {});
        for (const [name, s] of Object.entries(schema)) {
          // exclusiveMinimum 0 leaves no usable input minimum; the spec's own floor does.
          if (s.exclusiveMinimum !== undefined && s.minimum === undefined) s.minimum = FALLBACK[name].minimum;
        }
      } catch (_) {
        schema = FALLBACK;
      }
    }

    function fieldError(name) {
      return el("p", { class: "field-error", id: "err-" + name, "data-field": name });
    }

    function knob(def) {
      const s = schema[def.name] || {};
      const id = "f-" + def.name;
      const described = "err-" + def.name + " help-" + def.name;
      const help = el("span", { class: "help", id: "help-" + def.name, title: def.help, text: def.help });
      const range = rangeText(s);
      if (def.name === "factbench") {
        const boxes = el("div", { class: "checks" });
        for (const kind of s.items.enum) {
          boxes.append(el("label", { class: "check" },
            el("input", { type: "checkbox", name: "factbench", value: kind }), " " + kind));
        }
        return el("fieldset", { class: "field wide", "aria-describedby": described },
          el("legend", { text: def.label }), boxes, help, fieldError(def.name));
      }
      if (s.type === "boolean") {
        return el("div", { class: "field" },
          el("label", { class: "check", for: id },
            el("input", { type: "checkbox", id, name: def.name, "aria-describedby": described }), " " + def.label),
          help, fieldError(def.name));
      }
      let control;
      if (s.enum) {
        control = el("select", { id, name: def.name, "aria-describedby": described });
        for (const value of s.enum) control.append(el("option", { value, text: value }));
      } else {
        const step = s.type === "integer" ? 1 : def.step || "any";
        control = el("input", { type: "number", id, name: def.name, step, min: s.minimum, max: s.maximum,
          inputmode: s.type === "integer" ? "numeric" : "decimal", placeholder: def.optional ? "default" : null,
          "aria-describedby": described });
      }
      const row = el("div", { class: "control-row" }, control);
      if (def.slider) {
        const slider = el("input", { type: "range", id: id + "-slider", min: s.minimum, max: s.maximum,
          step: def.step, "aria-label": def.label + " slider", tabindex: -1 });
        // The number box is the value that is sent; the slider only moves it.
        slider.addEventListener("input", () => { control.value = slider.value; });
        control.addEventListener("input", () => { if (control.value !== "") slider.value = control.value; });
        row.prepend(slider);
      }
      return el("div", { class: "field" },
        el("div", { class: "label-row" }, el("label", { for: id, text: def.label }),
          range ? el("span", { class: "range", text: range }) : null),
        row, help, fieldError(def.name));
    }

    function rangeText(s) {
      if (s.minimum !== undefined && s.maximum !== undefined) return fmt(s.minimum) + "–" + fmt(s.maximum);
      if (s.minimum !== undefined) return "≥ " + fmt(s.minimum);
      return "";
    }

    function resetKnobs() {
      for (const def of KNOBS) {
        const s = schema[def.name] || {};
        if (def.name === "factbench") {
          for (const box of document.querySelectorAll('input[name="factbench"]')) box.checked = false;
          continue;
        }
        const control = $("f-" + def.name);
        if (s.type === "boolean") control.checked = Boolean(s.default);
        else control.value = s.default === undefined ? "" : String(s.default);
        const slider = $("f-" + def.name + "-slider");
        if (slider) slider.value = control.value;
      }
      clearFieldErrors();
    }

    // --- predicate picker ------------------------------------------------------------------
    async function loadPredicates() {
      const request = ++filterRequest;
      const q = $("predicate-filter").value.trim();
      const list = $("predicate-list");
      list.setAttribute("aria-busy", "true");
      let data;
      try {
        data = await getJSON("/api/predicates?limit=200&sort=facts&q=" + encodeURIComponent(q));
      } catch (error) {
        if (request !== filterRequest) return;
        list.replaceChildren(el("p", { class: "error", text: "Predicates unavailable: " + (error.message || error) }));
        list.removeAttribute("aria-busy");
        return;
      }
      if (request !== filterRequest) return;
      list.replaceChildren();
      for (const p of data.items) {
        const id = "pred-" + list.children.length;
        const input = el("input", { type: "radio", name: "predicate-choice", id, value: p.predicate,
          checked: chosenPredicate === p.predicate || chosenPredicate === p.name });
        input.addEventListener("change", () => choosePredicate(p));
        list.append(el("label", { class: "predicate", for: id, title: p.predicate, "data-name": p.name }, input,
          el("span", { class: "pname", text: p.name }),
          el("span", { class: "pfacts", text: fmt(p.facts) + " facts" }),
          el("span", { class: "badge", title: "functionality", text: p.functionality })));
      }
      if (!data.items.length) list.append(el("p", { class: "empty", text: "No predicate matches." }));
      $("predicate-count").textContent = data.total > data.items.length
        ? "showing " + data.items.length + " of " + fmt(data.total) + " predicates"
        : fmt(data.total) + (data.total === 1 ? " predicate" : " predicates");
      list.removeAttribute("aria-busy");
    }

    function choosePredicate(p) {
      chosenPredicate = p.predicate;
      $("f-predicate").value = p.name;
      showFieldError("predicate", null);
    }

    // --- errors next to fields -------------------------------------------------------------
    function clearFieldErrors() {
      for (const box of document.querySelectorAll("#scenario-form .field-error")) box.textContent = "";
      for (const input of document.querySelectorAll('#scenario-form [aria-invalid="true"]')) input.removeAttribute("aria-invalid");
    }

    function showFieldError(name, message) {
      const box = $("err-" + name);
      if (!box) return false;
      box.textContent = message || "";
      const fold = box.closest("details");
      if (fold && message) fold.open = true;
      const control = $("f-" + name) || document.querySelector('#scenario-form input[name="' + CSS.escape(name) + '"]');
      if (control) {
        if (message) control.setAttribute("aria-invalid", "true"); else control.removeAttribute("aria-invalid");
        if (message) control.focus();
      }
      return true;
    }

    // --- the spec ----------------------------------------------------------------------------
    function readSpec() {
      const spec = { predicate: $("f-predicate").value.trim() };
      for (const def of KNOBS) {
        const s = schema[def.name] || {};
        if (def.name === "factbench") {
          const kinds = [...document.querySelectorAll('input[name="factbench"]:checked')].map((x) => x.value);
          if (kinds.length) spec.factbench = kinds;
          continue;
        }
        const control = $("f-" + def.name);
        if (s.type === "boolean") { spec[def.name] = control.checked; continue; }
        if (s.enum) { spec[def.name] = control.value; continue; }
        if (control.value === "") {
          // A number box holding text it cannot parse reads as empty; send the text so the server names it.
          if (control.validity && control.validity.badInput) spec[def.name] = "not a number";
          continue;
        }
        spec[def.name] = Number(control.value);
      }
      return spec;
    }

    async function generate(event) {
      event.preventDefault();
      if (generating) return;
      clearFieldErrors();
      showError($("scenario-error"), null);
      const spec = readSpec();
      if (!spec.predicate) { showFieldError("predicate", "predicate: choose one from the list or type a CURIE/IRI"); return; }
      generating = true;
      $("generate").disabled = true;
      setProgress({ step: "submitting", progress: { done: 0, total: 1 } });
      try {
        let body = await post(spec);
        if (body.status !== "done") body = await follow(body, spec);
        await showScenario(body);
      } catch (error) {
        $("progress").hidden = true;
        if (!(error.field && showFieldError(error.field, error.message))) showError($("scenario-error"), error);
      } finally {
        generating = false;
        $("generate").disabled = false;
      }
    }

    async function post(spec) {
      const response = await fetch("/api/scenarios", { method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(spec) });
      if (!response.ok) throw await readError(response);
      return response.json();
    }

    function setProgress(job) {
      const progress = job.progress || { done: 0, total: 1 };
      $("progress").hidden = false;
      $("progress-bar").max = Math.max(1, progress.total);
      $("progress-bar").value = progress.done;
      $("progress-label").textContent = (job.status === "queued" ? "Queued" : "Step " + progress.done + " / " + progress.total)
        + (job.step ? " · " + job.step : "");
    }

    const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

    // A 202 names a job; poll it, then ask again for the finished scenario with its links
    // (the id is derived from the spec, so the second POST is answered from disk).
    async function follow(job, spec) {
      let state = job;
      setProgress(state);
      while (state.status !== "done") {
        if (state.status === "failed") {
          const e = state.error || {};
          throw { status: e.status, message: e.error || "generation failed", field: e.field };
        }
        await pause(400);
        state = await getJSON(job.status_url);
        setProgress(state);
      }
      const body = await post(spec);
      if (body.status !== "done") throw { message: "the scenario was made but is not available yet; try again" };
      return body;
    }

    async function showScenario(body) {
      const manifest = body.manifest;
      $("progress-bar").max = 1;
      $("progress-bar").value = 1;
      $("progress-label").textContent = "Done";
      $("scenario-id").textContent = body.id;

      const counts = $("scenario-counts").tBodies[0];
      counts.replaceChildren();
      for (const split of ["test", "train"]) {
        const c = manifest.counts[split];
        if (!c || (c.true + c.false === 0 && split === "train")) continue;
        counts.append(el("tr", { "data-split": split }, el("th", { scope: "row", text: split }),
          el("td", { class: "num t", text: fmt(c.true) }), el("td", { class: "num f", text: fmt(c.false) }),
          el("td", { class: "num", text: fmt(c.true + c.false) })));
      }

      const list = $("scenario-downloads");
      list.replaceChildren();
      const splits = [...new Set(Object.values(body.links.data).flatMap((bySplit) => Object.keys(bySplit)))];
      for (const split of splits) {
        const item = el("li", {}, el("span", { class: "fmt", text: split }));
        for (const [format, bySplit] of Object.entries(body.links.data)) {
          if (!bySplit[split]) continue;
          // An empty download attribute lets the server's Content-Disposition name the file.
          item.append(el("a", { href: bySplit[split], download: true,
            "data-format": format, "data-split": split, "aria-label": split + " split as " + format, text: format }));
        }
        list.append(item);
      }
      list.append(el("li", {}, el("span", { class: "fmt", text: "more" }),
        el("a", { href: body.links.answers, download: body.id + "-answers.json", "data-format": "answers", text: "answers" }),
        el("a", { href: body.links.reference, download: body.id + "-reference.nt", "data-format": "reference", text: "reference" }),
        el("a", { href: body.links.manifest, download: body.id + "-manifest.json", "data-format": "manifest", text: "manifest" })));

      const data = await getJSON(body.links.data.json.test);
      const facts = data.facts || [];
      const preview = $("scenario-preview").tBodies[0];
      preview.replaceChildren();
      for (const fact of facts.slice(0, PREVIEW_ROWS)) {
        preview.append(el("tr", { class: fact.label ? "true" : "false" },
          el("td", { class: "mono", text: fact.id }),
          el("td", { title: fact.subject, text: shorten(String(fact.subject)) }),
          el("td", { title: fact.predicate, text: shorten(String(fact.predicate)) }),
          el("td", { title: fact.object, text: shorten(String(fact.object)) }),
          el("td", {}, el("span", { class: "label " + (fact.label ? "true" : "false"), text: fact.label ? "true" : "false" }))));
      }
      $("preview-title").textContent = "Preview: first " + Math.min(PREVIEW_ROWS, facts.length) + " of "
        + fmt(facts.length) + " test facts";
      $("scenario-result").hidden = false;
      $("progress").hidden = true;
      evaluation.reset(body.id);
      audit.show(body.id);
      // Bring the result into view only when it starts below the fold; otherwise keep the form in sight.
      if ($("scenario-result").getBoundingClientRect().top > window.innerHeight - 200) {
        $("scenario-result").scrollIntoView({ block: "nearest" });
      }
    }

    function init() {
      if (started) return;
      started = true;
      loadSchema().then(() => {
        for (const def of KNOBS) $(def.advanced ? "knobs-more" : "knobs").append(knob(def));
        resetKnobs();
        $("knobs").dataset.ready = "true";
      });
      loadPredicates();
      $("predicate-filter").addEventListener("input", () => {
        clearTimeout(filterTimer);
        // Typing fast should not send a request per key.
        filterTimer = setTimeout(loadPredicates, 150);
      });
      $("f-predicate").addEventListener("input", () => { chosenPredicate = $("f-predicate").value.trim(); });
      $("scenario-form").addEventListener("submit", generate);
      $("reset-knobs").addEventListener("click", resetKnobs);
    }

    return { init };
  })();

  // ---------------------------------------------------------------------------------------------
  window.addEventListener("hashchange", () => {
    const wanted = tabs.find((t) => "#" + t.id.replace("tab-", "") === location.hash);
    if (wanted && wanted.getAttribute("aria-selected") !== "true") selectTab(wanted, false);
  });
  loadKb();
  sparql.init();
  selectTab(location.hash === "#scenario" ? tabs[1] : tabs[0], false);
})();
