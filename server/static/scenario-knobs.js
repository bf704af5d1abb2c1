// The scenario form's knobs: one control per ScenarioSpec field, with the types, bounds, choices and
// defaults /openapi.json states (generated from generators/spec.py's constraints table, so the form
// cannot drift from what the server accepts), and the spec they make.
import { $, el, showError } from "./dom.js";
import { clearFieldErrors } from "./field-errors.js";
import { getJSON } from "./http.js";
import { fmt } from "./numbers.js";

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
let schema = {};  // ScenarioSpec's properties, by name
let knobs = [];   // KNOBS, then any knob the schema has that KNOBS does not name yet

async function loadSchema() {
  const doc = await getJSON("/openapi.json");
  schema = doc.components.schemas.ScenarioSpec.properties;
  const named = new Set(KNOBS.map((def) => def.name));
  knobs = KNOBS.filter((def) => schema[def.name]).concat(Object.keys(schema)
    .filter((name) => name !== "predicate" && !named.has(name))
    .map((name) => ({ name, label: name, help: schema[name].description || "", advanced: true })));
}

function fieldError(name) {
  return el("p", { class: "field-error", id: "err-" + name, "data-field": name });
}

function knob(def) {
  const s = schema[def.name];
  const id = "f-" + def.name;
  const described = "err-" + def.name + " help-" + def.name;
  const help = el("span", { class: "help", id: "help-" + def.name, title: def.help, text: def.help });
  const range = rangeText(s);
  if (s.type === "array") {
    const boxes = el("div", { class: "checks" });
    for (const kind of s.items.enum) {
      boxes.append(el("label", { class: "check" },
        el("input", { type: "checkbox", name: def.name, value: kind }), " " + kind));
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

export function resetKnobs() {
  for (const def of knobs) {
    const s = schema[def.name];
    if (s.type === "array") {
      for (const box of document.querySelectorAll(`input[name="${def.name}"]`)) box.checked = false;
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

// Draws the knobs once the schema is known (#knobs gets data-ready then) and sets their defaults.
export async function initKnobs() {
  try {
    await loadSchema();
  } catch (error) {
    showError($("scenario-error"), { status: error.status,
      message: "The knobs could not be read from /openapi.json: " + (error.message || error) });
    return;
  }
  for (const def of knobs) $(def.advanced ? "knobs-more" : "knobs").append(knob(def));
  resetKnobs();
  $("knobs").dataset.ready = "true";
}

// The spec the form holds: what is left empty is left to the server's default.
export function readSpec() {
  const spec = { predicate: $("f-predicate").value.trim() };
  for (const def of knobs) {
    const s = schema[def.name];
    if (s.type === "array") {
      const kinds = [...document.querySelectorAll(`input[name="${def.name}"]:checked`)].map((x) => x.value);
      if (kinds.length) spec[def.name] = kinds;
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
