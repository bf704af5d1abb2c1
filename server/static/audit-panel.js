// The shortcut audit of a scenario (GET /api/scenarios/<id>/audit): each trivial baseline's AUROC
// against the threshold, the location drift and the strongest PMI features.
import { $, el, showError } from "./dom.js";
import { getJSON } from "./http.js";
import { fixed, fmt, pct } from "./numbers.js";

const BASELINE_HELP = {
  degree: "log degrees of subject and object",
  type: "classes of subject and object",
  shape: "the record's fields and value kinds",
  frequency: "how often subject and object occur in the set",
  direct_link: "whether the KB links subject and object directly",
};
let request = 0;   // the latest scenario asked about, so a slow earlier audit cannot overwrite it

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

function clear() {
  request++;
  $("audit-badge").textContent = "…";
  $("audit-badge").className = "verdict";
  $("audit-badge").removeAttribute("data-flagged");
  $("audit-body").hidden = true;
  showError($("audit-error"), null);
}

export async function showAudit(scenarioId) {
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
  showBaselines(report.baselines || {}, aurocLimit);
  showDrift(report.drift, driftLimit);
  showPmi(report.pmi || {});
  $("audit-body").hidden = false;
}

function showBaselines(baselines, aurocLimit) {
  const rows = $("audit-baselines").tBodies[0];
  rows.replaceChildren();
  for (const [name, result] of Object.entries(baselines)) {
    const value = result && typeof result.auroc === "number" ? result.auroc : null;
    // far below chance is as much a shortcut as far above: the features tell the label reversed;
    // unless a model fit on every fact is at chance too (in_sample), when the folds made it
    let verdict = value === null ? "skipped" : value > aurocLimit ? "over" : value < 1 - aurocLimit ? "under" : "ok";
    const fit = result && typeof result.in_sample === "number" ? result.in_sample : null;
    if (verdict === "under" && fit !== null && fit >= 1 - aurocLimit && fit <= aurocLimit) verdict = "fold artifact";
    const style = verdict === "under" ? "over" : verdict === "fold artifact" ? "ok" : verdict;
    const why = verdict === "fold artifact"
      ? "below chance out of fold only: in sample " + fixed(fit, 3) + ", so the folds' artifact, not flagged" : null;
    rows.append(el("tr", { "data-baseline": name, class: style, "data-auroc": value === null ? null : String(value) },
      el("th", { scope: "row", title: BASELINE_HELP[name] || null, text: name }),
      el("td", { class: "bar" }, value === null ? el("span", { class: "muted small", text: result.skipped || "skipped" })
        : meter(value, aurocLimit, name + " baseline AUROC")),
      el("td", { class: "num auroc", text: fixed(value, 3) }),
      el("td", {}, el("span", { class: "pill " + style, text: verdict, title: why }))));
  }
}

function showDrift(drift, driftLimit) {
  const box = $("audit-drift");
  box.replaceChildren();
  if (!drift || typeof drift.share !== "number") {
    box.append(el("span", { class: "muted", text: "Not measured (no generator answers for the false facts)." }));
    return;
  }
  const over = drift.share > driftLimit;
  box.className = "drift" + (over ? " over" : "");
  box.append(el("span", { class: "drift-text" },
    "Top alternative ", el("code", { id: "audit-drift-top", text: drift.top || "—" }), " makes ",
    el("strong", { id: "audit-drift-share", text: pct(drift.share) }),
    " of the false facts" + (typeof drift.count === "number" ? " (" + fmt(drift.count) + ")" : "")
    + "; flag above " + pct(driftLimit) + "."),
    meter(drift.share, driftLimit, "location drift share"));
}

function showPmi(features) {
  const pmi = Object.entries(features)
    .map(([feature, v]) => ({ feature, ...v,
      strength: Math.max(Math.abs(v.npmi_true || 0), Math.abs(v.npmi_false || 0)) }))
    .sort((a, b) => b.strength - a.strength)
    .slice(0, 3);
  const rows = $("audit-pmi").tBodies[0];
  rows.replaceChildren();
  const tint = (x) => (typeof x === "number" && Math.abs(x) >= 0.2 ? (x > 0 ? "pos" : "neg") : "");
  for (const row of pmi) {
    rows.append(el("tr", { "data-feature": row.feature },
      el("td", { class: "mono feature", title: row.feature, text: row.feature }),
      el("td", { class: "num", text: fmt(row.support) }),
      el("td", { class: "num " + tint(row.npmi_true), text: fixed(row.npmi_true, 2) }),
      el("td", { class: "num " + tint(row.npmi_false), text: fixed(row.npmi_false, 2) })));
  }
  if (!pmi.length) rows.append(el("tr", {}, el("td", { colspan: 4, class: "muted", text: "No features." })));
}
