"""factforge installs as one namespace: the repository's top-level folders are ``factforge.*``
subpackages, nothing else lands in site-packages, and no code imports the bare folder names (two
copies of a module, one per name, would split its state)."""
from __future__ import annotations

import ast
import configparser
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BARE = {"sparql", "server", "generators", "evaluation", "claims", "publish", "cli"}


def setup_cfg() -> configparser.ConfigParser:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    return config


def mapped_folders() -> dict[str, Path]:
    lines = [line.strip() for line in setup_cfg()["options"]["package_dir"].splitlines() if line.strip()]
    return {name.strip(): ROOT / folder.strip() for name, folder in (line.split("=") for line in lines)}


def test_the_package_list_is_every_package_folder():
    found = set()
    for name, folder in mapped_folders().items():
        for init in folder.rglob("__init__.py"):
            relative = init.parent.relative_to(folder)
            found.add(".".join([name, *relative.parts]) if relative.parts else name)
    listed = {line.strip() for line in setup_cfg()["options"]["packages"].splitlines() if line.strip()}
    assert listed == found
    assert all(name == "factforge" or name.startswith("factforge.") for name in listed)


def test_no_code_imports_the_bare_folder_names():
    offenders = []
    for path in sorted(ROOT.rglob("*.py")):
        if {".git", "build", ".venv"} & set(path.parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}:{node.lineno} {name}" for name in names
                          if name.split(".")[0] in BARE]
    assert offenders == []


def test_python_m_factforge_runs_the_command_line_from_anywhere(tmp_path):
    done = subprocess.run([sys.executable, "-m", "factforge", "--version"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("factforge "), done.stderr
    # outside the repository the bare names are not importable: they are not installed
    bare = subprocess.run([sys.executable, "-c", "import server"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert bare.returncode != 0 and "No module named 'server'" in bare.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed to copy the tracked files")
def test_a_wheel_holds_only_the_factforge_namespace(tmp_path):
    """Built from the tracked files (as a fresh clone has them), offline where the build backend is
    installed already."""
    source = tmp_path / "src"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                            str(tmp_path / "dist"), str(source)], capture_output=True, text=True, timeout=600)
    if built.returncode != 0 and "bdist_wheel" in built.stderr + built.stdout:
        pytest.skip("the wheel package is not installed")
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = next((tmp_path / "dist").glob("factforge-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"factforge", next(t for t in tops if t.endswith(".dist-info"))}
    for expected in ("factforge/sparql/queries/predicate_facts.rq", "factforge/sparql/demo/demo.ttl",
                     "factforge/server/static/console.js", "factforge/cli/main.py", "factforge/__main__.py",
                     "factforge/claims/templates/zh.json", "factforge/claims/articles/de.json"):
        assert expected in names
    assert not any("/tests/" in name or name.startswith("tests/") for name in names)
