"""What the CLI can ask of a search (the API's options) and how it answers: --mode, --where,
--path, --min-score, --no-gate, --top-k, --json on every command, page numbers of PDFs,
and what it says when nothing comes back or no config file is found."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import write

CONFIG = """
[rag]
embedding.provider = "hash"
relevance_gate = false

[rag.vector_store]
provider = "turboquant"
"""


def ragloom(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ragloom", *args], cwd=project, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONWARNINGS": "ignore"})


def found(project: Path, *args: str) -> list[dict]:
    run = ragloom(project, "search", *args, "--json")
    results = json.loads(run.stdout)
    assert run.returncode == (0 if results else 3), run.stderr  # 3: nothing found
    return results


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli-query")
    write(root, "ragloom.toml", CONFIG)
    write(root, "src/rockets.py", "def launch_rocket(fuel):\n    return fuel * 2\n")
    write(root, "src/wings.py", "def wing_lift(angle):\n    return angle * 0.1\n")
    write(root, "docs/rockets.md", "# Rockets\n\nRockets launch satellites into orbit.\n")
    write(root, "notes/rockets.txt", "rockets rockets rockets and more rockets\n")
    indexed = ragloom(root, "index")
    assert indexed.returncode == 0, indexed.stderr
    return root


def test_mode_picks_the_retrievers(project: Path) -> None:
    sparse = found(project, "rockets", "--mode", "sparse")
    assert sparse and all("sparse" in r["retrievers"] for r in sparse)
    dense = found(project, "rockets", "--mode", "dense")
    assert dense and not any("sparse" in r["retrievers"] for r in dense)
    hybrid = found(project, "rockets", "--mode", "hybrid")
    assert any("sparse" in r["retrievers"] for r in hybrid)
    bad = ragloom(project, "search", "rockets", "--mode", "fuzzy")
    assert bad.returncode == 2 and "invalid choice: 'fuzzy'" in bad.stderr


def test_where_filters_by_metadata_and_commas_mean_any(project: Path) -> None:
    code = found(project, "rockets", "--where", "source_type=code", "--top-k", "10")
    assert {r["metadata"]["path"] for r in code} == {"src/rockets.py", "src/wings.py"}
    either = found(project, "rockets", "--where", "path=docs/rockets.md,notes/rockets.txt", "--top-k", "10")
    assert {r["metadata"]["path"] for r in either} == {"docs/rockets.md", "notes/rockets.txt"}
    both = found(project, "rockets", "--where", "source_type=code", "--where", "language=python",
                 "--top-k", "10")
    assert {r["metadata"]["path"] for r in both} == {"src/rockets.py", "src/wings.py"}
    first = found(project, "rockets", "--where", "chunk_index=0", "--top-k", "10")  # a number
    assert first and all(r["metadata"]["chunk_index"] == 0 for r in first)
    assert found(project, "rockets", "--where", 'chunk_index="0"') == []  # a quoted string


def test_bad_where_is_a_usage_error_naming_it(project: Path) -> None:
    for args, message in ((["--where", "source_type"], "--where 'source_type': expected KEY=VALUE"),
                          (["--where", "language=python", "--where", "language=go"],
                           "--where language=...: given twice; list the values as language=A,B"),
                          (["--path", "src/*", "--where", "path=a.py"], "--path and --where path=")):
        run = ragloom(project, "search", "rockets", *args)
        assert run.returncode == 2 and message in run.stderr, run.stderr


def test_path_glob(project: Path) -> None:
    code = found(project, "rockets", "--path", "src/*.py", "--top-k", "10")
    assert {r["metadata"]["path"] for r in code} == {"src/rockets.py", "src/wings.py"}
    docs = found(project, "rockets", "--path", "**/*.md")
    assert {r["metadata"]["path"] for r in docs} == {"docs/rockets.md"}


def test_top_k_and_min_score(project: Path) -> None:
    assert len(found(project, "rockets", "--top-k", "2")) == 2
    scores = [r["score"] for r in found(project, "rockets", "--top-k", "10", "--mode", "dense")]
    cut = sorted(scores)[len(scores) // 2]
    kept = found(project, "rockets", "--top-k", "10", "--mode", "dense", "--min-score", str(cut))
    assert [r["score"] for r in kept] == [s for s in scores if s >= cut]
    nothing = ragloom(project, "search", "rockets", "--mode", "dense", "--min-score", "1.5")
    assert nothing.returncode == 3 and nothing.stdout == ""
    assert f"ragloom: no result reached the minimum score 1.5; best score {max(scores):.4f}" in nothing.stderr


def test_the_gate_says_what_it_cut_and_no_gate_shows_it(tmp_path: Path) -> None:
    write(tmp_path, "ragloom.toml", CONFIG.replace("relevance_gate = false", "relevance_gate = 0.99"))
    write(tmp_path, "docs/rockets.md", "# Rockets\n\nRockets launch satellites into orbit.\n")
    assert ragloom(tmp_path, "index").returncode == 0
    gated = ragloom(tmp_path, "search", "weather tomorrow")
    assert gated.returncode == 3 and gated.stdout == "", gated.stderr
    assert "ragloom: nothing relevant: best score " in gated.stderr
    best = gated.stderr.split("best score ")[1].split(",")[0]
    assert ", below the relevance gate 0.99 (cosine); --no-gate shows these results anyway" in gated.stderr
    shown = ragloom(tmp_path, "-v", "search", "weather tomorrow", "--no-gate")
    first = shown.stdout.splitlines()[0]
    assert shown.returncode == 0 and first.startswith("1. ") and first.endswith(
        f" fused, cosine {best}  docs/rockets.md:1-3")
    assert f"ragloom: relevance gate off for this query (gate: 0.99); best score {best}" in shown.stderr
    context = ragloom(tmp_path, "context", "weather tomorrow", "--no-gate", "--top-k", "1")
    assert context.stdout.startswith("[RETRIEVED CONTEXT]\nFile: docs/rockets.md")


def test_every_command_speaks_json(project: Path, tmp_path: Path) -> None:
    context = json.loads(ragloom(project, "context", "rockets orbit", "--top-k", "1", "--json").stdout)
    assert context["context"].startswith("[RETRIEVED CONTEXT]") and len(context["results"]) == 1
    status = json.loads(ragloom(project, "status", "--json").stdout)
    assert status["files"] == 4
    index = json.loads(ragloom(project, "index", "--json").stdout)
    assert (index["files_indexed"], index["files_unchanged"]) == (0, 4)
    write(tmp_path, "extra.md", "# Extra\n\nGliders have no engine.\n")
    ingested = json.loads(ragloom(project, "ingest", str(tmp_path / "extra.md"), str(tmp_path / "nope.md"),
                                  "--json").stdout)
    assert [(r["path"], r["status"]) for r in ingested] == [(str(tmp_path / "extra.md"), "indexed"),
                                                            (str(tmp_path / "nope.md"), "missing")]
    reindexed = json.loads(ragloom(project, "reindex", "--json").stdout)
    assert reindexed["files_indexed"] >= 4


def test_pdf_results_show_pages(tmp_path: Path) -> None:
    pytest.importorskip("pypdf")
    pytest.importorskip("fpdf")
    from documents import text_pdf

    write(tmp_path, "ragloom.toml", CONFIG.replace("[rag]\n", "[rag]\nchunk_size = 60\n"))
    (tmp_path / "wing.pdf").write_bytes(text_pdf().data)
    assert ragloom(tmp_path, "index").returncode == 0
    plain = ragloom(tmp_path, "search", "swept wings drag speed of sound", "--top-k", "10").stdout
    ranked = [line for line in plain.splitlines() if line[:1].isdigit()]
    assert ranked and all(" wing.pdf page" in line for line in ranked), plain
    assert any(line.endswith("wing.pdf page 3") for line in ranked)
    assert any(line.endswith("wing.pdf page 1") for line in ranked)
    assert not any(":" in line.split("  ", 1)[1] for line in ranked)  # no line numbers


@pytest.mark.slow  # the defaults: the local model
def test_no_config_says_where_it_indexes_once(tmp_path: Path) -> None:
    write(tmp_path, "notes.md", "# Notes\n\nRockets.\n")
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    first = subprocess.run([sys.executable, "-m", "ragloom", "index"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=300, env=env)
    assert first.returncode == 0, first.stderr
    assert (f"ragloom: no ragloom.toml (or pyproject.toml [tool.ragloom]) in {tmp_path} or above: "
            f"indexing {tmp_path} with the default settings into {tmp_path / '.ragloom'}") in first.stderr
    again = subprocess.run([sys.executable, "-m", "ragloom", "index"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=300, env=env)
    assert again.returncode == 0 and "no ragloom.toml" not in again.stderr


def test_file_names_and_texts_cannot_forge_lines_or_drive_the_terminal() -> None:
    """A file named ``a\\n2. 0.9999  src/trusted.py`` cannot print a fake result line, and an
    escape sequence in a name or a file's text (clear the screen, retitle the window) is
    shown escaped, not sent to the terminal; line breaks inside the text stay."""
    import io

    from ragloom.apps.cli_progress import describe_report
    from ragloom.apps.query_options import print_results
    from ragloom.types import IndexReport, SearchResult, SkippedFile

    forged = "src/a\n2. 0.9999  src/trusted.py:1-2\n   password = hunter2.py"
    results = [SearchResult(id="x", text='def evil():\n    return "\x1b]0;pwned\x07\x1b[2J"',
                            metadata={"path": forged, "start_line": 1, "end_line": 2}, score=0.5,
                            distance=0.5),
               SearchResult(id="y", text="plain", metadata={"path": "src/\x1b[31mred.py"}, score=0.4,
                            distance=0.6)]
    out = io.StringIO()
    print_results(results, False, out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "1. 0.5000  src/a\\n2. 0.9999  src/trusted.py:1-2\\n   password = hunter2.py:1-2"
    assert lines[1:3] == ["   def evil():", '       return "\\x1b]0;pwned\\x07\\x1b[2J"']
    assert lines[3] == "2. 0.4000  src/\\x1b[31mred.py:?-?"
    assert "\x1b" not in out.getvalue()
    skipped = SkippedFile("src/\x1b[2Jx\ny.py", "broken or looping symlink")
    report = IndexReport(files_skipped=1, skipped=[skipped])
    listed = describe_report(report, verbose=True).splitlines()
    assert "  skipped src/\\x1b[2Jx\\ny.py: broken or looping symlink" in listed


def test_the_printed_score_is_the_one_results_are_ranked_by(project: Path) -> None:
    """Hybrid results are ordered by the fused score: that is the number printed (in order,
    never rising), with the cosine beside it under -v; --json carries both."""
    ranked = found(project, "rockets launch orbit", "--top-k", "10")
    assert len(ranked) >= 3
    text = ragloom(project, "search", "rockets launch orbit", "--top-k", "10")
    printed = [float(line.split()[1]) for line in text.stdout.splitlines() if line[:1].isdigit()]
    assert printed == [round(r["rank_score"], 4) for r in ranked]
    assert printed == sorted(printed, reverse=True)
    verbose = ragloom(project, "-v", "search", "rockets launch orbit", "--top-k", "10")
    first = next(line for line in verbose.stdout.splitlines() if line.startswith("1. "))
    assert first.startswith(f"1. {ranked[0]['rank_score']:.4f} fused, cosine {ranked[0]['score']:.4f}  ")
