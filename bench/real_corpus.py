"""Real texts and their embeddings for ``bench/postgres_scale.py --vectors real``.

Distinct short texts (6-12 words: runs of consecutive non-blank lines of Python, C,
JavaScript, Markdown, reST, man pages and package docs on this machine, cut at 12 words,
at least half letters, deduplicated) are gathered from ``--roots``, shuffled with a fixed
seed and split into the indexed corpus (``corpus.txt``, one text a line) and held-out texts
(``held_out.txt``: queries, never indexed). The corpus is embedded with ragloom's default
local provider (all-MiniLM-L6-v2, ONNX int8 export) into ``vectors.npy``, 10,000 texts at
a time: the job resumes where it stopped (``vectors.done`` holds the count embedded).

Short texts because embedding is the cost: about 250 such texts/s on this 2-core machine,
so a million take about an hour (a 300-character chunk takes several times longer).

    python bench/real_corpus.py --out DIR [--size 1000000] [--held-out 400000]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOTS = [f"{sys.prefix}/lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages",
         f"/usr/lib/python{sys.version_info.major}.{sys.version_info.minor}", "/usr/lib/python3",
         "/usr/share/doc", "/usr/share/man"]
SUFFIXES = {".py", ".md", ".rst", ".txt", ".pyi", ".c", ".h", ".js", ".ts", ".html", ".cfg",
            ".toml", ".json", ".yaml", ".yml"}
MIN_WORDS, MAX_WORDS = 6, 12
STEP = 10_000
_SPACE = re.compile(r"\s+")


def texts_under(roots: list[str]) -> Iterator[str]:
    """Distinct pieces of MIN_WORDS-MAX_WORDS words, in a fixed walk order."""
    seen: set[bytes] = set()
    for root in roots:
        for folder, subfolders, names in os.walk(root):
            subfolders.sort()
            for name in sorted(names):
                path = os.path.join(folder, name)
                if os.path.splitext(name)[1] not in SUFFIXES:
                    continue
                try:
                    if os.path.getsize(path) > 2_000_000:
                        continue
                    text = Path(path).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                words: list[str] = []
                for line in text.splitlines():
                    line = _SPACE.sub(" ", line).strip()
                    if not line:
                        words = []
                        continue
                    words.extend(line.split(" "))
                    if len(words) < MIN_WORDS:
                        continue
                    piece, words = " ".join(words[:MAX_WORDS]), []
                    if sum(c.isalpha() for c in piece) < len(piece) * 0.5:
                        continue
                    digest = hashlib.blake2b(piece.encode(), digest_size=8).digest()
                    if digest not in seen:
                        seen.add(digest)
                        yield piece


def gather(out: Path, size: int, held_out: int, roots: list[str]) -> None:
    texts: list[str] = []
    for piece in texts_under(roots):
        texts.append(piece)
        if len(texts) == size + held_out:
            break
    if len(texts) < size + held_out:
        raise SystemExit(f"only {len(texts):,} distinct texts under {roots}")
    random.Random(30).shuffle(texts)
    (out / "corpus.txt").write_text("\n".join(texts[:size]) + "\n", encoding="utf-8")
    (out / "held_out.txt").write_text("\n".join(texts[size:]) + "\n", encoding="utf-8")


def embed(out: Path) -> None:
    """Embed corpus.txt into vectors.npy, resuming after the last finished step."""
    from ragloom.embeddings.local import LocalEmbeddingProvider

    texts = (out / "corpus.txt").read_text(encoding="utf-8").splitlines()
    provider = LocalEmbeddingProvider()
    path, done_path = out / "vectors.npy", out / "vectors.done"
    vectors = (np.load(path, mmap_mode="r+") if path.exists() else np.lib.format.open_memmap(
        path, mode="w+", dtype=np.float32, shape=(len(texts), provider.dimension)))
    done = int(done_path.read_text()) if done_path.exists() else 0
    started, first = time.perf_counter(), done
    while done < len(texts):
        stop = min(len(texts), done + STEP)
        vectors[done:stop] = provider.embed_documents(texts[done:stop])
        vectors.flush()
        done = stop
        done_path.with_suffix(".tmp").write_text(str(done))
        done_path.with_suffix(".tmp").replace(done_path)
        rate = (done - first) / (time.perf_counter() - started)
        print(f"{time.strftime('%H:%M:%S')} {done:,} embedded, {rate:.0f} texts/s, "
              f"load {os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--held-out", type=int, default=400_000)
    parser.add_argument("--roots", nargs="+", default=ROOTS)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if not (args.out / "corpus.txt").exists():
        gather(args.out, args.size, args.held_out, args.roots)
    embed(args.out)


if __name__ == "__main__":
    main()
