"""Files that commonly hold credentials (skipped unless an include pattern names them),
their committed templates (indexed, values redacted), and paths that hold a token."""

from __future__ import annotations

import re

from ragloom.globs import matches_any
from ragloom.security import redact_secrets

#: Files that commonly hold credentials: skipped unless an include pattern names them.
SECRET_FILE_PATTERNS = (
    ".env", ".env.*", "*.env", "*.pem", "*.key", "*.p12", "*.pfx", "*.keystore", "*.jks",
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", ".netrc", ".pgpass", ".htpasswd",
    "credentials", "*credentials*.json", ".npmrc", ".pypirc",
    # data files only: ``secrets.rs`` or ``credentials.py`` is source code, indexed and redacted
    *(f"{stem}.{suffix}" for stem in ("secrets", "credentials")
      for suffix in ("json", "yaml", "yml", "toml", "ini", "env", "txt", "properties", "conf", "cfg", "xml")),
)


#: A name part marking a committed template of a secret file (``.env.example``,
#: ``example.env``, ``.env.local.dist``, ``.env.example.complete``; ``_is_template``): the
#: settings an application reads, documented, with placeholder values. Indexed (its values
#: go through secret redaction like any file).
TEMPLATE_MARKERS = frozenset({"example", "sample", "template", "tpl", "dist", "defaults"})


def is_secret_file(relative_path: str) -> bool:
    return matches_any(relative_path, SECRET_FILE_PATTERNS) and not _is_template(relative_path)


def _is_template(relative_path: str) -> bool:
    """Whether a secret-looking name is a committed template: its last part a marker
    (``key.pem.example``), ``example.env``; an env file (``.env.*``, ``*.env``) with a
    marker among its parts, whatever follows it (``.env.example.complete``, a full
    settings reference; ``.env.sample.docker``; ``prod.example.env``)."""
    parts = relative_path.rsplit("/", 1)[-1].lower().strip(".").split(".")
    if "env" in parts and any(p in TEMPLATE_MARKERS for p in parts):
        return True
    return len(parts) > 1 and parts[-1] in TEMPLATE_MARKERS or (
        len(parts) == 2 and parts[0] in TEMPLATE_MARKERS)  # example.env, not template.pem.key


#: Every token format ragloom knows holds a run of 16+ letters and digits mixing both: paths
#: without one (nearly all) skip the detector (200 us a path, 4 s a walk of 20,000 files).
_RUNS = re.compile(r"[A-Za-z0-9]{16,}")


def _mixed(run: str) -> bool:
    return not run.isalpha() and not run.isdigit()


def secret_in_name(relative_path: str) -> str | None:
    """The kinds of secret a path holds in its own text (a token pasted into a file or
    folder name would reach every result's path), or None."""
    if not any(_mixed(run) for run in _RUNS.findall(relative_path)):
        return None
    found = redact_secrets(relative_path)
    return ", ".join(sorted(found.kinds)) if found.count else None
