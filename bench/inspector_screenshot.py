"""A screenshot of ``ragloom inspect`` after a real search, and how long opening the page
and running a search take (issue 41).

Copies ``--source`` (an application repository; default this repository's ``src``) into
``--work`` (kept, so a rerun reuses the index), writes a ragloom.toml (``--provider``,
``--store``, ``--exclude``), runs ``ragloom index``, starts ``ragloom inspect`` and then:

* times what a browser fetches to show a search (the page, page.js, page.css, then
  /api/search) right after the address is printed, and /api/index (the make-up view,
  loaded beside it), over HTTP; then each again, median of ``--runs``;
* times headless Chromium opening ``/?q=...`` end to end (its own start included) and
  checks the page shows results;
* saves a PNG (``--screenshot``, 1400x1000) of the page with that search.

    python bench/inspector_screenshot.py --source /path/to/app --query "..." \
        --screenshot docs/inspector.png
"""

from __future__ import annotations

import argparse
import http.client
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote_plus, urlsplit

REPO = Path(__file__).resolve().parent.parent
RAGLOOM = [sys.executable, "-m", "ragloom"]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars"]


def build(source: Path, work: Path, provider: str, store: str, exclude: list[str],
          chunk_size: int | None) -> Path:
    """``source`` copied to ``work/project`` and indexed (once: a marker file says so)."""
    project = work / "project"
    if (work / "indexed").is_file():
        return project
    shutil.copytree(source, project, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".git", ".ragloom", "__pycache__"))
    patterns = ", ".join(f'"{pattern}"' for pattern in exclude)
    size = f'chunk_size = {chunk_size}\nchunk_unit = "characters"\n' if chunk_size else ""
    (project / "ragloom.toml").write_text(
        f'[rag]\nembedding.provider = "{provider}"\nexclude = [{patterns}]\n{size}\n'
        f'[rag.vector_store]\nprovider = "{store}"\n', encoding="utf-8")
    started = time.monotonic()
    subprocess.run([*RAGLOOM, "index"], cwd=project, check=True, stdout=subprocess.DEVNULL)
    print(f"indexed {source} in {time.monotonic() - started:.0f} s", flush=True)
    (work / "indexed").write_text("yes\n", encoding="utf-8")
    return project


@contextmanager
def inspecting(project: Path) -> Iterator[str]:
    """``ragloom inspect`` running on ``project``; yields the address it printed."""
    process = subprocess.Popen([*RAGLOOM, "inspect"], cwd=project, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        found = re.search(r"http://127\.0\.0\.1:\d+/", process.stdout.readline())
        if found is None:
            raise SystemExit("ragloom inspect printed no address")
        yield found.group(0)
    finally:
        process.terminate()
        process.wait(timeout=30)


def fetch_seconds(url: str, targets: list[str]) -> float:
    """Seconds to GET each of ``targets`` in turn on one connection (each must answer 200)."""
    address = urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=120)
    started = time.perf_counter()
    for target in targets:
        connection.request("GET", target, headers={"Host": address.netloc})
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise SystemExit(f"{target}: HTTP {response.status}")
    seconds = time.perf_counter() - started
    connection.close()
    return seconds


def chromium(url: str, *action: str) -> tuple[float, str]:
    """Headless Chromium on ``url`` with ``action`` (--dump-dom or --screenshot=...)."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        started = time.perf_counter()
        shown = subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                                "--virtual-time-budget=8000", *action, url],
                               capture_output=True, text=True, timeout=300, check=True)
        return time.perf_counter() - started, shown.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=REPO / "src")
    parser.add_argument("--work", type=Path, default=None, help="kept between runs (default: temp)")
    parser.add_argument("--provider", default="local", help="embedding provider (local, hash, ...)")
    parser.add_argument("--store", default="turboquant")
    parser.add_argument("--exclude", action="append", default=[], metavar="GLOB")
    parser.add_argument("--chunk-size", type=int, default=None, help="characters (default: the config's)")
    parser.add_argument("--query", default="where is the relevance gate applied to search results")
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--screenshot", type=Path, default=None, help="PNG to write")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="inspector-"))
    project = build(args.source.resolve(), work, args.provider, args.store, args.exclude, args.chunk_size)
    search = f"/api/search?q={quote_plus(args.query)}&top_k={args.top_k}"
    page = f"/?q={quote_plus(args.query)}&top_k={args.top_k}"
    with inspecting(project) as url:
        # as a browser does right after the address is printed (the server is still loading
        # the model and the make-up in the background): the page and a search, then the index
        first_search = fetch_seconds(url, ["/", "/page.js", "/page.css", search])
        first_index = fetch_seconds(url, ["/api/index"])
        searches = [fetch_seconds(url, ["/", "/page.js", "/page.css", search]) for _ in range(args.runs)]
        indexes = [fetch_seconds(url, ["/api/index"]) for _ in range(args.runs)]
        browser_seconds, dom = chromium(url.rstrip("/") + page, "--dump-dom")
        results = dom.count('class="result"')
        summary = re.search(r'id="summary"[^>]*>([^<]*)<', dom)
        print(f"index: {summary.group(1) if summary else 'not shown'}")
        print(f"page + search over HTTP: first {first_search:.3f} s, then median "
              f"{statistics.median(searches):.3f} s ({args.runs} runs)")
        print(f"/api/index (make-up, pending walk): first {first_index:.3f} s, then median "
              f"{statistics.median(indexes):.3f} s")
        print(f"headless chromium, start to rendered results ({results} shown): {browser_seconds:.2f} s")
        if args.screenshot is not None:
            args.screenshot.parent.mkdir(parents=True, exist_ok=True)
            chromium(url.rstrip("/") + page, f"--screenshot={args.screenshot.resolve()}",
                     "--window-size=1400,1000")
            print(f"screenshot: {args.screenshot}")


if __name__ == "__main__":
    main()
