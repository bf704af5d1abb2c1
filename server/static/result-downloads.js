// Downloading a query's whole answer (the table shows at most MAX_SHOWN rows) in the formats /sparql
// offers for it (result-formats.js).
import { el, saveBlob } from "./dom.js";
import { fetchOk } from "./http.js";

// One button per format of formats; a click calls download(media type, extension).
export function showDownloads(box, formats, download) {
  box.replaceChildren(el("span", { class: "muted", text: "Download" }));
  for (const format of formats) {
    box.append(el("button", { type: "button", class: "download", "data-format": format.extension,
      onclick: () => download(format.media_type, format.extension), text: format.label }));
  }
}

// Asks /sparql again for query's answer as the media type accept and saves it as filename.
export async function saveAnswer(query, accept, filename) {
  const response = await fetchOk("/sparql", { method: "POST",
    headers: { "Content-Type": "application/sparql-query", Accept: accept }, body: query });
  saveBlob(await response.blob(), filename);
}
