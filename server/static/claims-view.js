// A made scenario's claims: the test facts as FEVER claims in a chosen language (the API's
// ?format=fever), each beside its evidence, the triples of the claims' R with their line in it.
// Only what the claims file holds is shown; how each claim was made stays in the answers download.
import { $, el, showError } from "./dom.js";
import { fetchOk, getJSON } from "./http.js";
import { fmt } from "./numbers.js";
import { loadPrefixes, shorten } from "./prefixes.js";

const SHOWN = 50;
let scenario = null;  // the scenario body (POST /api/scenarios's answer) whose claims are asked for
let languages = null;

async function loadLanguages() {
  if (languages) return;
  languages = (await getJSON("/api/kb")).claims.languages;
  $("claims-lang").replaceChildren(...languages.map((lang) => el("option", { value: lang, text: lang })));
}

function withLang(url, lang) {
  return url + (url.includes("?") ? "&" : "?") + "lang=" + encodeURIComponent(lang);
}

function term(value) {
  return el("span", { class: "term", title: value, text: shorten(String(value)) });
}

function evidenceCell(record) {
  const cell = el("td", { class: "evidence" });
  if (!record.evidence_triples.length) {
    cell.append(el("span", { class: "muted", text: "nothing in R" }));
    return cell;
  }
  record.evidence_triples.forEach((group, set) => {
    const list = el("ul", { class: "evidence-set", "data-set": set });
    group.forEach((triple, item) => {
      const line = record.evidence[set][item][3];
      list.append(el("li", { "data-line": line, "data-s": triple.s, "data-p": triple.p, "data-o": triple.o },
        el("span", { class: "line muted", text: "line " + line }), " ", term(triple.s), " ", term(triple.p), " ",
        term(triple.o)));
    });
    cell.append(list);
  });
  return cell;
}

function showLinks(lang) {
  const claims = scenario.links.claims;
  $("claims-links").replaceChildren(el("span", { class: "fmt", text: "download" }),
    el("a", { href: withLang(claims.fever, lang), download: true, "data-part": "claims", text: "claims.jsonl" }),
    el("a", { href: withLang(claims.answers, lang), download: true, "data-part": "answers", text: "answers" }),
    el("a", { href: withLang(claims.reference, lang), download: true, "data-part": "reference", text: "R" }),
    el("a", { href: withLang(claims.manifest, lang), download: true, "data-part": "manifest", text: "manifest" }));
}

async function show(event) {
  event.preventDefault();
  const lang = $("claims-lang").value;
  const table = $("claims-table");
  const status = $("claims-status");
  showError($("claims-error"), null);
  status.textContent = "Making the claims…";
  try {
    const [response] = await Promise.all([fetchOk(withLang(scenario.links.claims.fever, lang)), loadPrefixes()]);
    const records = (await response.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line));
    table.tBodies[0].replaceChildren(...records.slice(0, SHOWN).map((record) => el("tr",
      { "data-id": record.id, "data-label": record.label },
      el("td", { class: "mono", text: record.id }),
      el("td", { class: "claim", lang: record.lang, text: record.claim }),
      el("td", {}, el("span", { class: "pill claim-label", text: record.label })),
      evidenceCell(record))));
    table.hidden = false;
    table.dataset.lang = lang;
    status.textContent = "First " + Math.min(SHOWN, records.length) + " of " + fmt(records.length) + " claims in "
      + lang;
    showLinks(lang);
  } catch (error) {
    status.textContent = "";
    showError($("claims-error"), error);
  }
}

// body: the made scenario; the view starts empty until a language is chosen and asked for.
export async function showClaims(body) {
  scenario = body;
  $("claims-table").hidden = true;
  $("claims-table").tBodies[0].replaceChildren();
  $("claims-status").textContent = "";
  $("claims-links").replaceChildren();
  showError($("claims-error"), null);
  await loadLanguages();
}

export function initClaims() {
  $("claims-form").addEventListener("submit", show);
}
