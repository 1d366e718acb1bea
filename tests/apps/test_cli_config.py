"""The CLI on config mistakes (exit 2, one line naming file, key and value) and on Ctrl-C
during ``index`` (what was kept, what is pending, exit 130, a second run resumes)."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import write
from ragloom.apps import cli, cli_commands
from ragloom.indexing.progress import IndexProgress

pytest.importorskip("chromadb", reason="the CLI tests use the embedded Chroma store")


def run_cli(project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
            *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(project)
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(("table", "expected"), [
    ("min_score = 2", "key 'min_score' = 2: Input should be less than or equal to 1"),
    ('top_k = "5"', "key 'top_k' = '5': must be a whole number, not text (write it without quotes)"),
    ("chunk_size = 100000000000000000000000", "key 'chunk_size' = 100000000000000000000000:"),
    ("top_k_ = 3", "unknown key 'top_k_' (did you mean 'top_k'?)"),
    ('embedding.provider = "hsh"', "key 'embedding.provider' = 'hsh': unknown embedding provider "
                                   "(did you mean 'hash'?)"),
    ('embedding.provider = "hash"\n[rag.vector_store]\nprovider = "chromaa"',
     "key 'vector_store.provider' = 'chromaa': unknown vector store (did you mean 'chroma'?)"),
    ('embedding.provider = "os:system"', "embedding provider 'os:system' for key "
                                         "'embedding.provider': calling it failed"),
])
def test_a_config_mistake_exits_2_with_one_line_naming_file_key_and_value(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        table: str, expected: str) -> None:
    config = write(tmp_path, "ragloom.toml", f"[rag]\n{table}\n")
    code, out, err = run_cli(tmp_path, capsys, monkeypatch, "search", "anything")
    assert code == 2
    assert out == ""
    assert err.startswith(f"ragloom: error: {config} [rag]: {expected}")
    assert err.count("\n") == 1  # one line, no traceback
    assert not (tmp_path / ".ragloom").exists()


@pytest.mark.parametrize(("content", "expected"), [
    (b"[rag]\ntop_k = 5 # caf\xe9\n", "not UTF-8 text (byte 21), as TOML must be"),
    (b"[rag]\nx = " + b"{a=" * 500 + b"1" + b"}" * 500 + b"\n",
     "invalid TOML: tables or arrays nested too deep"),
])
def test_an_unreadable_config_file_exits_2_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        content: bytes, expected: str) -> None:
    (tmp_path / "ragloom.toml").write_bytes(content)
    code, _, err = run_cli(tmp_path, capsys, monkeypatch, "index")
    assert (code, err) == (2, f"ragloom: error: {tmp_path / 'ragloom.toml'}: {expected}\n")


FILES = 250


def test_ctrl_c_during_index_says_what_was_kept_and_that_index_resumes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C (a real SIGINT, sent when the 200th file has been read) stops the run at the
    next safe point: the files written so far stay, the rest are pending, and running
    ``index`` again indexes exactly those."""
    write(tmp_path, "ragloom.toml", '[rag]\nembedding.provider = "hash"\n')
    for number in range(FILES):
        write(tmp_path, f"notes/n{number:03d}.md", f"# Note {number}\n\nword{number} text\n")
    sent: list[int] = []
    handler_before = signal.getsignal(signal.SIGINT)  # SIG_IGN when run in the background

    def interrupting_printer(stream: object = None) -> object:
        def progress(snapshot: IndexProgress) -> None:
            on_main = threading.current_thread() is threading.main_thread()
            if on_main and snapshot.files_done == 200 and not sent:
                sent.append(snapshot.files_done)
                signal.raise_signal(signal.SIGINT)
        return progress

    monkeypatch.setattr(cli_commands, "progress_printer", interrupting_printer)
    code, out, err = run_cli(tmp_path, capsys, monkeypatch, "index", "--json")
    assert code == 130 and sent == [200]
    stopped = json.loads(out)
    kept, chunks, pending = stopped["files_indexed"], stopped["chunks_added"], stopped["files_pending"]
    assert stopped["interrupted"] is True
    assert 0 < kept < 200 and chunks == kept and kept + pending == FILES
    assert "ragloom: stopping after the current step (Ctrl-C again to stop at once)\n" in err
    waiting = stopped["chunks_unembedded"]  # in BM25, not embedded yet (progressive indexing)
    assert 0 <= waiting <= chunks
    told = f", {waiting} chunks waiting for their vectors (BM25 finds them meanwhile)" if waiting else ""
    assert err.endswith(f"ragloom: interrupted: kept {kept} files ({chunks} chunks) written before "
                        f"the stop; {pending} files pending{told}; run 'ragloom index' again to resume: "
                        f"files already written are skipped as unchanged and embeddings come "
                        f"from the cache\n")
    assert signal.getsignal(signal.SIGINT) is handler_before  # handler put back

    code, out, _ = run_cli(tmp_path, capsys, monkeypatch, "status", "--json")
    assert (code, json.loads(out)["files"]) == (0, kept)
    code, out, _ = run_cli(tmp_path, capsys, monkeypatch, "index", "--json")
    resumed = json.loads(out)
    assert code == 0
    assert (resumed["files_indexed"], resumed["files_unchanged"]) == (pending, kept)


@pytest.fixture
def terminal_sigint() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt, as in a terminal, however pytest was started (a
    background job inherits SIGINT ignored); the handler found is put back afterwards."""
    found = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, found)


@pytest.mark.usefixtures("terminal_sigint")
def test_a_second_ctrl_c_stops_at_once_and_still_exits_130(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "ragloom.toml", '[rag]\nembedding.provider = "hash"\n')
    for number in range(20):
        write(tmp_path, f"n{number}.md", f"# Note {number}\n")

    def interrupting_printer(stream: object = None) -> object:
        def progress(snapshot: IndexProgress) -> None:
            if threading.current_thread() is threading.main_thread() and snapshot.files_done == 5:
                signal.raise_signal(signal.SIGINT)  # sets the stop event
                signal.raise_signal(signal.SIGINT)  # the handler before it: KeyboardInterrupt
        return progress

    monkeypatch.setattr(cli_commands, "progress_printer", interrupting_printer)
    code, _, err = run_cli(tmp_path, capsys, monkeypatch, "index")
    assert code == 130
    assert err.endswith("ragloom: interrupted; run 'ragloom index' again to resume: files already "
                        "written are skipped as unchanged and embeddings come from the cache\n")
