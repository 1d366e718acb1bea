"""Faster local embeddings: the sentence-transformers model exported to ONNX and run with
ONNX Runtime, in fp32 (``onnx``) or with int8 weights (``onnx-int8``: dynamic per-channel
quantization, which CPUs with VNNI instructions run fast).

The export (``onnx_export``, which needs torch) is built once, offline, from the loaded
torch model and cached in a user folder keyed by model, backend, ragloom version and the
installed versions of the packages the export goes through (torch, transformers,
sentence-transformers, onnx), since another release of any of them may export another
graph (``$RAGLOOM_CACHE_DIR``, else ``~/.cache/ragloom``), with the tokenizer and the
model's shape; running a cached export needs only onnxruntime and ``tokenizers``. The build
happens under a file lock (two processes building at once wait for each other) into a
temporary folder that replaces the old one only when complete; a cache whose files do not
match the checksums it recorded is rebuilt. Choosing between the backends:
``bench/embedding_throughput.py``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragloom._optional import import_optional
from ragloom.embeddings.model_info import ModelInfo
from ragloom.errors import EmbeddingError
from ragloom.locking import ProcessLock
from ragloom.version import __version__

BACKENDS = ("torch", "onnx", "onnx-int8")
MANIFEST = "ragloom-onnx.json"
MODEL_FILES = {"onnx": "model.onnx", "onnx-int8": "model_int8.onnx"}
TOKENIZER_FILE = "tokenizer.json"
_VERSION = "0.5.0"  # of the export recipe and folder layout; part of the cache key with ragloom's
#: Packages whose release changes the exported graph: their versions are in the cache key.
EXPORT_PACKAGES = ("torch", "transformers", "sentence-transformers", "onnx")

logger = logging.getLogger(__name__)


def resolve_backend(backend: str) -> str:
    """``auto`` -> ``onnx-int8`` when ONNX Runtime and onnx are installed, else ``torch``."""
    if backend != "auto":
        return backend
    import importlib.util

    available = all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "onnx"))
    return "onnx-int8" if available else "torch"


def check_exportable(info: ModelInfo, model_name: str) -> None:
    """The ONNX backends rebuild the sentence-transformers pipeline as transformer + mean
    pooling (+ normalize); other pipelines are refused with the reason."""
    modules = list(info.modules)
    if modules[:2] != ["Transformer", "Pooling"] or not info.mean_pooling or set(modules[2:]) - {"Normalize"}:
        raise EmbeddingError(f"the ONNX backends need a transformer + mean pooling model; "
                             f"{model_name!r} has {modules}: use [rag.embedding] backend = \"torch\"")


def cache_root() -> Path:
    configured = os.environ.get("RAGLOOM_CACHE_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "ragloom"


def cache_folder(model_name: str, backend: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_name).strip("_")
    return cache_root() / "onnx" / f"{safe}-{backend}-{__version__}-{_VERSION}-{export_stack()}"


def export_stack() -> str:
    """A short digest of the installed versions of ``EXPORT_PACKAGES`` (missing: "-")."""
    from importlib.metadata import PackageNotFoundError, version

    versions = []
    for package in EXPORT_PACKAGES:
        try:
            versions.append(f"{package}={version(package)}")
        except PackageNotFoundError:
            versions.append(f"{package}=-")
    return hashlib.sha256(";".join(versions).encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class CachedExport:
    """A finished export: the ONNX file, the tokenizer and the model's shape."""

    model_file: Path
    tokenizer_file: Path
    info: ModelInfo


def find_export(model_name: str, backend: str) -> CachedExport | None:
    """The cached export of ``model_name`` for ``backend`` if it is complete and intact."""
    folder = cache_folder(model_name, backend)
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files = manifest["files"]
        if manifest.get("backend") != backend or set(files) != {MODEL_FILES[backend], TOKENIZER_FILE}:
            return None
        if not all(sha256_of(folder / name) == digest for name, digest in files.items()):
            return None
        return CachedExport(folder / MODEL_FILES[backend], folder / TOKENIZER_FILE,
                            ModelInfo.from_dict(manifest["model"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def ensure_export(model_name: str, backend: str, load_model: Callable[[], Any],
                  build: Callable[[Any, Path, str], None]) -> CachedExport:
    """The cached export, built first (``build(load_model(), folder, backend)``, under a
    lock; ``onnx_export.build_export``) if there is none valid. The build takes a while and
    happens once: it says so in one log line."""
    export = find_export(model_name, backend)
    if export is not None:
        return export
    folder = cache_folder(model_name, backend)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with ProcessLock(folder.parent / f"{folder.name}.lock").held():
        export = find_export(model_name, backend)  # another process may have built it meanwhile
        if export is None:
            started = time.monotonic()
            logger.info("exporting %s to ONNX (%s), once, into %s", model_name, backend, folder)
            build(load_model(), folder, backend)
            logger.warning("first use: exported the embedding model %s to ONNX (%s) in %.1f s; "
                           "cached in %s", model_name, backend, time.monotonic() - started, folder)
            export = find_export(model_name, backend)
            if export is None:
                raise EmbeddingError(f"the ONNX export in {folder} did not verify after building it")
    return export


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class OnnxEncoder:
    """Mean-pooled sentence embeddings from an exported model (what the sentence-transformers
    pipeline of all-MiniLM-L6-v2 computes: transformer, mean over tokens, normalize).

    Each text runs on its own, one per core at a time: no padding is computed, and a text's
    vector never depends on the texts beside it (int8 activations are scaled per input, so
    batching texts together would change their vectors)."""

    def __init__(self, export: CachedExport, max_seq_length: int, threads: int | None = None) -> None:
        ort = import_optional("onnxruntime", "onnx", "the ONNX embedding backends")
        tokenizers = import_optional("tokenizers", "onnx", "the ONNX embedding backends")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # parallel across texts, not inside one
        options.inter_op_num_threads = 1
        try:
            self._session = ort.InferenceSession(str(export.model_file), options,
                                                 providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise EmbeddingError(f"cannot load the ONNX model {export.model_file}: {exc}") from exc
        self.threads = max(1, threads or os.cpu_count() or 1)
        self.max_seq_length = max_seq_length
        # One tokenizer per worker, none shared with the chunker.
        self._tokenizers = [tokenizers.Tokenizer.from_file(str(export.tokenizer_file))
                            for _ in range(self.threads)]
        for tokenizer in self._tokenizers:
            tokenizer.enable_truncation(max_seq_length)
            tokenizer.no_padding()
        self._calls = threading.Lock()  # one encode at a time owns the workers' tokenizers

    def encode(self, texts: list[str], normalize: bool) -> np.ndarray:
        """Vectors of ``texts`` in order."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        workers = min(self.threads, len(texts))
        with self._calls:
            if workers == 1:  # a query: no pool to start
                parts = [self._encode_each(texts, self._tokenizers[0])]
            else:
                with ThreadPoolExecutor(workers, thread_name_prefix="ragloom-onnx") as pool:
                    parts = list(pool.map(self._encode_each,
                                          [texts[w::workers] for w in range(workers)], self._tokenizers))
        vectors = np.zeros((len(texts), parts[0].shape[1]), dtype=np.float32)
        for worker, part in enumerate(parts):
            vectors[worker::workers] = part
        if normalize:
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors

    def _encode_each(self, texts: list[str], tokenizer: Any) -> np.ndarray:
        rows = []
        for text in texts:
            encoding = tokenizer.encode(text)
            feed = {name: np.asarray([values], dtype=np.int64) for name, values in (
                ("input_ids", encoding.ids), ("attention_mask", encoding.attention_mask),
                ("token_type_ids", encoding.type_ids))}
            hidden = self._session.run(None, feed)[0]
            rows.append(hidden[0].mean(axis=0))  # no padding: every token counts
        return np.asarray(rows, dtype=np.float32)
