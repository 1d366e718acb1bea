"""The ONNX Runtime backends of the local provider: vectors close to torch's, the exported
model cached and rebuilt when corrupt, two processes building it at once, and switching
backend keeps the index (one vector space) while the cache keeps each backend's vectors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sentence_transformers")
pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")
pytest.importorskip("onnx", reason="the onnx extra is not installed")

from helpers import write  # noqa: E402
from ragloom import RAGConfig, RAGEngine  # noqa: E402
from ragloom.embeddings.local import LocalEmbeddingProvider  # noqa: E402
from ragloom.embeddings.onnx_backend import (  # noqa: E402
    MANIFEST,
    MODEL_FILES,
    TOKENIZER_FILE,
    cache_folder,
    resolve_backend,
)
from ragloom.testing.embeddings import EmbedderConformance  # noqa: E402

TEXTS = ["Lift grows with the angle of attack until the wing stalls.",
         "def parse_config(text):\n    return dict(line.split('=') for line in text.splitlines())",
         "Boundary layers thicken downstream of the leading edge of a flat plate.",
         "How do I wrap a paragraph to 40 columns?", "x", "Rockets carry satellites into orbit."]


@pytest.mark.slow
def test_vectors_stay_close_to_torch(onnx_cache: Path) -> None:
    reference = LocalEmbeddingProvider(backend="torch").embed(TEXTS)
    for backend, mean_floor, min_floor in (("onnx", 0.9999, 0.9999), ("onnx-int8", 0.995, 0.985)):
        provider = LocalEmbeddingProvider(backend=backend)
        assert provider.model_name == "all-MiniLM-L6-v2"  # one vector space, whatever the backend
        assert f"backend={backend};" in provider.vector_settings()
        cosines = np.sum(reference * provider.embed(TEXTS), axis=1)
        assert cosines.mean() >= mean_floor and cosines.min() >= min_floor, (backend, cosines)
        query = np.dot(LocalEmbeddingProvider(backend="torch").embed_query(TEXTS[3]),
                       provider.embed_query(TEXTS[3]))
        assert query >= min_floor
    assert resolve_backend("auto") == "onnx-int8"


@pytest.mark.slow
def test_the_cache_is_reused_and_a_corrupt_one_rebuilt(onnx_cache: Path) -> None:
    LocalEmbeddingProvider(backend="onnx-int8").embed(TEXTS[:1])  # the first use builds it
    folder = cache_folder("all-MiniLM-L6-v2", "onnx-int8")
    manifest = folder / MANIFEST
    built_at = manifest.stat().st_mtime_ns
    LocalEmbeddingProvider(backend="onnx-int8").embed(TEXTS[:1])
    assert manifest.stat().st_mtime_ns == built_at  # reused
    model = folder / MODEL_FILES["onnx-int8"]
    data = model.read_bytes()
    model.write_bytes(data[: len(data) // 2])  # a half-written or damaged file
    provider = LocalEmbeddingProvider(backend="onnx-int8")
    vector = provider.embed(TEXTS[:1])
    assert model.stat().st_size == len(data) and manifest.stat().st_mtime_ns != built_at
    reference = LocalEmbeddingProvider(backend="torch").embed(TEXTS[:1])
    assert float(np.sum(reference * vector)) > 0.97
    assert set(json.loads(manifest.read_text())["files"]) == {MODEL_FILES["onnx-int8"], TOKENIZER_FILE}


BUILD = """
import os, sys
import numpy as np
os.environ["RAGLOOM_CACHE_DIR"] = sys.argv[1]
from ragloom.embeddings.local import LocalEmbeddingProvider
vector = LocalEmbeddingProvider(backend="onnx-int8").embed(["Rockets carry satellites into orbit."])[0]
np.save(sys.argv[2], vector)
"""


@pytest.mark.slow
def test_two_processes_building_at_once(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    builders = [subprocess.Popen([sys.executable, "-c", BUILD, str(cache), str(tmp_path / f"v{i}.npy")],
                                 env={**os.environ, "HF_HUB_OFFLINE": "1"}) for i in range(2)]
    assert [builder.wait(timeout=300) for builder in builders] == [0, 0]
    first, second = (np.load(tmp_path / f"v{i}.npy") for i in range(2))
    assert np.array_equal(first, second)
    folders = [p.name for p in (cache / "onnx").iterdir() if p.is_dir()]
    assert len(folders) == 1 and not folders[0].startswith(".")  # no staging folder left


@pytest.mark.slow
def test_switching_backend_keeps_the_index_and_caches_each_backend_apart(
        onnx_cache: Path, tmp_path: Path) -> None:
    """The backend is not the index's identity (``auto`` resolves to what each machine has
    installed, and int8 vectors live in torch's space): a switch keeps the index; a changed
    file is embedded by the new backend, whose vectors the cache keeps apart."""
    for index in range(3):
        write(tmp_path, f"notes/n{index}.md", f"# Note {index}\nwing number {index} and its lift\n")
    # (backend, file rewritten first, files indexed, chunks embedded)
    for backend, rewrite, indexed, embedded in (
            ("torch", None, 3, 3), ("onnx-int8", None, 0, 0), ("onnx-int8", 1, 1, 1),
            ("torch", 2, 1, 1), ("onnx-int8", 2, 1, 1)):
        if rewrite is not None:
            path = tmp_path / f"notes/n{rewrite}.md"
            path.write_text(path.read_text(encoding="utf-8") + f"drag under {backend}\n", encoding="utf-8")
        config = RAGConfig(embedding={"provider": "local", "backend": backend},
                           vector_store={"provider": "turboquant"})
        with RAGEngine(config, tmp_path) as engine:
            report = engine.index_directory()
            assert (report.files_indexed, report.chunks_embedded) == (indexed, embedded), backend
            assert engine.verify().ok and engine.count() == 3


@pytest.mark.slow
def test_a_vector_never_depends_on_the_texts_beside_it(onnx_cache: Path) -> None:
    """int8 activations are scaled per input, so each text runs on its own: the same text
    gets the same vector alone, in any batch, as a query or in a reversed list."""
    provider = LocalEmbeddingProvider(backend="onnx-int8", batch_size=4)
    together = provider.embed(TEXTS)
    assert np.array_equal(provider.embed(TEXTS[::-1])[::-1], together)
    for index, text in enumerate(TEXTS):
        assert np.array_equal(provider.embed([text])[0], together[index])
    assert np.array_equal(provider.embed_query(TEXTS[3]), together[3])  # no query prompt here


class TestOnnxInt8Conformance(EmbedderConformance):
    """The contract every embedder keeps, for the int8 backend."""

    @pytest.fixture
    def provider(self, onnx_cache: Path) -> LocalEmbeddingProvider:
        return LocalEmbeddingProvider(backend="onnx-int8")


def test_the_export_cache_key_names_the_packages_the_export_goes_through(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new torch, transformers, sentence-transformers or onnx may export another graph:
    the cached model of the old release is not reused."""
    import importlib.metadata

    real = importlib.metadata.version
    before = cache_folder("all-MiniLM-L6-v2", "onnx-int8")
    for package in ("torch", "transformers", "sentence-transformers", "onnx"):
        monkeypatch.setattr(importlib.metadata, "version",
                            lambda name, package=package: "99.0" if name == package else real(name))
        assert cache_folder("all-MiniLM-L6-v2", "onnx-int8") != before, package
    monkeypatch.setattr(importlib.metadata, "version", real)
    assert cache_folder("all-MiniLM-L6-v2", "onnx-int8") == before
