"""Chunk sizes in the embedding model's tokens: defaults, the unit rule, and the window."""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import ConfigError, RAGConfig, RAGEngine
from ragloom.chunking.context import HEADER_TOKENS
from ragloom.chunking.measure import TokenMeasure
from ragloom.chunking.registry import FileChunker
from ragloom.chunking.sizing import resolve_chunk_sizing


def word_measure(window: int) -> TokenMeasure:
    """Tokens = whitespace-separated words (a stand-in tokenizer with exact offsets)."""

    def token_ends(texts: list[str]) -> list[list[int]]:
        ends = []
        for text in texts:
            words, position = [], 0
            for word in text.split():
                position = text.index(word, position) + len(word)
                words.append(position)
            ends.append(words)
        return ends

    return TokenMeasure(token_ends, window, f"words/{window}")


def test_default_size_is_the_model_window_in_tokens_less_the_header() -> None:
    sizing = resolve_chunk_sizing(RAGConfig(), word_measure(254))
    assert (sizing.unit, sizing.size, sizing.overlap) == ("tokens", 254 - HEADER_TOKENS, 46)
    bare = resolve_chunk_sizing(RAGConfig(chunking={"embed_header": False}), word_measure(254))
    assert (bare.unit, bare.size, bare.overlap) == ("tokens", 254, 50)


def test_without_a_tokenizer_sizes_stay_in_characters() -> None:
    sizing = resolve_chunk_sizing(RAGConfig(embedding={"provider": "hash"}), None)
    assert (sizing.unit, sizing.size, sizing.overlap) == ("characters", 1000, 200)


def test_chunk_size_alone_keeps_meaning_characters() -> None:
    sizing = resolve_chunk_sizing(RAGConfig(chunk_size=500), word_measure(254))
    assert (sizing.unit, sizing.size, sizing.overlap) == ("characters", 500, 100)
    tokens = resolve_chunk_sizing(RAGConfig(chunk_unit="tokens", chunk_size=128, chunk_overlap=16),
                                  word_measure(254))
    assert (tokens.unit, tokens.size, tokens.overlap) == ("tokens", 128, 16)


def test_a_size_beyond_the_window_is_refused_naming_key_and_window() -> None:
    with pytest.raises(ConfigError, match=r"'chunk_size' = 300: longer than the 254 tokens"):
        resolve_chunk_sizing(RAGConfig(chunk_unit="tokens", chunk_size=300), word_measure(254))
    with pytest.raises(ConfigError, match=r"'chunk_size' = 240: .* reads minus 24 for the chunk header"):
        resolve_chunk_sizing(RAGConfig(chunk_unit="tokens", chunk_size=240), word_measure(254))


def test_tokens_without_a_tokenizer_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"'chunk_unit' = 'tokens'.*'hash' has no local tokenizer"):
        resolve_chunk_sizing(RAGConfig(embedding={"provider": "hash"}, chunk_unit="tokens"), None)


def test_overlap_above_the_resolved_size_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"chunk_overlap \(1500\) must be smaller than chunk_size \(1000\)"):
        resolve_chunk_sizing(RAGConfig(chunk_overlap=1500, embedding={"provider": "hash"}), None)


def test_every_chunker_holds_chunks_to_the_token_window() -> None:
    measure = word_measure(40)
    chunker = FileChunker(hash_config(), resolve_chunk_sizing(RAGConfig(), measure))
    text = "".join(f"def f{i}(a, b):\n    return a + b * {i} - a / b\n\n\n" for i in range(30))
    text += "".join(f"line {i} of prose " * 3 + "\n" for i in range(40))
    for path in ("m.py", "n.md", "o.txt"):
        chunks = chunker.chunk(text, path)
        assert chunks
        assert all(measure.count(c.text) <= 40 for c in chunks), path


@pytest.mark.slow
def test_with_the_real_model_no_chunk_is_longer_than_its_window(tmp_path: Path) -> None:
    """Default settings with all-MiniLM-L6-v2: every chunk of real code and docs, with the
    header the model reads in front, fits the model's 254-token window (256 minus [CLS] and
    [SEP]), counted by its own tokenizer."""
    pytest.importorskip("sentence_transformers")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    project = tmp_path / "p"
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in ("argparse.py", "dataclasses.py", "json/decoder.py"):
        write(project, name, (stdlib / name).read_text(encoding="utf-8"))
    import sentence_transformers

    readme = next(Path(sentence_transformers.__file__).parent.rglob("*.md"), None)
    if readme is not None:
        write(project, "docs/card.md", readme.read_text(encoding="utf-8"))
    config = RAGConfig(embedding={"provider": "local"}, vector_store={"provider": "memory"})
    with RAGEngine(config, project) as engine:
        sizing = engine._sizing
        assert (sizing.unit, sizing.size) == ("tokens", 254 - HEADER_TOKENS)
        chunks = [c for name in ("argparse.py", "dataclasses.py", "json/decoder.py", "docs/card.md")
                  if (project / name).is_file()
                  for c in engine._indexer.chunker.chunk((project / name).read_text(), name)]
        from tokenizers import Tokenizer

        from ragloom.embeddings.local import packaged_model_path

        tokenizer = Tokenizer.from_file(str(packaged_model_path() / "tokenizer.json"))  # the model's own
        read = [engine._indexer.text_of(c.text, {**c.metadata, "source": "file"}) for c in chunks]
        # the header names the file (a header over its budget drops leading folders first)
        assert all(c.metadata["path"].endswith(text.split("\n", 1)[0].split(": ", 1)[0])
                   and text.split("\n", 1)[0].split(": ", 1)[0].endswith(Path(c.metadata["path"]).name)
                   for text, c in zip(read, chunks))
        lengths = [len(tokenizer.encode(text, add_special_tokens=False).ids) for text in read]
        assert len(chunks) > 100
        assert max(lengths) <= 254
