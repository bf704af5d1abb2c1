"""The docker files say what the CLI accepts (no docker engine runs here, so the files are checked
against the real argument parsers: factforge's and oxigraph's)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def commands(text: str, key: str) -> list[list[str]]:
    """Exec-form command lists: `command: [...]` in compose, `CMD [...]` in a Dockerfile (both JSON)."""
    return [json.loads(match) for match in re.findall(rf"^\s*{key}:?\s+(\[.*\])\s*$", text, re.M)]


def test_compose_and_dockerfile_use_real_factforge_flags():
    from server.cli import build_parser

    compose = (ROOT / "docker" / "compose.yaml").read_text()
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    factforge = [c for c in commands(compose, "command") if c[0] == "serve"]
    factforge += commands(dockerfile, "CMD")
    assert len(factforge) == 2
    for argv in factforge:
        args = build_parser().parse_args(argv)  # exits (fails the test) on an unknown flag
        assert args.command == "serve" and args.host == "0.0.0.0" and args.port == 8000
    readme = (ROOT / "README.md").read_text()
    for flag in ("--endpoint", "--host", "--port"):
        assert flag in readme


def test_dockerfile_copies_every_package():
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    setup = (ROOT / "setup.cfg").read_text()
    block = setup.split("[options.packages.find]")[1].split("[")[0]
    packages = {line.strip() for line in block.splitlines() if line.strip() and "*" not in line and "=" not in line}
    for package in packages:
        assert f"COPY {package} ./{package}" in dockerfile


@pytest.mark.skipif(shutil.which("oxigraph") is None, reason="the oxigraph CLI is not installed")
def test_compose_oxigraph_command_is_accepted_by_oxigraph():
    compose = (ROOT / "docker" / "compose.yaml").read_text()
    (oxigraph,) = [c for c in commands(compose, "command") if c[0].startswith("serve-")]
    flags = [part for part in oxigraph if part.startswith("--")]
    usage = subprocess.run(["oxigraph", oxigraph[0], "--help"], capture_output=True, text=True, check=True).stdout
    for flag in flags:
        assert flag in usage
