"""Secret redaction: every well-known key format and random values assigned to secret
names are replaced, line numbers stay right, and ordinary code is left alone."""

from __future__ import annotations

import pytest

from ragloom.security import redact_secrets

# Format-correct fakes, built here so no file holds a whole token-shaped string.
FAKES = {
    "google-api-key": "AIza" + "SyD3" * 8 + "abc",
    "openai-key": "sk-proj-" + "Ab3dEf6hIj9kLm2n" * 3,
    "anthropic-key": "sk-ant-api03-" + "Xy7_Zw8-" * 12,
    "github-token": "ghp_" + "a1B2c3D4e5F6" * 3,
    "gitlab-token": "glpat-" + "Q1w2E3r4T5y6U7i8O9p0",
    "aws-access-key": "AKIA" + "IOSFODNN7EXAMPLE",
    "slack-token": "xoxb-" + "123456789012-abcdefABCDEF",
    "stripe-key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "jwt": "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0."
           + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("kind", sorted(FAKES))
def test_every_key_format_is_redacted(kind: str) -> None:
    text = f"line one\nconfig value: {FAKES[kind]} (see docs)\nline three\n"
    redaction = redact_secrets(text)
    assert redaction.text == f"line one\nconfig value: [REDACTED:{kind}] (see docs)\nline three\n"
    assert redaction.kinds == {kind: 1}


def test_private_key_blocks_keep_their_line_count() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAKC\n-----END RSA PRIVATE KEY-----"
    text = f"before\n{block}\nafter\n"
    redacted = redact_secrets(text).text
    assert redacted == "before\n[REDACTED:private-key]\n\n\n\nafter\n"
    assert redacted.count("\n") == text.count("\n")


@pytest.mark.parametrize("line", [
    'api_key = "Xk29fjQp0zLm2Rt8"',
    '"client_secret": "q8W3-e9R2t7Y1u4I6"',
    "DB_PASSWORD=Xk29!fjQp0zLm2",
    "export AUTH_TOKEN=7f3a9c0e1b2d4f6a8c0e",
    "password: 'S3cr3t-P4ss!word'",
])
def test_random_values_assigned_to_secret_names_are_redacted(line: str) -> None:
    redaction = redact_secrets(line + "\n")
    assert redaction.kinds == {"secret": 1}
    assert "[REDACTED:secret]" in redaction.text
    assert redaction.text.split("[REDACTED:secret]")[0] == line[:len(redaction.text.split("[REDACTED")[0])]


@pytest.mark.parametrize("line", [
    'token = "abc"',                                  # too short
    "password = get_password(user)",                  # code, not a value
    'api_key = os.environ["GEMINI_API_KEY"]',
    'secret_name = "database_password"',              # an identifier, not random
    'tokenizer = "whitespace_tokenizer"',
    'PASSWORD=${DB_PASSWORD}',                        # a reference to another variable
    "The api_key setting names the key; see the docs for how to create one.",
    "def check_password(password: str) -> bool:",
    "    token = line[start:pos]",                   # found in the standard library
    "        self._authkey = self._manager._authkey",
    "tokenize_module._tokenize = mock__tokenize",
    'PWD: "/home/user/project"',                     # a working directory, not a password
])
def test_ordinary_text_and_code_are_left_alone(line: str) -> None:
    assert redact_secrets(line + "\n").text == line + "\n"
