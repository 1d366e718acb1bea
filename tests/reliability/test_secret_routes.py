"""No route carries a value that search redacts: search results, the context block, the CLI,
MCP tool results and resources, ``rag_index``, logs, errors, every file under the index
folder and the texts sent to the embedder. Excluded files, symlinks to them and file names
that try to close the context block are covered here too."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine, format_context, load_config
from ragloom.embeddings.hashing import HashEmbeddingProvider

CONFIG = """
[rag]
embedding.provider = "hash"
relevance_gate = false
embedding.api_key = "{config_key}"

[rag.vector_store]
provider = "turboquant"
"""


def _fake(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def make_secrets() -> dict[str, str]:
    """Fake secrets in formats the first redaction did not know (built at run time)."""
    rng = random.Random(27)
    alnum = string.ascii_letters + string.digits
    return {
        "yaml_password": "Falcon1987!q",
        "db_password": "maple42xz" + _fake(rng, string.digits, 3),
        "hf": "hf_" + _fake(rng, string.ascii_letters, 34),
        "bearer": _fake(rng, alnum, 40),
        "npm": "npm_" + _fake(rng, alnum, 36),
        "env": "sk_test_" + _fake(rng, alnum, 40),
        "git": _fake(rng, alnum, 24),
        "linked": "dop_v1_" + _fake(rng, "0123456789abcdef", 64),
        "ignored": "SG." + _fake(rng, alnum, 22) + "." + _fake(rng, alnum, 43),
        "outside": "xoxb-1234567890-" + _fake(rng, alnum, 24),
        "config_key": "AIza" + _fake(rng, alnum, 35),
    }


SECRETS = make_secrets()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    s = SECRETS
    write(root, "ragloom.toml", CONFIG.format(config_key=s["config_key"]))
    write(root, "config/app.yaml",
          f"# database settings\ndatabase:\n  host: db\n  password: {s['yaml_password']}\n")
    write(root, "settings.py",
          f'"""Settings."""\nDATABASE_URL = "postgres://app:{s["db_password"]}@db:5432/app"\n'
          f'HF_TOKEN = "{s["hf"]}"\n')
    write(root, "docs/deploy.md", "# Deploy\n\nCall the deploy hook:\n\n"
                                  f"    curl -H 'Authorization: Bearer {s['bearer']}' https://ci/deploy\n")
    write(root, ".npmrc", f"//registry.npmjs.org/:_authToken={s['npm']}\n")
    write(root, ".env.production", f"STRIPE_KEY={s['env']}\n")
    write(root, ".git/config", f'[remote "origin"]\n\turl = https://ci:{s["git"]}@git.example.com/app.git\n')
    write(root, ".env", f"DO_TOKEN={s['linked']}\n")
    write(root, ".gitignore", "private/\n")
    write(root, "private/notes.txt", f"sendgrid {s['ignored']}\n")
    write(tmp_path, "outside.txt", f"slack {s['outside']}\n")
    (root / "src").mkdir()
    (root / "src/settings.txt").symlink_to("../.env")
    (root / "src/notes.txt").symlink_to("../private/notes.txt")
    (root / "src/outside.txt").symlink_to("../../outside.txt")
    return root


def assert_no_secret(text: str, where: str) -> None:
    for name, secret in SECRETS.items():
        assert secret not in text, f"{name} leaked through {where}"


def assert_index_folder_clean(root: Path) -> None:
    files = [path for path in (root / ".ragloom").rglob("*") if path.is_file()]
    assert files
    for path in files:
        data = path.read_bytes()
        for name, secret in SECRETS.items():
            assert secret.encode() not in data, f"{name} stored in {path}"


QUERIES = ("database password", "deploy hook bearer", "token settings", "sendgrid", "slack",
           "stripe key", "registry auth token", "remote origin url")


def test_library_routes_carry_no_secret(project: Path, monkeypatch: pytest.MonkeyPatch,
                                        caplog: pytest.LogCaptureFixture) -> None:
    embedded: list[str] = []
    original = HashEmbeddingProvider._embed_batch

    def recording(self: HashEmbeddingProvider, texts: list[str], task: Any) -> Any:
        embedded.extend(texts)
        return original(self, texts, task)

    monkeypatch.setattr(HashEmbeddingProvider, "_embed_batch", recording)
    with caplog.at_level(logging.DEBUG), RAGEngine(load_config(project / "ragloom.toml"), project) as engine:
        report = engine.index_directory()
        indexed = engine.get_all_indexed_paths()
        assert sorted(indexed) == ["config/app.yaml", "docs/deploy.md", "settings.py"]  # .gitignore: noise
        skipped = {s.path: s.reason for s in report.skipped}
        assert skipped["src/settings.txt"] == "symlink to .env: secret file (excluded by default)"
        assert skipped["src/notes.txt"] == (
            "symlink to private/notes.txt: inside private/ (ignored by .gitignore)")
        assert skipped["src/outside.txt"] == "symlink points outside base_dir"
        for name in (".npmrc", ".env.production", ".git/config", "ragloom.toml", "src/settings.txt"):
            single = engine.index_file(project / name)
            assert single.files_skipped == 1 and single.chunks_added == 0, name
        texts = [str(report.to_dict())]
        for query in QUERIES:
            results = engine.search(query, top_k=10)
            texts += [format_context(results), *(r.text for r in results),
                      *(json.dumps(r.metadata, default=str) for r in results)]
        assert "[REDACTED:" in format_context(engine.search("database password", top_k=10))
        texts += [str(engine.status().to_dict()), repr(engine)]
        assert sorted(engine.get_all_indexed_paths()) == sorted(indexed)
    for text in texts:
        assert_no_secret(text, "the library")
    assert_no_secret(caplog.text, "logs")
    assert any("[REDACTED:" in text for text in embedded)
    assert_no_secret("\n".join(embedded), "embedding requests")
    assert_index_folder_clean(project)


def run_cli(project: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "ragloom", *args], cwd=project, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert done.returncode in (0, 1), done.stderr
    return done.stdout + done.stderr


def test_cli_output_carries_no_secret(project: Path) -> None:
    outputs = [run_cli(project, "-v", "index"),
               run_cli(project, "search", "database password token bearer", "--json", "--top-k", "10"),
               run_cli(project, "context", "database password token", "--top-k", "10"),
               run_cli(project, "ingest", ".npmrc", "src/settings.txt", ".git/config")]
    assert "REDACTED" in outputs[1]
    assert "skipped .npmrc: secret file (excluded by default)" in outputs[3]
    for output in outputs:
        assert_no_secret(output, "the CLI")
    assert_index_folder_clean(project)


def test_config_errors_do_not_print_secrets(tmp_path: Path) -> None:
    from ragloom import ConfigError
    from ragloom.config import parse_config

    for data in ({"embedding": {"api_key_env": SECRETS["hf"]}, "bogus": 1},
                 {"embedding": {"dim": SECRETS["env"]}},
                 {"vector_store": {"provider": "turboquant", "path": 3, "api_key": ["x", SECRETS["npm"]]}}):
        with pytest.raises(ConfigError) as error:
            parse_config(data)
        assert_no_secret(str(error.value), "a config error")


mcp = pytest.importorskip("mcp", reason="the mcp extra is not installed")


def test_mcp_routes_carry_no_secret(project: Path) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.shared.exceptions import MCPError

    with RAGEngine(load_config(project / "ragloom.toml"), project) as engine:
        engine.index_directory()
    params = StdioServerParameters(command=sys.executable, args=["-m", "ragloom", "mcp", "--allow-writes"],
                                   cwd=str(project), env={**os.environ, "PYTHONWARNINGS": "ignore"})
    seen: list[str] = []

    def text_of(result: Any) -> str:
        return "".join(block.text for block in result.content)

    async def main() -> None:
        async with Client(params, read_timeout_seconds=120) as client:
            for query in QUERIES:
                found = await client.call_tool("rag_search", {"query": query, "top_k": 10})
                seen.extend([text_of(found), json.dumps(found.structured_content)])
            resources = [r.uri for r in (await client.list_resources()).resources]
            assert sorted(str(uri) for uri in resources) == [
                "ragloom://file/config/app.yaml", "ragloom://file/docs/deploy.md",
                "ragloom://file/settings.py"]
            for uri in resources:
                read = await client.read_resource(uri)
                seen.append(read.contents[0].text)
                assert "[REDACTED:" in read.contents[0].text, uri
            for path in (".npmrc", ".env.production", ".git/config", ".git", "ragloom.toml",
                         "src/settings.txt", "src/notes.txt", "private"):
                refused = await client.call_tool("rag_index", {"path": path})
                assert refused.is_error and f"rag_index refused {path!r}" in text_of(refused), path
                seen.append(text_of(refused))
            for path in (".npmrc", ".env", "private/notes.txt"):
                with pytest.raises(MCPError, match="is not an indexed file") as error:
                    await client.read_resource(f"ragloom://file/{path}")
                seen.append(str(error.value))
            whole = await client.call_tool("rag_index", {})
            assert not whole.is_error
            seen.append(json.dumps(whole.structured_content))
            status = await client.call_tool("rag_status", {})
            assert status.structured_content["files"] == 3  # .gitignore is noise (rule ignore-files)

    asyncio.run(main())
    for text in seen:
        assert_no_secret(text, "MCP")
    assert_index_folder_clean(project)


def test_an_indexed_file_swapped_for_a_symlink_to_a_secret_file_is_not_served(tmp_path: Path) -> None:
    """resources/read judges the file as the walk would now: a file indexed as ordinary text
    and then replaced by a link to ``.env`` (or an outside file) is refused, not read."""
    from mcp.server.mcpserver.exceptions import ResourceError

    from ragloom.apps.mcp_server import read_indexed_file

    write(tmp_path, "src/settings.txt", "ordinary settings\n")
    write(tmp_path, ".env", "LOGIN_NOTE=the door code is 4711\n")
    config = hash_config(vector_store={"provider": "turboquant"})
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
    link = tmp_path / "src/settings.txt"
    link.unlink()
    link.symlink_to("../.env")
    with RAGEngine(config, tmp_path, read_only=True) as reader:
        with pytest.raises(ResourceError, match=r"'src/settings.txt' is not served: symlink to \.env"):
            read_indexed_file(reader, "src/settings.txt")
        link.unlink()
        link.write_text("ordinary settings, edited\n")
        assert read_indexed_file(reader, "src/settings.txt") == "ordinary settings, edited\n"


def test_a_file_whose_name_holds_a_token_is_skipped_and_reported_redacted(tmp_path: Path) -> None:
    """A token pasted into a file or folder name would reach every result's path, the
    context block, the CLI and MCP: the file is skipped, its path shown redacted."""
    token = "ghp_" + "a1B2c3D4e5F6" * 3
    write(tmp_path, f"notes/{token}.md", "# Notes\nhow to deploy the service\n")
    write(tmp_path, f"keys-{token}/readme.md", "# Keys\nhow to deploy the service\n")
    write(tmp_path, "notes/plan.md", "# Plan\nhow to deploy the service\n")
    write(tmp_path, "assets/main.4f3a2b1c9d8e7f60aa.js", "console.log('deploy the service');\n")
    config = hash_config(vector_store={"provider": "turboquant"})
    with RAGEngine(config, tmp_path) as engine:
        report = engine.index_directory()
        assert engine.get_all_indexed_paths() == ["assets/main.4f3a2b1c9d8e7f60aa.js", "notes/plan.md"]
        assert sorted((s.path, s.reason) for s in report.skipped) == [
            ("keys-[REDACTED:github-token]/readme.md", "its path holds a secret (github-token)"),
            ("notes/[REDACTED:github-token].md", "its path holds a secret (github-token)")]
        assert engine.excluded_reason(tmp_path / f"notes/{token}.md") == \
            "its path holds a secret (github-token)"
        single = engine.index_file(tmp_path / f"notes/{token}.md")
        assert single.files_indexed == 0 and token not in str(single.to_dict())
    for path in (tmp_path / ".ragloom").rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path
