"""Frozen releases: a named set of scenarios packed into one immutable, verifiable ``NAME.tar.gz``.

A release holds, under a top folder ``NAME/``, each scenario's folder (data files, answers.json,
the reference KB R as reference.nt, the scenario's manifest), a ``manifest.json`` (KB fingerprint,
software version, specs, seeds, scenario ids, sha256 of every other file) and a ``README.md``.

The archive is a pure function of KB + specs + name + formats: entries are sorted, owners, modes
and times are fixed, and the gzip header carries no time or file name. So a release can be
rebuilt and compared byte for byte, and its sha256 is a stable ETag.

Creation is all or nothing: everything is built in a hidden folder inside the releases folder and
the finished archive is hard-linked into place, which fails rather than overwrite a release that
appeared meanwhile. Whatever happens, the hidden folder is removed; only a kill can leave one, and
the next maker of that name or the next server start removes it (``remove_abandoned``). A maker
holds its name's claim (publish/jobs.py), so two processes never make one name at once.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
import shutil
import tarfile
import tempfile
import threading
import zlib
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable

from factforge.claims.options import CLAIM_CONSTRAINTS, claim_settings
from factforge.claims.reference_dump import DUMP
from factforge.generators.spec import ScenarioSpec, SpecError
from factforge.generators.writers import _sha256 as sha256_file
from factforge.generators.writers import formats as known_formats
from factforge.sparql import __version__
from factforge.sparql.messages import shown
from factforge.sparql.store import Store, default_cache_root

from .jobs import Claim, JobFiles
from .release_evidence import CLAIMS_FILE, EvidenceLines

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
SUFFIX = ".tar.gz"
PARTIAL = ".partial"  # a release being made: <root>/.<name>.<random>.partial/
JOBS = ".jobs"        # claims and status of releases being made (publish/jobs.py)
MANIFEST = "manifest.json"
README = "README.md"
FORMAT = "factforge-release/1"
DEFAULT_FORMATS = ("tsv", "jsonl", "json")
CLAIMS = "claims"  # a scenario's claims folder in a release (claims/build.py writes it)
CLAIMS_READ = ("jsonl", "tsv", "csv")  # the formats claims can be made from (evaluation/labelled.py reads them)
# 2000-01-01T00:00:00Z: a fixed member time (tar tools warn about time 0 as implausibly old)
MEMBER_MTIME = 946684800
_HEX64 = re.compile(r"[0-9a-f]{64}")


class ReleaseError(ValueError):
    """A release cannot be made or read; ``field`` names the input to blame (``specs[1].size``)."""

    def __init__(self, message: str, field: str | None = None, *, index: int | None = None):
        super().__init__(message)
        self.field = field
        self.index = index  # which spec, when one is to blame


class ReleaseExists(ReleaseError):
    """A release of that name exists (or is being made); releases are never replaced."""


def default_releases_dir() -> Path:
    """``$FACTFORGE_RELEASES``, else ``<cache root>/releases``: where the CLI and the server keep releases."""
    return Path(os.environ.get("FACTFORGE_RELEASES") or default_cache_root() / "releases")


def check_name(name) -> str:
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise ReleaseError(f"name: {shown(name)} is not a release name (1-64 letters, digits, '.', '_' or '-', "
                           "starting with a letter or digit)", "name")
    return name


def archive_path(releases_dir: str | os.PathLike, name: str) -> Path:
    return Path(releases_dir) / f"{check_name(name)}{SUFFIX}"


def parse_specs(specs, *, check: Callable[[ScenarioSpec], ScenarioSpec] | None = None) -> list[ScenarioSpec]:
    """Validated specs; an error names the spec's index and field (``specs[2].size``).

    ``check`` adds the caller's own rules (a known predicate, a server's size limit) as SpecErrors.
    """
    return [spec for spec, _claims in parse_release_specs(specs, check=check)]


def parse_release_specs(specs, *, check=None) -> list[tuple[ScenarioSpec, dict | None]]:
    """Each validated spec with its claims settings (``claims/options.py``), None when the spec
    asks for no claims: a spec's ``claims`` is an object of claims knobs (``{"lang": "en,de",
    "shares": "1/2,1/4,1/4", "negation": 0.2}``; ``{}`` or ``true`` for the defaults)."""
    if not isinstance(specs, (list, tuple)) or not specs:
        raise ReleaseError("specs: expected a non-empty list of scenario specs", "specs")
    parsed: list[tuple[ScenarioSpec, dict | None]] = []
    seen: dict[str, int] = {}
    for index, data in enumerate(specs):
        data, claims = _claims_of(data, index)
        try:
            spec = data if isinstance(data, ScenarioSpec) else ScenarioSpec.from_dict(data)
            if check is not None:
                spec = check(spec)
        except SpecError as error:
            raise ReleaseError(f"specs[{index}].{error.field}: {error.reason}", f"specs[{index}].{error.field}",
                               index=index) from None
        # The same spec twice would be the same scenario id, i.e. the same folder, twice.
        key = spec.canonical_json()
        if key in seen:
            raise ReleaseError(f"specs[{index}]: the same spec as specs[{seen[key]}] (change its seed)",
                               f"specs[{index}]", index=index)
        seen[key] = index
        parsed.append((spec, claims))
    return parsed


def _claims_of(data, index: int) -> tuple[object, dict | None]:
    """The spec without its ``claims``, and the claims settings it asks for."""
    if not isinstance(data, dict) or "claims" not in data:
        return data, None
    data = dict(data)
    knobs = data.pop("claims")
    if knobs is True:
        knobs = {}
    if not isinstance(knobs, dict):
        raise ReleaseError(f"specs[{index}].claims: expected an object of claims knobs "
                           f"({', '.join(CLAIM_CONSTRAINTS)}) or true, got {shown(knobs)}", f"specs[{index}].claims",
                           index=index)
    try:
        return data, claim_settings(knobs)
    except SpecError as error:
        raise ReleaseError(f"specs[{index}].claims.{error.field}: {error.reason}",
                           f"specs[{index}].claims.{error.field}", index=index) from None


def known_predicate(store: Store) -> Callable[[ScenarioSpec], ScenarioSpec]:
    """A spec check refusing predicates the KB lacks, before any scenario is generated."""
    from factforge.sparql import profiles

    def check(spec: ScenarioSpec) -> ScenarioSpec:
        try:
            profiles.predicate_profile(store, spec.predicate)
        except profiles.UnknownPredicate as error:
            raise SpecError("predicate", str(error)) from None
        return spec

    return check


def _check_formats(names: Iterable[str]) -> list[str]:
    names = list(names)
    allowed = known_formats()
    unknown = [n for n in names if n not in allowed]
    if unknown or not names:
        raise ReleaseError(f"formats: {unknown[0] if unknown else names!r} is not one of {', '.join(allowed)}",
                           "formats")
    return names


# --- creating ----------------------------------------------------------------------------------------
def create_release(store: Store, name: str, specs, releases_dir: str | os.PathLike, *,
                   formats: Iterable[str] = DEFAULT_FORMATS, progress: bool = False,
                   on_scenario: Callable[[int, int], None] | None = None, spec_check=None,
                   claim: Claim | None = None, on_claims: Callable[[str, dict], None] | None = None) -> dict:
    """Generate every spec's scenario and freeze them as ``<releases_dir>/<name>.tar.gz``; its manifest.

    ``on_scenario(done, total)`` is called after each scenario (a server's status page uses it);
    ``on_claims(scenario_id, claims_manifest)`` after each claims set (the command line prints them).
    ``claim`` is the name's claim when the caller holds it already (and releases it itself).
    """
    root = Path(releases_dir)
    target = archive_path(root, name)
    names = _check_formats(formats)
    if target.exists():
        raise ReleaseExists(f"name: a release {name!r} exists already ({target}); releases are never replaced", "name")
    parsed = parse_release_specs(specs, check=spec_check or known_predicate(store))
    if any(claims is not None for _spec, claims in parsed) and not set(names) & set(CLAIMS_READ):
        raise ReleaseError(f"formats: claims are made from the test facts in {' or '.join(CLAIMS_READ)}; "
                           f"add one to {', '.join(names)}", "formats")
    root.mkdir(parents=True, exist_ok=True)
    own_claim = claim is None
    if own_claim:
        claim = claim_name(root, name)
    staging, published = None, False
    try:
        remove_abandoned(root, name)
        staging = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=PARTIAL, dir=root))
        top = staging / name
        top.mkdir()
        scenarios = _write_scenarios(store, parsed, top, names, progress=progress, on_scenario=on_scenario,
                                     on_claims=on_claims)
        manifest = _write_release_files(top, name, store.fingerprint(), names, scenarios)
        packed = staging / f"{name}{SUFFIX}"
        _pack(top, packed, progress=progress)
        _publish(packed, target, name)
        published = True
        return manifest
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        if own_claim and published:  # the archive answers for the name now: its lock file would only pile up
            JobFiles(root / JOBS).remove(name, claim)
        elif own_claim:
            claim.release()


def claim_name(root: str | os.PathLike, name: str) -> Claim:
    """The right to make release ``name``, or ReleaseExists while another maker holds it."""
    Path(root).mkdir(parents=True, exist_ok=True)
    claim = JobFiles(Path(root) / JOBS).claim(name)
    if claim is None:
        raise ReleaseExists(f"name: a release {name!r} is being made now", "name")
    return claim


def remove_abandoned(root: str | os.PathLike, name: str | None = None) -> list[str]:
    """Remove the staging folders of releases whose maker was killed (nobody holds their name now).

    A crash is cleaned up by ``create_release`` itself; a SIGKILL or a power cut is not, and leaves
    a hidden ``.<name>.*.partial`` folder. The names whose folders went.
    """
    root = Path(root)
    gone = []
    jobs = JobFiles(root / JOBS) if root.is_dir() else None
    for folder in sorted(root.glob(f".*{PARTIAL}")) if jobs else []:
        owner = folder.name[1:-len(PARTIAL)].rpartition(".")[0]
        if not NAME_RE.fullmatch(owner) or name is not None and owner != name or not folder.is_dir():
            continue
        if name is None:  # our caller does not hold this name's claim: nobody may, to remove it
            claim = jobs.claim(owner)
            if claim is None:
                continue
            try:
                shutil.rmtree(folder, ignore_errors=True)
            finally:
                claim.release()
        else:
            shutil.rmtree(folder, ignore_errors=True)
        gone.append(owner)
    return gone


def _write_scenarios(store: Store, specs: list[tuple[ScenarioSpec, dict | None]], top: Path, names: list[str], *,
                     progress: bool, on_scenario, on_claims=None) -> list[dict]:
    """Each spec's scenario folder under ``top``; their entries for the release manifest."""
    from factforge.generators.scenario import generate

    from .scenario_files import write_scenario

    out = []
    with _bar(progress, len(specs), f"release {top.name}", "scenario") as bar:
        for index, (spec, claims) in enumerate(specs):
            bar.set_postfix_str(spec.predicate.rsplit("/", 1)[-1], refresh=False)
            try:
                scenario = generate(store, spec, progress=False)
            except SpecError as error:
                raise ReleaseError(f"specs[{index}].{error.field}: {error.reason}", f"specs[{index}].{error.field}",
                                   index=index) from None
            except ValueError as error:  # NotEnoughFacts and the like: say which spec
                raise ReleaseError(f"specs[{index}]: {error}", f"specs[{index}]", index=index) from None
            manifest = write_scenario(scenario, top / scenario.id, names, reference_from=store, store=store)
            out.append({"id": scenario.id, "predicate": spec.predicate, "seed": spec.seed,
                        "spec": spec.to_dict(), "counts": manifest["counts"]})
            if claims is not None:
                made = _write_claims(store, spec, claims, top / scenario.id, index)
                out[-1]["claims"] = claims_entry(claims, made)
                if on_claims is not None:
                    on_claims(scenario.id, made)
            bar.update()
            if on_scenario is not None:
                on_scenario(index + 1, len(specs))
    return out


def _write_claims(store: Store, spec: ScenarioSpec, settings: dict, folder: Path, index: int) -> dict:
    """The scenario's claims in ``folder/claims/``: claims.jsonl, answers.json, the R their evidence
    lines point into and their manifest, which is returned."""
    from factforge.claims.build import make_claims
    from factforge.claims.errors import ClaimsError
    from factforge.claims.options import claim_options
    from factforge.evaluation.labelled import read_scenario

    # The scenario's id stands for its folder: where the release was built is not part of it.
    source = replace(read_scenario(folder), folder=Path(folder.name))
    try:
        made = make_claims(store, source, claim_options(settings, seed=spec.seed, leakage=spec.leakage),
                           folder / CLAIMS)
    except ClaimsError as error:  # shares that cannot be met say how many claims can be made
        raise ReleaseError(f"specs[{index}].claims: {str(error).removeprefix('--')}", f"specs[{index}].claims",
                           index=index) from None
    return made


def claims_entry(settings: dict, made: dict) -> dict:
    """What a release manifest records of a scenario's claims (``verify`` compares it with theirs):
    the audit only as its verdict and reasons, the whole report being in the claims' manifest."""
    return {"settings": settings, "languages": made["languages"], "shares": made["shares"],
            "counts": {"per_language": made["claims"]["per_language"], "total": made["claims"]["total"]},
            "labels": made["claims"]["labels"], "kinds": made["claims"]["kinds"],
            "audit": {"flagged": made["audit"]["flagged"], "reasons": made["audit"]["reasons"]},
            "seed": made["seed"], "files": {name: made["files"][name] for name in sorted(made["files"])}}


def _bar(enabled: bool, total: int, desc: str, unit: str):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, disable=not enabled, leave=False)


def _write_release_files(top: Path, name: str, fingerprint: str, formats: list[str], scenarios: list[dict]) -> dict:
    manifest = {"release": name, "format": FORMAT, "software": {"name": "factforge", "version": __version__},
                "kb_fingerprint": fingerprint, "formats": formats, "scenarios": scenarios}
    (top / README).write_text(_readme(manifest), encoding="utf-8")
    files = sorted(p for p in top.rglob("*") if p.is_file())
    manifest["files"] = {p.relative_to(top).as_posix(): sha256_file(p) for p in files}
    (top / MANIFEST).write_bytes(_json_bytes(manifest))
    return manifest


def _json_bytes(data) -> bytes:
    return (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def _readme(manifest: dict) -> str:
    name = manifest["release"]
    rows = []
    for item in manifest["scenarios"]:
        test, train = item["counts"]["test"], item["counts"]["train"]
        spec = item["spec"]
        false = spec["factbench"] and "factbench " + ",".join(spec["factbench"]) or \
            f"transparency {spec['transparency']:g}, {spec['ambiguous']}"
        rows.append(f"| `{item['id']}` | `{item['predicate']}` | {item['seed']} | {test['true']} / {test['false']} | "
                    f"{train['true']} / {train['false']} | {spec['popularity']}, {false}, leakage {spec['leakage']} |")
    return f"""# factforge release `{name}`

A frozen set of labelled fact-checking scenarios made by factforge {manifest['software']['version']} from the
KB with fingerprint `{manifest['kb_fingerprint']}`. Each scenario folder holds the test facts (and the
training facts, when asked for) in the formats {', '.join(manifest['formats'])}; `answers.json` (how each
false fact was made: never in the data files); `reference.nt`, the reference KB R (the KB without the
test facts) as N-Triples; and the scenario's own `manifest.json` (spec, seed, counts).

{_claims_readme(manifest)}`manifest.json` in this folder lists the specs and seeds, the scenario ids and the sha256 of every
file here except itself. The same KB, specs and software version give the same archive, byte for byte.

## Verify

```sh
factforge release verify {name}{SUFFIX}
```

or, without factforge, inside the unpacked folder:

```sh
python3 -c 'import json; [print(h + "  " + f) for f, h in json.load(open("manifest.json"))["files"].items()]' | sha256sum -c
```

## Scenarios

| id | predicate | seed | test true / false | train true / false | knobs |
|---|---|---:|---:|---:|---|
{chr(10).join(rows)}
"""


def _claims_readme(manifest: dict) -> str:
    with_claims = [item for item in manifest["scenarios"] if item.get("claims")]
    if not with_claims:
        return ""
    rows = "\n".join(f"| `{item['id']}` | {', '.join(item['claims']['languages'])} | "
                     f"{', '.join(item['claims']['shares']['asked'])} | "
                     f"{', '.join(f'{k} {v}' for k, v in item['claims']['labels'].items())} |" for item in with_claims)
    return f"""Scenarios with claims also hold `claims/`: `claims.jsonl` (the test facts as FEVER claims, one
record per claim and language), `answers.json` (how each claim was made: never in the claims),
`reference.sorted.nt` (the claims' R: each evidence item's line is its 0-based line there) and the
claims' `manifest.json` (languages, shares, seed, KB fingerprint).

| scenario | languages | shares asked (S, R, NEI) | claims per language |
|---|---|---|---|
{rows}

"""


def _pack(top: Path, out: Path, *, progress: bool = False) -> None:
    """A tar.gz of ``top`` that depends only on the files' names and bytes."""
    paths = [top, top / MANIFEST, top / README]
    rest = sorted((p for p in top.rglob("*") if p not in paths), key=lambda p: p.relative_to(top).as_posix())
    paths += rest
    with open(out, "wb") as raw, _bar(progress, len(paths), "packing", "file") as bar, \
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in paths:
            info = _member(path, path.relative_to(top.parent).as_posix())
            if info.isdir():
                tar.addfile(info)
            else:
                with open(path, "rb") as handle:
                    tar.addfile(info, handle)
            bar.update()


def _member(path: Path, arcname: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(arcname)
    info.mtime = MEMBER_MTIME
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    if path.is_dir():
        info.type, info.mode = tarfile.DIRTYPE, 0o755
    else:
        info.type, info.mode, info.size = tarfile.REGTYPE, 0o644, path.stat().st_size
    return info


def _publish(packed: Path, target: Path, name: str) -> None:
    # A hard link, unlike os.replace, refuses to overwrite a release another process published meanwhile.
    try:
        os.link(packed, target)
    except FileExistsError:
        raise ReleaseExists(f"name: a release {name!r} exists already ({target}); releases are never replaced",
                            "name") from None
    except OSError:  # a file system without hard links: the check before creation has to do
        if target.exists():
            raise ReleaseExists(f"name: a release {name!r} exists already ({target})", "name") from None
        os.replace(packed, target)


# --- reading -------------------------------------------------------------------------------------------
_CACHE: dict[tuple, dict] = {}  # (path, inode, size, mtime) → {"sha256": ..., "manifest": ...}
_CACHE_LOCK = threading.Lock()


def _cached(path: Path, what: str, compute: Callable[[Path], object]):
    """``compute(path)``, remembered while the file is unchanged (a list or an ETag re-reads nothing)."""
    st = path.stat()
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    with _CACHE_LOCK:
        entry = _CACHE.setdefault(key, {})
        if what in entry:
            return entry[what]
    value = compute(path)
    with _CACHE_LOCK:
        entry[what] = value
    return value


def archive_sha256(path: str | os.PathLike) -> str:
    return _cached(Path(path), "sha256", sha256_file)


def archive_manifest(path: str | os.PathLike) -> dict:
    return _cached(Path(path), "manifest", read_manifest)


def read_manifest(path: str | os.PathLike) -> dict:
    """The release manifest inside an archive (an early member, so little is decompressed)."""
    path = Path(path)
    name = path.name[:-len(SUFFIX)] if path.name.endswith(SUFFIX) else path.stem
    wanted = f"{name}/{MANIFEST}"
    try:
        with tarfile.open(path, mode="r|gz") as tar:
            for member in tar:
                if member.name == wanted and member.isfile():
                    return json.loads(tar.extractfile(member).read().decode("utf-8"))
    except (tarfile.TarError, EOFError, zlib.error, OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ReleaseError(f"{path}: not a readable release archive ({_reason(error)})") from None
    raise ReleaseError(f"{path}: no {wanted} in the archive")


def list_releases(releases_dir: str | os.PathLike) -> list[dict]:
    """Every release in the folder, by name: created (UTC), KB fingerprint, scenario ids, size, sha256."""
    root = Path(releases_dir)
    out = []
    for path in sorted(root.glob(f"*{SUFFIX}")) if root.is_dir() else []:
        name = path.name[:-len(SUFFIX)]
        if not NAME_RE.fullmatch(name) or not path.is_file():
            continue
        try:
            out.append(release_info(path))
        except (ReleaseError, OSError) as error:  # a damaged archive is listed as such, not hidden
            out.append({"name": name, "path": str(path), "error": str(error)})
    return out


def release_info(path: Path) -> dict:
    manifest = archive_manifest(path)
    st = path.stat()
    return {"name": manifest.get("release"), "path": str(path),
            "created": datetime.fromtimestamp(st.st_mtime, timezone.utc).isoformat(timespec="seconds"),
            "kb_fingerprint": manifest.get("kb_fingerprint"), "software": manifest.get("software"),
            "scenarios": [s.get("id") for s in manifest.get("scenarios", [])],
            "size": st.st_size, "sha256": archive_sha256(path)}


# --- verifying ------------------------------------------------------------------------------------------
def verify_release(path: str | os.PathLike) -> list[str]:
    """Everything wrong with a release archive, one sentence each; an empty list when all is well.

    Reads the archive once, as a stream: each member's sha256 is compared with the manifest, and
    members the manifest does not list, missing files and links are all reported; every claim's
    evidence lines are resolved in the claims' R (publish/release_evidence.py).
    """
    path = Path(path)
    if not path.is_file():
        return [f"{path}: no such file"]
    evidence = EvidenceLines()
    try:
        members, manifest_bytes, problems = _scan(path, evidence)
    except (tarfile.TarError, EOFError, zlib.error, OSError) as error:
        return [f"{path}: not a complete gzip-compressed tar archive ({_reason(error)})"]
    tops = {name.split("/", 1)[0] for name in members} | {name.split("/", 1)[0] for name in manifest_bytes}
    if len(tops) != 1:
        return problems + [f"{path}: expected one top folder, found {', '.join(sorted(tops)) or 'none'}"]
    top = tops.pop()
    manifest_raw = manifest_bytes.get(f"{top}/{MANIFEST}")
    if manifest_raw is None:
        return problems + [f"{top}/{MANIFEST}: missing"]
    manifest, manifest_problems = _parse_manifest(manifest_raw, top)
    problems += manifest_problems
    if manifest is None:
        return problems
    return (problems + _compare(top, manifest, members) + _check_claims(top, manifest, manifest_bytes)
            + evidence.problems())


def _scan(path: Path, evidence: EvidenceLines) -> tuple[dict[str, str], dict[str, bytes], list[str]]:
    """sha256 of every regular member, the manifest's bytes, and problems with member types or names;
    claims and their R go by ``evidence`` on the way."""
    members: dict[str, str] = {}
    manifests: dict[str, bytes] = {}
    problems: list[str] = []
    # tarfile stops at the last whole member of a cut gzip stream without a word: the stream is
    # read to its end here, where gzip checks that it is complete.
    with gzip.open(path, "rb") as stream, tarfile.open(fileobj=stream, mode="r|") as tar:
        for member in tar:
            name = member.name
            if name.startswith("/") or ".." in name.split("/"):
                problems.append(f"{name}: a path outside the release folder")
                continue
            if member.isdir():
                continue
            if not member.isfile():
                problems.append(f"{name}: not a regular file (links and devices have no place in a release)")
                continue
            if name in members or name in manifests:
                problems.append(f"{name}: in the archive more than once")
            handle = tar.extractfile(member)
            if name.count("/") == 1 and name.endswith(f"/{MANIFEST}"):
                manifests[name] = handle.read()
            elif name.count("/") == 3 and name.endswith(f"/{CLAIMS}/{MANIFEST}"):  # read by _check_claims too
                manifests[name] = handle.read()
                members[name] = hashlib.sha256(manifests[name]).hexdigest()
            elif name.count("/") == 3 and name.endswith(f"/{CLAIMS}/{CLAIMS_FILE}"):
                data = handle.read()
                members[name] = hashlib.sha256(data).hexdigest()
                evidence.claims(name.rsplit("/", 1)[0], data)
            elif name.count("/") == 3 and name.endswith(f"/{CLAIMS}/{DUMP}"):
                members[name] = evidence.reference(name.rsplit("/", 1)[0], handle)
            else:
                members[name] = _sha256_stream(handle)
        while stream.read(1 << 20):
            pass
    return members, manifests, problems


def _sha256_stream(handle: io.BufferedIOBase) -> str:
    digest = hashlib.sha256()
    for block in iter(lambda: handle.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


def _parse_manifest(raw: bytes, top: str) -> tuple[dict | None, list[str]]:
    where = f"{top}/{MANIFEST}"
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return None, [f"{where}: not valid JSON ({error})"]
    if not isinstance(manifest, dict):
        return None, [f"{where}: expected a JSON object"]
    problems = []
    files = manifest.get("files")
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) and _HEX64.fullmatch(v)
                                              for k, v in files.items()):
        return None, [f"{where}: 'files' must map each file to its sha256 (64 hex digits)"]
    if manifest.get("release") != top:
        problems.append(f"{where}: names the release {manifest.get('release')!r}, but its folder is {top!r}")
    for key in ("kb_fingerprint", "software", "scenarios"):
        if key not in manifest:
            problems.append(f"{where}: '{key}' is missing")
    scenarios = manifest.get("scenarios")
    if not isinstance(scenarios, list) or not all(isinstance(s, dict) and isinstance(s.get("id"), str)
                                                  for s in scenarios):
        problems.append(f"{where}: 'scenarios' must be a list of objects with an 'id'")
    else:
        for item in scenarios:
            if f"{item['id']}/{MANIFEST}" not in files:
                problems.append(f"{where}: scenario {item['id']} has no {item['id']}/{MANIFEST} listed")
    return manifest, problems


def _compare(top: str, manifest: dict, members: dict[str, str]) -> list[str]:
    problems = []
    listed = {f"{top}/{name}": digest for name, digest in manifest["files"].items()}
    for name, digest in sorted(listed.items()):
        if name not in members:
            problems.append(f"{name}: listed in the manifest but not in the archive")
        elif members[name] != digest:
            problems.append(f"{name}: sha256 {members[name]} differs from the manifest's {digest}")
    for name in sorted(set(members) - set(listed)):
        problems.append(f"{name}: in the archive but not listed in the manifest")
    return problems


# Keys release manifests record for claims since a later version: an archive made before them still
# verifies (its claims files are checked all the same by their sha256 and evidence lines).
ADDED_LATER = ("counts", "audit")


def _check_claims(top: str, manifest: dict, manifests: dict[str, bytes]) -> list[str]:
    """Each scenario's claims as the release manifest records them (languages, shares, seed, label
    counts, files) against the claims' own manifest in the archive."""
    problems = []
    for item in manifest.get("scenarios") if isinstance(manifest.get("scenarios"), list) else []:
        recorded = item.get("claims") if isinstance(item, dict) else None
        if recorded is None:
            continue
        where = f"{top}/{item.get('id')}/{CLAIMS}/{MANIFEST}"
        if not isinstance(recorded, dict) or not isinstance(recorded.get("files"), dict):
            problems.append(f"{top}/{MANIFEST}: the claims of scenario {item.get('id')} are not recorded as an "
                            f"object with their files")
            continue
        try:
            own = json.loads(manifests[where].decode("utf-8"))
        except KeyError:
            problems.append(f"{where}: missing, though {top}/{MANIFEST} records claims for the scenario")
            continue
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            problems.append(f"{where}: not valid JSON ({error})")
            continue
        try:
            expected = claims_entry(recorded.get("settings"), own)
        except (KeyError, TypeError, AttributeError):
            problems.append(f"{where}: not a claims manifest (languages, shares, claims, seed, files)")
            continue
        for key in ("languages", "shares", "counts", "seed", "labels", "kinds", "audit", "files"):
            if key in ADDED_LATER and key not in recorded:
                continue
            if recorded.get(key) != expected.get(key):
                problems.append(f"{where}: its {key} {json.dumps(expected.get(key))[:200]} differ from those "
                                f"{top}/{MANIFEST} records, {json.dumps(recorded.get(key))[:200]}")
        for name in (CLAIMS_FILE, "answers.json", DUMP):
            listed = manifest["files"].get(f"{item.get('id')}/{CLAIMS}/{name}")
            if listed is None or listed != recorded["files"].get(name):
                problems.append(f"{top}/{item.get('id')}/{CLAIMS}/{name}: not listed in {top}/{MANIFEST} with the "
                                f"sha256 its claims manifest gives")
    return problems


def _reason(error: BaseException) -> str:
    text = str(error)
    if isinstance(error, EOFError) or "unexpected end" in text or "end-of-stream" in text:
        return "the file ends early: truncated?"
    if "gzip" in text.lower() or isinstance(error, zlib.error):
        return f"not gzip data: {text}" if text else "not gzip data"
    return text or type(error).__name__
