"""Secret detection, measured: the labelled sets of fake secrets in tests/data/secrets/, and
false-positive lines and speed on real code, for each detector.

    python bench/secret_detection.py [--today REV] [--list-misses] [--corpus DIR ...]
                                     [--list-false-positives FILE] [--no-false-positives]
    python bench/secret_detection.py --today REV --speed N [--corpus DIR ...]

The sets are data (``tests/data/secrets/<set>.toml``; ``tests/test_secret_cases.py`` runs
them in the suite): each case a small file as people write them, the exact secret substrings
that must be gone from its redacted text, and ``clean.toml``'s texts that must come back
unchanged. A secret counts as found when its value no longer appears in the redacted text
(detect-secrets, when installed: when it reports the value's line).

Detectors: ragloom now; ragloom at git revision ``--today`` (its ``src/ragloom/security``
package, loaded from git under another name: the figures before a change); detect-secrets.

False positives: every line a detector changes in the standard library's .py files, in 5
popular packages and in any ``--corpus`` folder (an application: its code, templates and
config), counted per 100,000 lines, with each redactor's speed in MB/s.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import io
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "secrets"
PACKAGES = ("requests", "numpy", "sqlalchemy", "pydantic", "rich")
#: What an application repository holds besides code: templates, config, scripts, docs.
APP_SUFFIXES = {".py", ".php", ".rb", ".js", ".ts", ".go", ".java", ".rs", ".html", ".twig",
                ".erb", ".yml", ".yaml", ".toml", ".json", ".ini", ".cfg", ".conf", ".xml",
                ".properties", ".sh", ".md", ".rst", ".txt", ".sql", ".example", ".dist"}
MAX_FILE_BYTES = 2_000_000

#: (file name, text) -> the 1-based numbers of the lines a detector flags
Detector = Callable[[str, str], set[int]]
Redactor = Callable[[str], str]


def load_set(name: str) -> list[dict]:
    with open(DATA / f"{name}.toml", "rb") as handle:
        return tomllib.load(handle)["case"]


def set_names() -> list[str]:
    first = ["main", "holdout", "unseen", "second"]
    rest = sorted(p.stem for p in DATA.glob("*.toml") if p.stem not in first and p.stem != "clean")
    return first + rest


def ragloom_at(revision: str) -> Redactor | None:
    """``redact_secrets`` of ``src/ragloom/security`` at a git revision, imported as
    ``ragloom_security_<rev>`` (its own imports renamed to match)."""
    try:
        archive = subprocess.run(["git", "archive", revision, "src/ragloom/security"],
                                 capture_output=True, check=True, cwd=ROOT).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    name = "ragloom_security_" + "".join(c if c.isalnum() else "_" for c in revision)
    folder = Path(tempfile.mkdtemp()) / name
    folder.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.endswith(".py"):
                source = tar.extractfile(member).read().decode()  # type: ignore[union-attr]
                (folder / Path(member.name).name).write_text(
                    source.replace("ragloom.security", name), encoding="utf-8")
    sys.path.insert(0, str(folder.parent))
    module = importlib.import_module(name)
    return lambda text: module.redact_secrets(text).text


def redaction_detector(redact: Redactor) -> Detector:
    """A redactor as a detector: the lines whose text it changed (never their number)."""
    def flags(name: str, text: str) -> set[int]:
        after = redact(text)
        if after.count("\n") != text.count("\n"):
            raise AssertionError(f"{name}: redaction changed the number of lines")
        return {n for n, (old, new) in enumerate(zip(text.splitlines(), after.splitlines()), 1)
                if old != new}
    return flags


def detect_secrets_detector() -> Detector | None:
    """detect-secrets with every plugin and its default filters, on a file named like the case."""
    if importlib.util.find_spec("detect_secrets") is None:
        return None
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    def flags(name: str, text: str) -> set[int]:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / Path(name).name
            path.write_text(text, encoding="utf-8")
            collection = SecretsCollection()
            with default_settings():
                collection.scan_file(str(path))
            return {secret.line_number for _, secret in collection}
    return flags


def detection(title: str, cases: list[dict], detectors: dict[str, Detector],
              redactors: dict[str, Redactor], list_misses: bool) -> None:
    """Per family: how many of the set's secrets each detector finds."""
    found: Counter[tuple[str, str]] = Counter()
    total: Counter[str] = Counter()
    misses: list[str] = []
    for case in cases:
        text = case["text"]
        flagged = {name: d(case["file"], text) for name, d in detectors.items() if name not in redactors}
        redacted = {name: r(text) for name, r in redactors.items()}
        for secret in case["secrets"]:
            total[case["family"]] += 1
            for name in detectors:
                if name in redacted:
                    hit = secret not in redacted[name]
                else:
                    hit = text[:text.index(secret)].count("\n") + 1 in flagged[name]
                found[name, case["family"]] += hit
                if not hit and name == "ragloom" and list_misses:
                    where = case.get("placement") or case["file"]
                    misses.append(f"  {case['format']} ({where}): {secret[:60]}")
    names = list(detectors)
    everything = sum(total.values())
    print(f"## {title}: {everything} secrets, {len({c['format'] for c in cases})} formats, "
          f"{len({c.get('placement') or c['file'] for c in cases})} placements\n")
    print("| family | secrets | " + " | ".join(names) + " |\n| --- | ---: |" + " ---: |" * len(names))
    for family in sorted(total):
        print(f"| {family} | {total[family]} | "
              + " | ".join(str(found[n, family]) for n in names) + " |")
    sums = [sum(found[n, f] for f in total) for n in names]
    print(f"| **all** | {everything} | "
          + " | ".join(f"{s} ({s / everything:.1%})" for s in sums) + " |\n")
    if misses:
        print("ragloom misses:\n" + "\n".join(misses) + "\n")


def clean_cases(redactors: dict[str, Redactor]) -> None:
    """Texts that hold no secret (placeholders, fixtures, look-alikes): which each redactor changes."""
    cases = load_set("clean")
    print(f"## clean: {len(cases)} texts that must come back unchanged\n")
    for name, redact in redactors.items():
        changed = [c["why"] for c in cases if redact(c["text"]) != c["text"]]
        print(f"- {name}: {len(changed)} changed" + "".join(f"\n    - {w}" for w in changed))
    print()


def corpus_files(roots: list[Path], suffixes: set[str] | None) -> Iterator[tuple[Path, str]]:
    for root in roots:
        for path in sorted(root.rglob("*")):
            if (not path.is_file() or (suffixes is not None and path.suffix not in suffixes)
                    or any(part in {".git", "node_modules", "vendor"} for part in path.parts)
                    or path.stat().st_size > MAX_FILE_BYTES):
                continue
            try:
                yield path, path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue


def corpora(extra: list[str]) -> dict[str, list[tuple[Path, str]]]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    purelib = Path(sysconfig.get_paths()["purelib"])
    found = {"stdlib": [(p, t) for p, t in corpus_files([stdlib], {".py"})
                        if "site-packages" not in p.parts],
             "packages (" + ", ".join(PACKAGES) + ")":
                 list(corpus_files([purelib / p for p in PACKAGES], {".py"}))}
    for folder in extra:
        found[Path(folder).name if Path(folder).name != "repo" else Path(folder).parent.name] = \
            list(corpus_files([Path(folder)], APP_SUFFIXES))
    return found


def false_positives(redactors: dict[str, Redactor], extra: list[str], listing: str | None) -> None:
    """Lines each redactor changes in real code, per 100k lines, and its speed."""
    lines: list[str] = []
    print("## false positives (lines changed) and speed\n")
    print("| corpus | files | lines | MB | " + " | ".join(
        f"{n} lines | {n} per 100k | {n} MB/s" for n in redactors) + " |")
    print("| --- | ---: | ---: | ---: |" + " ---: | ---: | ---: |" * len(redactors))
    for label, files in corpora(extra).items():
        count = sum(t.count("\n") + 1 for _, t in files)
        megabytes = sum(len(t.encode()) for _, t in files) / 1e6
        cells = []
        for name, redact in redactors.items():
            detector = redaction_detector(redact)
            started = time.perf_counter()
            flagged = 0
            for path, text in files:
                hits = detector(path.name, text)
                flagged += len(hits)
                if name == "ragloom" and listing and hits:
                    source = text.splitlines()
                    lines += [f"{path}:{n}: {source[n - 1].strip()[:160]}" for n in sorted(hits)]
            rate = megabytes / (time.perf_counter() - started)
            cells.append(f"{flagged} | {flagged * 1e5 / max(count, 1):.1f} | {rate:.2f}")
        print(f"| {label} | {len(files)} | {count:,} | {megabytes:.1f} | " + " | ".join(cells) + " |")
    if listing:
        Path(listing).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"\nragloom's flagged lines written to {listing}")


def speed(redactors: dict[str, Redactor], extra: list[str], step: int, rounds: int = 3) -> None:
    """Median MB/s of ``rounds`` alternating runs of each redactor over every ``step``-th
    file of each corpus (alternating, so a change of the machine's load hits all alike)."""
    print(f"## speed: median MB/s of {rounds} alternating runs, every {step}th file\n")
    print("| corpus | MB | " + " | ".join(redactors) + " |\n| --- | ---: |" + " ---: |" * len(redactors))
    for label, files in corpora(extra).items():
        texts = [text for _, text in files[::step]]
        megabytes = sum(len(text.encode()) for text in texts) / 1e6
        rates: dict[str, list[float]] = {name: [] for name in redactors}
        for _ in range(rounds):
            for name, redact in redactors.items():
                started = time.perf_counter()
                for text in texts:
                    redact(text)
                rates[name].append(megabytes / (time.perf_counter() - started))
        print(f"| {label} | {megabytes:.1f} | " + " | ".join(
            f"{sorted(r)[len(r) // 2]:.2f}" for r in rates.values()) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--today", help="also measure src/ragloom/security at this git revision")
    parser.add_argument("--sets", nargs="*", help="only these sets (default: every data file)")
    parser.add_argument("--list-misses", action="store_true", help="print the secrets ragloom misses")
    parser.add_argument("--corpus", action="append", default=[], help="an application folder to scan")
    parser.add_argument("--list-false-positives", help="write ragloom's flagged real lines here")
    parser.add_argument("--no-false-positives", action="store_true", help="only the sets")
    parser.add_argument("--speed", type=int, metavar="N", help="only the speed, on every N-th file")
    args = parser.parse_args()
    from ragloom.security import redact_secrets

    redactors: dict[str, Redactor] = {}
    if args.today:
        today = ragloom_at(args.today)
        if today is None:
            sys.exit(f"revision {args.today} has no src/ragloom/security package")
        redactors[f"ragloom@{args.today}"] = today
    redactors["ragloom"] = lambda text: redact_secrets(text).text
    detectors: dict[str, Detector] = {name: redaction_detector(r) for name, r in redactors.items()}
    other = detect_secrets_detector()
    if other is not None:
        detectors["detect-secrets"] = other
    if args.speed:
        return speed(redactors, args.corpus, args.speed)
    for name in args.sets or set_names():
        cases = load_set(name)
        detection(name, cases, detectors, redactors, args.list_misses)
    clean_cases(redactors)
    if not args.no_false_positives:
        false_positives(redactors, args.corpus, args.list_false_positives)


if __name__ == "__main__":
    main()
