"""Secret redaction, measured: detection of each key format, false positives on real text
(the standard library and the Markdown files installed here), and speed; the same for
Yelp's detect-secrets when it is installed (``pip install detect-secrets``).

    python bench/secret_redaction.py [--sample N] [--list-false-positives FILE]

detect-secrets is slow (about 0.1 MB/s here), so both tools are compared on every N-th real
file (``--sample``, default 10); ragloom is also run over all of them.
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from ragloom.security import redact_secrets

CONTEXTS = ('api_key = "{}"\n', "{}\n", "token: {}\n", '{{"secret": "{}"}}\n', "export TOKEN={}\n",
            "The CI key is {}, rotate it.\n")


def fake(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def fake_secrets(rng: random.Random) -> dict[str, list[str]]:
    """20 format-correct random values of each kind (never real keys)."""
    alnum, b64 = string.ascii_letters + string.digits, string.ascii_letters + string.digits + "_-"
    makers: dict[str, Callable[[], str]] = {
        "google-api-key": lambda: "AIza" + fake(rng, b64, 35),
        "openai-key": lambda: "sk-proj-" + fake(rng, b64, 48),
        "anthropic-key": lambda: "sk-ant-api03-" + fake(rng, b64, 93),
        "github-token": lambda: "ghp_" + fake(rng, alnum, 36),
        "github-fine-grained": lambda: "github_pat_" + fake(rng, alnum + "_", 82),
        "aws-access-key": lambda: "AKIA" + fake(rng, string.ascii_uppercase + string.digits, 16),
        "slack-token": lambda: "xoxb-" + fake(rng, string.digits, 12) + "-" + fake(rng, alnum, 24),
        "jwt": lambda: "eyJ" + fake(rng, b64, 30) + ".eyJ" + fake(rng, b64, 40) + "." + fake(rng, b64, 43),
        "random-password": lambda: fake(rng, alnum + "!#%&*+", 16),
    }
    return {kind: [make() for _ in range(20)] for kind, make in makers.items()}


def real_text() -> Iterator[tuple[Path, str]]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    markdown_roots = [Path(p) for p in {sysconfig.get_paths()["purelib"], "/usr/share/doc"}]
    files = [p for p in sorted(stdlib.rglob("*.py")) if "site-packages" not in p.parts]
    files += [p for root in markdown_roots if root.is_dir() for p in sorted(root.rglob("*.md"))]
    for path in files:
        try:
            yield path, path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue


def ragloom_flags(text: str) -> list[str]:
    """The lines redaction changes."""
    before, after = text.splitlines(), redact_secrets(text).text.splitlines()
    return [old for old, new in zip(before, after) if old != new]


def detect_secrets_flags() -> Callable[[str], list[str]] | None:
    """Lines detect-secrets reports when it scans the text as a file with its default
    plugins, entropy limits and filters (its per-line ``scan_line`` mode reports every word)."""
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def flags(text: str) -> list[str]:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "scanned.py"
            path.write_text(text, encoding="utf-8")
            collection = SecretsCollection()
            with default_settings():
                collection.scan_file(str(path))
            numbers = {secret.line_number for _, secret in collection}
        lines = text.splitlines()
        return [lines[n - 1] for n in sorted(numbers) if 0 < n <= len(lines)]
    return flags


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--list-false-positives", help="write every line ragloom redacts in real text here")
    parser.add_argument("--sample", type=int, default=10, help="compare the tools on every N-th file")
    args = parser.parse_args()
    tools: dict[str, Callable[[str], list[str]]] = {"ragloom": ragloom_flags}
    other = detect_secrets_flags()
    if other is not None:
        tools["detect-secrets"] = other
    else:
        print("detect-secrets not installed: only ragloom is measured", file=sys.stderr)
    secrets = fake_secrets(random.Random(0))
    print("detection (share of 20 values x 6 contexts found):")
    for kind, values in secrets.items():
        shares = []
        for flags in tools.values():
            found = sum(bool(flags(context.format(value))) for value in values for context in CONTEXTS)
            shares.append(f"{found / (len(values) * len(CONTEXTS)):.2f}")
        print(f"  {kind:20s} " + "  ".join(f"{name} {share}" for name, share in zip(tools, shares)))
    everything = list(real_text())
    runs = [("every file", everything, {"ragloom": ragloom_flags})]
    if len(tools) > 1:
        runs.append((f"every {args.sample}th file", everything[::args.sample], tools))
    for label, corpus, measured in runs:
        measure(label, corpus, measured, args.list_false_positives if label == "every file" else None)


def measure(label: str, corpus: list[tuple[Path, str]], tools: dict[str, Callable[[str], list[str]]],
            listing: str | None) -> None:
    megabytes = sum(len(text) for _, text in corpus) / 1e6
    print(f"false positives on {label}: {len(corpus)} files ({megabytes:.1f} MB: stdlib .py + "
          f"installed .md):")
    for name, flags in tools.items():
        started = time.perf_counter()
        flagged = [(path, line) for path, text in corpus for line in flags(text)]
        seconds = time.perf_counter() - started
        print(f"  {name:15s} {len(flagged):6d} lines flagged in {len({p for p, _ in flagged})} files; "
              f"{megabytes / seconds:.1f} MB/s")
        if name == "ragloom":
            kinds = Counter(kind for _, text in corpus for kind in redact_secrets(text).kinds.elements())
            print(f"  {'':15s} by kind: {dict(kinds)}")
            if listing:
                Path(listing).write_text(
                    "".join(f"{path}: {line.strip()[:200]}\n" for path, line in flagged), encoding="utf-8")


if __name__ == "__main__":
    main()
