"""One huge single-line file (minified code, a data dump): time of each indexing stage by size.

Writes a file of N MB on one line (words separated by ``;``), then times reading, secret
redaction, chunking (characters, and with ``--tokens`` the local model's tokenizer) and the
whole ``index_directory`` with the hash embedder. Each stage should grow linearly: the
seconds per MB column stays flat. Issue 27 found chunking quadratic (each window measured
the whole rest of the line).

    python bench/long_line.py [--sizes 8 16 24 50] [--tokens] [--skip-index]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from ragloom import RAGConfig, RAGEngine
from ragloom.chunking.character import CharacterChunker
from ragloom.chunking.measure import TextMeasure
from ragloom.indexing.reading import read_file
from ragloom.readers.registry import FileReaders
from ragloom.security import redact_secrets


def long_line(megabytes: float, seed: int = 0) -> str:
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(2, 9)))
             for _ in range(5000)]
    parts, size = [], 0
    while size < megabytes * 1e6:
        word = rng.choice(words)
        parts.append(word)
        size += len(word) + 1
    return ";".join(parts)


def token_measure() -> TextMeasure:
    from ragloom.embeddings.local import LocalEmbeddingProvider

    measure = LocalEmbeddingProvider(backend="torch").token_measure()
    assert measure is not None
    return measure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[8, 16, 24, 50])
    parser.add_argument("--tokens", action="store_true", help="also chunk in the model's tokens")
    parser.add_argument("--skip-index", action="store_true", help="stages only")
    args = parser.parse_args()
    measure = token_measure() if args.tokens else None
    config = RAGConfig(embedding={"provider": "hash"}, max_file_bytes=1 << 31,
                       vector_store={"provider": "turboquant"})
    print(f"{'MB':>5} {'read s':>8} {'redact s':>9} {'chunk s':>8} {'tokens s':>9} "
          f"{'index s':>8} {'index s/MB':>10} {'chunks':>7}")
    for megabytes in args.sizes:
        text = long_line(megabytes)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "bundle.min.js"
            path.write_text(text, encoding="utf-8")
            started = time.perf_counter()
            content = read_file(path, path.name, 1 << 31, FileReaders(config))
            read = time.perf_counter() - started
            started = time.perf_counter()
            redacted = redact_secrets(content.text).text
            redact = time.perf_counter() - started
            started = time.perf_counter()
            chunks = CharacterChunker(1000, 200).chunk(redacted, path.name)
            chunk = time.perf_counter() - started
            tokens = float("nan")
            if measure is not None:
                started = time.perf_counter()
                CharacterChunker(256, 51, measure=measure).chunk(redacted, path.name)
                tokens = time.perf_counter() - started
            index = float("nan")
            if not args.skip_index:
                with RAGEngine(config, folder) as engine:
                    started = time.perf_counter()
                    engine.index_directory()
                    index = time.perf_counter() - started
        print(f"{megabytes:5.0f} {read:8.2f} {redact:9.2f} {chunk:8.2f} {tokens:9.2f} "
              f"{index:8.1f} {index / megabytes:10.2f} {len(chunks):7d}", flush=True)


if __name__ == "__main__":
    main()
