// The formats /sparql answers in (GET /api/result-formats: sparql/result_formats.py's table). The
// console asks for answers and offers downloads by this table, so it holds no media types of its own.
import { getJSON } from "./http.js";

let loading = null;

// [{name, media_type, aliases, graph, label, extension}] in the table's order, asked for once.
export function loadResultFormats() {
  if (!loading) {
    loading = getJSON("/api/result-formats").then(
      (body) => body.items,
      (error) => { loading = null; throw error; });   // the next caller asks again
  }
  return loading;
}

// The format called name; an error naming it when the server's table has none.
export function formatNamed(formats, name) {
  const found = formats.find((f) => f.name === name);
  if (!found) throw { message: "the server offers no " + name + " answers (see /api/result-formats)" };
  return found;
}

// Whether a response's media type is format's own or one of its aliases.
export function isFormat(format, mediaType) {
  return mediaType === format.media_type || format.aliases.includes(mediaType);
}
