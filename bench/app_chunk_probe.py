"""What ragloom's defaults make of an application checkout, file type by file type, without
embedding anything: which files the walk skips and why, each extension's ``language`` /
``source_type`` / chunker, the chunks that answer nothing (a lone pragma or comment, an
import run), and the files slowest to chunk per byte (a superlinear chunker shows there).
Issue 36's attack from outside (docs/benchmarks.md, "Four stacks not measured before").

    HF_HUB_OFFLINE=1 nice -n 10 python bench/app_chunk_probe.py /path/to/checkout [--top 8]

The checkout is not written to (the engine opens a throw-away index in a temp folder).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path, PurePath

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ragloom import RAGConfig, RAGEngine  # noqa: E402
from ragloom.indexing.reading import SkipFile, read_file  # noqa: E402

#: Lines that carry no code: comments, a shebang, ``<?php``, directive strings.
_NOT_CODE = re.compile(r"""^\s*(#|//|/\*|\*|--|<\?php\b|(["'])use [\w ]+\2;?\s*$)""")


def file_type(path: str) -> str:
    """``.html.erb``, ``.blade.php``, ``.tsx``, or the whole name when it has no suffix."""
    pure = PurePath(path)
    if len(pure.suffixes) >= 2 and pure.suffixes[-1] in (".erb", ".twig", ".php", ".builder"):
        return "".join(pure.suffixes[-2:])
    return pure.suffix or pure.name


def answers_nothing(metadata: dict[str, object], text: str) -> bool:
    """A code chunk of nothing but comments and pragmas (a lone ``"use client"``)."""
    lines = [line for line in text.splitlines() if line.strip()]
    return metadata.get("chunker") == "tree_sitter" and metadata.get("kind") in ("module", None) \
        and bool(lines) and all(_NOT_CODE.match(line) for line in lines)


def probe(root: Path, top: int) -> None:
    with tempfile.TemporaryDirectory() as work:
        engine = RAGEngine(RAGConfig(index_dir=str(Path(work) / "index")), base_dir=root)
        indexer = engine._indexer  # the engine's own reader, chunker and source types (a bench may peek)
        found = indexer.rules.discover(root)
        print(f"{root.name}: {len(found.files)} files to index, {len(found.skipped)} skipped")
        for reason, count in Counter(skip.reason for skip in found.skipped).most_common():
            print(f"  skipped {count:4}  {reason}")
        types: dict[str, Counter[tuple[object, object, object]]] = defaultdict(Counter)
        timings, idle, imports, total = [], [], 0, 0
        for path in found.files:
            relative = path.relative_to(root).as_posix()
            try:
                content = read_file(path, relative, indexer.max_file_bytes, indexer.readers)
            except SkipFile:
                continue
            started = time.perf_counter()
            chunks = indexer._chunk(relative, content, [])
            timings.append((time.perf_counter() - started, len(content.text), relative))
            for chunk in chunks:
                meta = chunk.metadata
                types[file_type(relative)][(meta.get("language"), meta.get("source_type"),
                                            meta.get("chunker"))] += 1
                imports += meta.get("kind") == "imports"
                if answers_nothing(meta, chunk.text):
                    idle.append(f"{relative}:{meta['start_line']}-{meta['end_line']}")
            total += len(chunks)
        engine.close()
    print(f"chunks: {total}; import runs: {imports}; comment/pragma-only code chunks: {len(idle)}")
    for name, counts in sorted(types.items(), key=lambda item: -sum(item[1].values()))[:top * 3]:
        shapes = "; ".join(f"{lang}/{kind}/{chunker}: {n}" for (lang, kind, chunker), n
                           in counts.most_common(3))
        print(f"  {name:18} {sum(counts.values()):5}  {shapes}")
    print("  e.g. " + ", ".join(idle[:top]) if idle else "")
    print("slowest to chunk per byte (files over 2 kB):")
    for seconds, size, relative in sorted((t for t in timings if t[1] > 2000),
                                          key=lambda t: -t[0] / t[1])[:top]:
        print(f"  {seconds * 1e6 / size:7.1f} us/B {size:9} B  {relative}")
    print(f"largest: {max(timings, key=lambda t: t[1])[1]} B in "
          f"{max(timings, key=lambda t: t[1])[0]:.2f} s; all: {sum(t[0] for t in timings):.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=8)
    args = parser.parse_args()
    for root in args.checkouts:
        if not root.is_dir():
            sys.exit(f"{root}: not a folder")
        probe(root.resolve(), args.top)


if __name__ == "__main__":
    main()
