"""The console's ES modules without a browser: the page loads one module script, every import names
a module file that exists and exports what is imported, every module is used, the server sends them
as JavaScript, and the prefix table, the answer formats and the knobs' bounds are the server's (no
module holds a copy of them).

The browser half (the modules load and run in Chromium) is in test_console_browser.py.
"""
from __future__ import annotations

import mimetypes
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import requests

from factforge.sparql.result_formats import FORMATS
from factforge.sparql.terms import PREFIXES

STATIC = Path(__file__).resolve().parents[1] / "server" / "static"
ENTRY = "console.js"
MODULES = sorted(path.name for path in STATIC.glob("*.js"))

# import {a, b as c} from "./x.js" · import * as x from "./x.js" · import "./x.js" · export {a} from "./x.js"
STATIC_IMPORT = re.compile(r"""\b(import|export)\s*(?:([\w$*{}\s,]+?)\s*from\s*)?["']([^"']+)["']""")
DYNAMIC_IMPORT = re.compile(r"""\bimport\s*\(\s*["']([^"']+)["']\s*\)""")
EXPORTED_DECLARATION = re.compile(r"\bexport\s+(?:async\s+)?(?:function\*?|const|let|var|class)\s+([\w$]+)")
EXPORTED_LIST = re.compile(r"\bexport\s*\{([^}]*)\}")


def code(text: str) -> str:
    """A module's text without comments (a comment may mention an import that is not one)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$", "", text)


def parse_imports(text: str) -> list[tuple[str, set[str]]]:
    """(specifier, names imported) of every import in a module; '*' for a namespace import."""
    text = code(text)
    found = []
    for match in STATIC_IMPORT.finditer(text):
        keyword, clause, specifier = match.groups()
        if keyword == "export" and clause is None:
            continue  # `export "x"` is not a statement; the pattern only overreaches
        names: set[str] = set()
        if clause:
            if "*" in clause:
                names.add("*")
            braces = re.search(r"\{([^}]*)\}", clause)
            if braces:
                names |= {part.split(" as ")[0].strip() for part in braces.group(1).split(",") if part.strip()}
        found.append((specifier, names))
    found += [(specifier, {"*"}) for specifier in DYNAMIC_IMPORT.findall(text)]
    return found


def parse_exports(text: str) -> set[str]:
    text = code(text)
    names = set(EXPORTED_DECLARATION.findall(text))
    for listed in EXPORTED_LIST.findall(text):
        names |= {part.split(" as ")[-1].strip() for part in listed.split(",") if part.strip()}
    return names


def imports(name: str) -> list[tuple[str, set[str]]]:
    return parse_imports((STATIC / name).read_text(encoding="utf-8"))


def exports(name: str) -> set[str]:
    return parse_exports((STATIC / name).read_text(encoding="utf-8"))


class Scripts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts: list[dict] = []

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.scripts.append(dict(attrs))


def test_the_page_loads_the_entry_as_one_module_script():
    parser = Scripts()
    parser.feed((STATIC / "console.html").read_text(encoding="utf-8"))
    # One external module and no inline script: a strict script-src 'self' policy would allow it.
    assert parser.scripts == [{"type": "module", "src": f"/static/{ENTRY}"}]


def test_the_import_parser_reads_every_form():
    """The checks below are only as good as this parser, so it is tried on every form the modules may use."""
    sample = ('import { a, b as c,\n  d } from "./one.js";\nimport * as ns from \'./two.js\';\n'
              'import "./three.js";\nexport { e } from "./four.js";\nconst m = import("./five.js");\n'
              '// import { x } from "./commented.js";\nexport async function f() {}\nexport const g = 1;\n'
              "export { h as i };\n")
    assert parse_imports(sample) == [("./one.js", {"a", "b", "d"}), ("./two.js", {"*"}), ("./three.js", set()),
                                     ("./four.js", {"e"}), ("./five.js", {"*"})]
    assert parse_exports(sample) == {"f", "g", "i", "e"}


@pytest.mark.parametrize("module", MODULES)
def test_every_import_names_a_module_here_that_exports_it(module):
    for specifier, names in imports(module):
        # Relative and local: no bare npm name (nothing resolves it without a build step), no CDN URL.
        assert re.fullmatch(r"\./[a-z][a-z0-9-]*\.js", specifier), f"{module}: import {specifier!r}"
        target = specifier[2:]
        assert (STATIC / target).is_file(), f"{module} imports {specifier}, which does not exist"
        missing = names - {"*"} - exports(target)
        assert not missing, f"{module} imports {sorted(missing)} from {specifier}, which does not export them"


def test_every_module_is_reached_from_the_entry():
    reached, todo = set(), [ENTRY]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo += [specifier[2:] for specifier, _ in imports(module)]
    assert reached == set(MODULES)
    assert len(MODULES) > 1


def test_no_module_holds_a_copy_of_the_prefix_table():
    for module in MODULES:
        text = (STATIC / module).read_text(encoding="utf-8")
        copied = [namespace for namespace in PREFIXES.values() if namespace in text]
        assert not copied, f"{module} spells out {copied}; the console reads the table from /api/prefixes"


def test_the_modules_are_served_as_javascript(demo_http, monkeypatch):
    # A platform's MIME table may map .js to something else (a Windows registry often says text/plain),
    # and browsers refuse a module that is not sent as JavaScript: the type must not come from that table.
    mimetypes.guess_type("x.js")  # the table is read on first use, which replaces types_map
    monkeypatch.setitem(mimetypes.types_map, ".js", "text/plain")
    assert mimetypes.guess_type("x.js")[0] == "text/plain"
    for module in MODULES:
        response = requests.get(f"{demo_http}/static/{module}", timeout=30)
        assert response.status_code == 200, module
        assert response.headers["Content-Type"].split(";")[0] == "text/javascript", module
        assert response.content == (STATIC / module).read_bytes()


def test_the_prefix_table_is_the_servers(demo_http):
    response = requests.get(f"{demo_http}/api/prefixes", timeout=30)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/json"
    # A list, not an object: the first namespace that fits wins, so the order is part of the table.
    assert response.json() == {"items": [{"prefix": prefix, "namespace": namespace}
                                         for prefix, namespace in PREFIXES.items()]}


def test_no_module_holds_a_copy_of_the_answer_formats_or_the_knob_bounds():
    from factforge.evaluation.predictions import FORMATS as UPLOADS

    for module in MODULES:
        text = code((STATIC / module).read_text(encoding="utf-8"))
        copied = [f.media_type for f in FORMATS if f.media_type in text]
        assert not copied, f"{module} spells out {copied}; the console reads them from /api/result-formats"
        uploads = [m for f in UPLOADS for m in (f.media_type, *f.aliases) if m in text]
        assert not uploads, f"{module} spells out {uploads}; the console reads them from /api/prediction-formats"
        assert not re.search(r"\b(minimum|maximum)\s*:", text), f"{module} holds knob bounds; they come from /openapi.json"
    # the file picker's extensions too: the page gets them from the same table
    assert not re.search(r'id="eval-file"[^>]*accept=', (STATIC / "console.html").read_text(encoding="utf-8"))


def test_the_prediction_formats_are_the_servers_and_its_openapis(demo_http):
    from factforge.evaluation.predictions import FORMATS as UPLOADS

    response = requests.get(f"{demo_http}/api/prediction-formats", timeout=30)
    assert response.status_code == 200
    assert response.json() == {"items": [
        {"name": f.name, "media_type": f.media_type, "aliases": list(f.aliases), "extensions": list(f.extensions),
         "label": f.label} for f in UPLOADS]}
    schema = requests.get(f"{demo_http}/openapi.json", timeout=30).json()
    uploads = schema["paths"]["/api/scenarios/{scenario_id}/evaluate"]["post"]["requestBody"]["content"]
    assert set(uploads) == {"application/json", *(f.media_type for f in UPLOADS)}
    assert "/api/prediction-formats" in schema["paths"]


def test_the_answer_formats_are_the_servers(demo_http):
    response = requests.get(f"{demo_http}/api/result-formats", timeout=30)
    assert response.status_code == 200
    assert response.json() == {"items": [
        {"name": f.name, "media_type": f.media_type, "aliases": list(f.aliases), "graph": f.graph,
         "label": f.label, "extension": f.extension} for f in FORMATS]}
    assert all(f.label and f.extension for f in FORMATS)  # each one can be offered as a download
