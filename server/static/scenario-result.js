// A made scenario: its counts per split, its download links and a preview of its first test facts.
import { showClaims } from "./claims-view.js";
import { $, el } from "./dom.js";
import { getJSON } from "./http.js";
import { fmt } from "./numbers.js";
import { loadPrefixes, shorten } from "./prefixes.js";

const PREVIEW_ROWS = 20;

function showCounts(manifest) {
  const counts = $("scenario-counts").tBodies[0];
  counts.replaceChildren();
  for (const split of ["test", "train"]) {
    const c = manifest.counts[split];
    if (!c || (c.true + c.false === 0 && split === "train")) continue;
    counts.append(el("tr", { "data-split": split }, el("th", { scope: "row", text: split }),
      el("td", { class: "num t", text: fmt(c.true) }), el("td", { class: "num f", text: fmt(c.false) }),
      el("td", { class: "num", text: fmt(c.true + c.false) })));
  }
}

function showLinks(body) {
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
    referenceLink(body),
    // R is the KB less these
    el("a", { href: body.links.reference_removed, download: body.id + "-reference.removed.nt",
      "data-format": "reference_removed", title: "the triples R lacks of the KB", text: "removed" }),
    el("a", { href: body.links.manifest, download: body.id + "-manifest.json", "data-format": "manifest", text: "manifest" })));
}

// A server reading its KB from an endpoint refuses the plain reference link (409): R in full is
// the whole KB passed through it, so that link says so and asks for it explicitly.
function referenceLink(body) {
  if (!body.links.reference_whole) {
    return el("a", { href: body.links.reference, download: body.id + "-reference.nt", "data-format": "reference",
      text: "reference" });
  }
  return el("a", { href: body.links.reference_whole, download: body.id + "-reference.nt",
    "data-format": "reference_whole", text: "reference (whole KB)",
    title: "R in full: the whole KB less the removed triples, read from the endpoint through this server "
      + "(?whole=true); to rebuild R from your own copy of the KB, take the removed triples instead" });
}

async function showPreview(testUrl) {
  const [data] = await Promise.all([getJSON(testUrl), loadPrefixes()]);
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
}

// body: POST /api/scenarios's answer for a finished scenario (id, manifest, links).
export async function showScenario(body) {
  $("scenario-id").textContent = body.id;
  showCounts(body.manifest);
  showLinks(body);
  await Promise.all([showPreview(body.links.data.json.test), showClaims(body)]);
  $("scenario-result").hidden = false;
}
