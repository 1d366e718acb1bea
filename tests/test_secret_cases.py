"""The labelled secret-detection sets (tests/data/secrets/*.toml, also measured by
bench/secret_detection.py): every listed secret is gone from its case's redacted text, the
line count is kept, and every clean text comes back unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from ragloom.security import redact_secrets

DATA = Path(__file__).parent / "data" / "secrets"
SETS = sorted(path.stem for path in DATA.glob("*.toml") if path.stem != "clean")


def _cases(name: str) -> list[dict]:
    with open(DATA / f"{name}.toml", "rb") as handle:
        return tomllib.load(handle)["case"]


#: Secrets the detector is known to miss, each with the reason (kept visible, never silent).
KNOWN_MISSES = {
    ("third", "high entropy: XML attribute"): "the line names an id (APP_ID): ids are left alone",
    ("third", "high entropy: INI under an ordinary key"): "the key is `id`: ids are left alone",
}

CASES = [pytest.param(name, case, id=f"{name}:{index}:{case.get('placement') or case['file']}")
         for name in SETS for index, case in enumerate(_cases(name))]


def test_every_set_is_loaded_with_its_secrets() -> None:
    assert {"main", "holdout", "unseen", "second", "third"} <= set(SETS)
    for name in SETS:
        for case in _cases(name):
            assert case["secrets"], f"{name}: a case without secrets: {case['file']}"
            for secret in case["secrets"]:
                assert secret in case["text"], f"{name}: {secret[:20]}... is not in {case['file']}"
    third = _cases("third")
    assert sum(len(case["secrets"]) for case in third) >= 100
    assert len({case["placement"] for case in third}) >= 60


@pytest.mark.parametrize(("name", "case"), CASES)
def test_every_listed_secret_is_redacted(name: str, case: dict) -> None:
    redacted = redact_secrets(case["text"]).text
    assert redacted.count("\n") == case["text"].count("\n")
    left = [secret for secret in case["secrets"] if secret in redacted]
    if (name, case.get("placement")) in KNOWN_MISSES:
        assert left, f"now found: remove {case['placement']!r} from KNOWN_MISSES"
        return
    assert not left, f"{case['file']}: {len(left)} secret(s) left in:\n{redacted}"


@pytest.mark.parametrize("case", _cases("clean"), ids=lambda case: case["why"])
def test_every_clean_text_is_left_alone(case: dict) -> None:
    assert redact_secrets(case["text"]).text == case["text"]
