"""``ragloom inspect`` as a user runs it: the command in a subprocess prints its address,
and Debian's headless Chromium opens the page, whose own script runs the search given in
the URL; the test reads the DOM the script built (results, retriever ranks, the chunk's
boundaries and its neighbours in the file view, stage timings, the index plots)."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path

import pytest
from inspector_project import make_project

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@contextmanager
def inspect_server(project: Path, *options: str) -> Iterator[str]:
    """``ragloom inspect`` running in ``project``; yields the URL it printed."""
    process = subprocess.Popen([sys.executable, "-m", "ragloom", "inspect", *options], cwd=project,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONWARNINGS": "ignore"})
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found, f"no address printed: {line!r}"
        yield found.group(0)
    finally:
        process.terminate()
        process.wait(timeout=30)


class Elements(HTMLParser):
    """Each element's tag, attributes and the text directly inside it, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict[str, str]] = []
        self._open: list[dict[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = {"tag": tag, **{k: v or "" for k, v in attrs}, "text": ""}
        self.found.append(element)
        if tag not in ("input", "link", "meta", "br", "rect"):
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        if self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1]["text"] += data

    def having(self, key: str, value: str | None = None) -> list[dict[str, str]]:
        return [e for e in self.found if key in e and (value is None or e[key] == value)]

    def classed(self, name: str) -> list[dict[str, str]]:
        return [e for e in self.found if name in e.get("class", "").split()]


def test_inspect_prints_its_address_and_serves_the_api(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    with socket.socket() as probe:  # a port free a moment ago, given with --port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with inspect_server(project, "--port", str(port)) as url:
        with urllib.request.urlopen(url + "api/index", timeout=30) as response:
            answer = json.loads(response.read())
    assert url == f"http://127.0.0.1:{port}/"
    assert answer["status"]["files"] == 2 and answer["status"]["store"] == "turboquant"


def test_inspect_without_an_index_says_so(tmp_path: Path) -> None:
    (tmp_path / "ragloom.toml").write_text('[rag]\nembedding.provider = "hash"\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "ragloom", "inspect"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1 and "no index in" in done.stderr
    assert not (tmp_path / ".ragloom").exists()  # read-only: nothing created


def test_page_runs_a_search_in_a_real_browser(tmp_path: Path) -> None:
    browser = chromium()
    if browser is None:
        pytest.skip("chromium is not installed here (apt-get install chromium; .ci/run installs it)")
    project = make_project(tmp_path)
    with inspect_server(project) as url, tempfile.TemporaryDirectory() as profile:
        shown = subprocess.run(
            [browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=5000",
             "--dump-dom", url + "?q=launch+satellites+manifest&top_k=3&mode=hybrid"],
            capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr[-2000:]
    page = Elements()
    page.feed(shown.stdout)
    results = page.classed("result")
    assert len(results) == 3
    wheres = [e["text"] for e in page.classed("where")]
    assert wheres[0] == "src/parser.py:6-9"
    retrievers = page.having("data-retriever")
    assert retrievers[0]["text"].startswith("dense rank ")
    assert retrievers[1]["text"].startswith("BM25 rank 1 (")
    assert "symbol load_rockets" in [e["text"] for e in page.classed("badge")]
    # the first result's file view: its chunk and both neighbours, each boundary marked
    starts = [(e["data-role"], e["data-lines"]) for e in page.classed("boundary") if "start" in e["class"]]
    assert starts == [("neighbour", "1-3"), ("selected", "6-9"), ("neighbour", "12-14")]
    selected_lines = [int(e["data-line"]) for e in page.classed("in-selected")]
    assert selected_lines == [6, 7, 8, 9]
    assert [int(e["data-line"]) for e in page.classed("in-neighbour")] == [1, 2, 3, 12, 13, 14]
    # the stage timings and the index plots, drawn as SVG by the page
    plots = [e["data-plot"] for e in page.having("data-plot")]
    assert any(p.startswith("Stage timings (") for p in plots)
    timing_labels = {e["text"] for e in page.found if e["tag"] == "text"}
    assert {"embed_query", "dense", "sparse", "fuse"} <= timing_labels
    assert {"Languages (files, chunks)", "Source types (files, chunks)"} <= set(plots)
    assert "Chunk sizes (5 chunks)" in plots and "Skipped files by reason" in plots
    status = page.having("id", "search-status")[0]["text"]
    assert status.startswith("3 results · mode hybrid · best cosine ")
    indexed_at = page.having("id", "fact-last-indexed")[0]["text"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", indexed_at)
    assert page.having("id", "fact-files-pending")[0]["text"] == "0"
    assert page.having("id", "summary")[0]["text"] == "2 files · 5 chunks · turboquant · hash/feature-hash-v1"
