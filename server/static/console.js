// factforge web console: a SPARQL editor and a scenario form over the app's own API. This entry
// module only wires the parts together; each part is a module named for what it holds, loaded by
// the browser as it is (native ES modules: no build step, nothing fetched from outside the app).
import { initClaims } from "./claims-view.js";
import { initEvaluation } from "./evaluate-panel.js";
import { loadKb } from "./kb-header.js";
import { loadPrefixes } from "./prefixes.js";
import { initScenarioForm } from "./scenario-form.js";
import { initSparqlEditor } from "./sparql-editor.js";
import { initTabs } from "./tabs.js";

loadPrefixes();
initEvaluation();
initClaims();
loadKb();
initSparqlEditor();
initTabs({ scenario: initScenarioForm });
