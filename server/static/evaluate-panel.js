// Evaluating the user's own predictions on the shown scenario (POST /api/scenarios/<id>/evaluate):
// a file or pasted scores in, AUROC, counts and the ROC curve out. The formats a file may be in (its
// extensions, the media type it is sent as) are the server's table, GET /api/prediction-formats.
import { $, el, showError } from "./dom.js";
import { fetchOk, getJSON } from "./http.js";
import { fixed, fmt } from "./numbers.js";

let scenarioId = null;
let request = 0;
let busy = false;
let loading = null;

// [{name, media_type, aliases, extensions, label}], asked for once.
function loadFormats() {
  if (!loading) {
    loading = getJSON("/api/prediction-formats").then(
      (body) => body.items,
      (error) => { loading = null; throw error; });   // the next submit asks again
  }
  return loading;
}

// The format of a file by its extension, else (pasted text, an unknown extension) by its look.
function formatOf(formats, extension, text) {
  const byExtension = formats.find((f) => f.extensions.includes((extension || "").toLowerCase()));
  const found = byExtension || formats.find((f) => f.name === sniff(text));
  if (!found) throw { message: "the server reads no " + sniff(text) + " predictions (see /api/prediction-formats)" };
  return found;
}

// The parser's name for what a pasted text (or a file with an unknown extension) most likely is.
function sniff(text) {
  const first = (text.split(/\r?\n/).find((line) => line.trim()) || "").trim();
  if (first.startsWith("{")) return "jsonl";
  if (first.includes("\t")) return "tsv";
  if (first.includes(",")) return "csv";
  return "tsv";
}

// A new scenario is shown: what was scored before does not apply to it.
export function resetEvaluation(id) {
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
  let formats;
  try {
    formats = await loadFormats();
  } catch (error) {
    showError($("evaluate-error"), { status: error.status,
      message: "the predictions formats could not be read from the server (" + (error.message || error) + ")" });
    return;
  }
  const file = $("eval-file").files[0];
  let text;
  let extension = null;
  let source;
  if (file) {
    try {
      text = await file.text();
    } catch (error) {
      showError($("evaluate-error"), { message: file.name + ": cannot be read (" + (error.message || error) + ")" });
      return;
    }
    extension = (file.name.match(/\.([^.]+)$/) || [])[1];
    source = file.name;
  } else {
    text = $("eval-text").value;
    source = "pasted scores";
  }
  if (!text.trim()) {
    showError($("evaluate-error"), { message: "Choose a predictions file or paste scores first." });
    return;
  }
  let format;
  try {
    format = formatOf(formats, extension, text);
  } catch (error) {
    showError($("evaluate-error"), error);
    return;
  }
  const name = $("eval-name").value.trim() || "predictions";
  const mine = ++request;
  busy = true;
  $("evaluate-run").disabled = true;
  $("evaluate-status").textContent = "Scoring " + source + " (" + format.label + ")…";
  try {
    const url = "/api/scenarios/" + encodeURIComponent(scenarioId) + "/evaluate?name=" + encodeURIComponent(name);
    const response = await fetchOk(url, { method: "POST",
      headers: { "Content-Type": format.media_type + "; charset=utf-8", Accept: "application/json" }, body: text });
    const result = await response.json();
    if (mine !== request) return;
    render(result, source);
    $("evaluate-status").textContent = "Scored " + source + " as " + format.label + ".";
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

export function initEvaluation() {
  $("evaluate-form").addEventListener("submit", submit);
  // The file picker offers the server's extensions; unread, it offers any file and submit says why.
  loadFormats().then(
    (formats) => { $("eval-file").accept = formats.flatMap((f) => f.extensions.map((e) => "." + e)).join(","); },
    () => {});
  $("eval-file").addEventListener("change", fileChosen);
  $("eval-clear-file").addEventListener("click", clearFile);
}
