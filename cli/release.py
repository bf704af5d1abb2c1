"""``factforge release create | verify | list``: frozen releases from the command line."""
from __future__ import annotations

import json
from pathlib import Path

from factforge.publish import releases as lib

from .claims import claims_summary
from .options import CliError, copy_option, reading_store, store_options


def register(subparsers) -> None:
    release = subparsers.add_parser("release", help="frozen releases: create, verify, list")
    commands = release.add_subparsers(dest="release_command", required=True, metavar="ACTION")
    releases_help = "the releases folder (default: $FACTFORGE_RELEASES or <cache>/releases, as 'serve' uses)"

    create = commands.add_parser("create", help="freeze scenarios (one per spec) into NAME.tar.gz")
    create.add_argument("name", metavar="NAME", help="letters, digits, '.', '_', '-' (at most 64)")
    create.add_argument("--spec", dest="specs", action="append", required=True, metavar="FILE",
                        help="a JSON file holding one spec object or a list of them; may be repeated")
    store_options(create)
    copy_option(create, "needed for the pykeen format and for homogeneity > 0; R is written in full either way")
    create.add_argument("--releases", metavar="DIR", help=releases_help)
    create.add_argument("--format", dest="formats", default=",".join(lib.DEFAULT_FORMATS),
                        help=f"comma-separated data formats (default {','.join(lib.DEFAULT_FORMATS)})")
    create.set_defaults(func=cmd_create)

    verify = commands.add_parser("verify", help="check a release archive: manifest, every sha256, no extra file")
    verify.add_argument("archive", metavar="ARCHIVE")
    verify.set_defaults(func=cmd_verify)

    listing = commands.add_parser("list", help="the releases in the releases folder")
    listing.add_argument("--releases", metavar="DIR", help=releases_help)
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=cmd_list)


def _releases_dir(args) -> Path:
    return Path(args.releases) if args.releases else lib.default_releases_dir()


def read_spec_files(paths: list[str]) -> tuple[list[dict], list[str]]:
    """The specs of every file in order, and for each the place it came from (``FILE`` or ``FILE[2]``)."""
    specs, origins = [], []
    for path in paths:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as error:
            raise CliError(f"--spec: {error.strerror}: {path}") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise CliError(f"--spec {path}: not valid JSON ({error})") from None
        items = data if isinstance(data, list) else [data]
        specs += items
        origins += [path] if not isinstance(data, list) else [f"{path}[{i}]" for i in range(len(items))]
    return specs, origins


def cmd_create(args) -> int:
    specs, origins = read_spec_files(args.specs)
    formats = [n.strip() for n in args.formats.split(",") if n.strip()]
    root = _releases_dir(args)
    try:
        lib.check_name(args.name)
        store = reading_store(args)
        claims: dict[str, dict] = {}  # printed after the progress bars are gone
        manifest = lib.create_release(store, args.name, specs, root, formats=formats, progress=not args.quiet,
                                      on_claims=claims.__setitem__)
    except lib.ReleaseError as error:
        where = f"--spec {origins[error.index]}: " if error.index is not None and error.index < len(origins) else ""
        raise CliError(f"{where}{error}") from None
    path = lib.archive_path(root, args.name)
    print(f"release {args.name}: {len(manifest['scenarios'])} scenarios, {len(manifest['files'])} files, "
          f"KB {manifest['kb_fingerprint']}")
    for item in manifest["scenarios"]:
        test = item["counts"]["test"]
        print(f"  {item['id']}  {item['predicate']}  seed {item['seed']}  test {test['true']} true / {test['false']} false")
        if item["id"] in claims:
            print("    " + "\n    ".join(claims_summary(claims[item["id"]], f"{item['id']}/claims/")))
    print(f"{path}\nsha256 {lib.archive_sha256(path)}")
    return 0


def cmd_verify(args) -> int:
    problems = lib.verify_release(args.archive)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    manifest = lib.read_manifest(args.archive)
    claims = sum(1 for item in manifest["scenarios"] if item.get("claims"))
    resolved = f"; the evidence lines of {claims} claims set(s) resolve in their R" if claims else ""
    print(f"ok: {args.archive}: release {manifest['release']}, {len(manifest['scenarios'])} scenarios, "
          f"{len(manifest['files'])} files match their sha256{resolved}")
    return 0


def cmd_list(args) -> int:
    items = lib.list_releases(_releases_dir(args))
    if args.json:
        print(json.dumps(items, indent=2))
        return 0
    if not items:
        print(f"no releases in {_releases_dir(args)}")
        return 0
    print(f"{'name':<24} {'created (UTC)':<25} {'scenarios':>9} {'size':>10}  sha256")
    for item in items:
        if "error" in item:
            print(f"{item['name']:<24} damaged: {item['error']}")
            continue
        print(f"{item['name']:<24} {item['created']:<25} {len(item['scenarios']):>9} {item['size']:>10}  "
              f"{item['sha256'][:16]}")
    return 0

