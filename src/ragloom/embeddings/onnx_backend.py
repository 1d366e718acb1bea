"""Faster local embeddings: the sentence-transformers model exported to ONNX and run with
ONNX Runtime, in fp32 (``onnx``) or with int8 weights (``onnx-int8``: dynamic per-channel
quantization, which CPUs with VNNI instructions run fast).

The export uses the transformer's plain ("eager") attention, whose graph ONNX Runtime fuses
into its own kernels. int8 scales most matrices' activations per token (``onnx_int8``).

The exported model is built once, offline, from the loaded torch model and cached in a
user folder keyed by model, backend, ragloom version and the installed versions of the
packages the export goes through (torch, transformers, sentence-transformers, onnx), since
another release of any of them may export another graph (``$RAGLOOM_CACHE_DIR``, else
``~/.cache/ragloom``). The build happens under a file lock (two processes building at
once wait for each other) into a temporary folder that replaces the old one only when
complete; a cache whose files do not match the checksums it recorded is rebuilt.
Choosing between the backends: ``bench/embedding_throughput.py``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from ragloom._optional import import_optional
from ragloom.embeddings.onnx_int8 import quantize_int8
from ragloom.errors import EmbeddingError
from ragloom.locking import ProcessLock

BACKENDS = ("torch", "onnx", "onnx-int8")
MANIFEST = "ragloom-onnx.json"
MODEL_FILES = {"onnx": "model.onnx", "onnx-int8": "model_int8.onnx"}
_VERSION = "0.4.0"  # of this file's export recipe; part of the cache key with ragloom's
#: Packages whose release changes the exported graph: their versions are in the cache key.
EXPORT_PACKAGES = ("torch", "transformers", "sentence-transformers", "onnx")


def resolve_backend(backend: str) -> str:
    """``auto`` -> ``onnx-int8`` when ONNX Runtime and onnx are installed, else ``torch``."""
    if backend != "auto":
        return backend
    import importlib.util

    available = all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "onnx"))
    return "onnx-int8" if available else "torch"


def check_exportable(st_model: Any, model_name: str) -> None:
    """The ONNX backends rebuild the sentence-transformers pipeline as transformer + mean
    pooling (+ normalize); other pipelines are refused with the reason."""
    modules = [type(module).__name__ for module in st_model]
    pooling = st_model[1] if len(modules) > 1 else None
    mode = getattr(pooling, "pooling_mode", None)  # sentence-transformers >= 6: "mean" or a list
    if mode is not None:
        mean = mode == "mean" or (isinstance(mode, (list, tuple)) and list(mode) == ["mean"])
    else:  # older releases: one flag per mode
        mean = bool(getattr(pooling, "pooling_mode_mean_tokens", False)) and not any(
            getattr(pooling, f"pooling_mode_{name}", False) for name in ("cls_token", "max_tokens"))
    if modules[:2] != ["Transformer", "Pooling"] or not mean or set(modules[2:]) - {"Normalize"}:
        raise EmbeddingError(f"the ONNX backends need a transformer + mean pooling model; "
                             f"{model_name!r} has {modules}: use embedding_backend = \"torch\"")


def cache_root() -> Path:
    configured = os.environ.get("RAGLOOM_CACHE_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "ragloom"


def cache_folder(model_name: str, backend: str) -> Path:
    from importlib.metadata import PackageNotFoundError, version

    try:
        ragloom_version = version("ragloom")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        ragloom_version = "source"
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_name).strip("_")
    return cache_root() / "onnx" / f"{safe}-{backend}-{ragloom_version}-{_VERSION}-{export_stack()}"


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


def cached_model_file(st_model: Any, model_name: str, backend: str) -> Path:
    """The ONNX file for ``backend``, built from ``st_model`` unless a valid one is cached."""
    folder = cache_folder(model_name, backend)
    lock = ProcessLock(folder.parent / f"{folder.name}.lock")
    with lock.held():
        if not _valid(folder, backend):
            _build(st_model, folder, backend)
    return folder / MODEL_FILES[backend]


def _valid(folder: Path, backend: str) -> bool:
    """Whether the folder holds a finished build whose files match their checksums."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        return manifest.get("backend") == backend and all(
            _sha256(folder / name) == digest for name, digest in manifest["files"].items())
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _build(st_model: Any, folder: Path, backend: str) -> None:
    torch = import_optional("torch", "local", "exporting the model to ONNX")
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        exported = staging / MODEL_FILES["onnx"]
        _export(torch, st_model, exported)
        files = [exported]
        if backend == "onnx-int8":
            quantized = staging / MODEL_FILES["onnx-int8"]
            quantize_int8(exported, quantized)
            exported.unlink()
            files = [quantized]
        manifest = {"backend": backend, "files": {f.name: _sha256(f) for f in files}}
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        if folder.exists():
            shutil.rmtree(folder)  # our own cache folder, found incomplete or corrupt
        os.replace(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _export(torch: Any, st_model: Any, target: Path) -> None:
    """The transformer of ``st_model`` as ONNX: token ids in, last hidden states out."""
    transformer = st_model[0].auto_model
    attention = getattr(transformer.config, "_attn_implementation", None)
    switch = attention not in (None, "eager") and hasattr(transformer, "set_attn_implementation")
    if switch:
        transformer.set_attn_implementation("eager")
    try:
        _export_graph(torch, transformer, st_model.tokenizer, target)
    finally:
        if switch:
            transformer.set_attn_implementation(attention)


def _export_graph(torch: Any, transformer: Any, tokenizer: Any, target: Path) -> None:

    class HiddenStates(torch.nn.Module):  # keyword call: the model's positional order varies
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    sample = tokenizer(["a short text", "a somewhat longer text to export"], padding=True,
                       return_tensors="pt", return_token_type_ids=True)
    dynamic = {name: {0: "batch", 1: "tokens"}
               for name in ("input_ids", "attention_mask", "token_type_ids", "last_hidden_state")}
    import warnings

    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(HiddenStates(transformer.eval()),
                          (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
                          str(target), input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["last_hidden_state"], dynamic_axes=dynamic, opset_version=17,
                          dynamo=False)


def _sha256(path: Path) -> str:
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

    def __init__(self, model_file: Path, tokenizer: Any, max_seq_length: int,
                 threads: int | None = None) -> None:
        ort = import_optional("onnxruntime", "onnx", "the ONNX embedding backends")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # parallel across texts, not inside one
        options.inter_op_num_threads = 1
        try:
            self._session = ort.InferenceSession(str(model_file), options,
                                                 providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise EmbeddingError(f"cannot load the ONNX model {model_file}: {exc}") from exc
        self.threads = max(1, threads or os.cpu_count() or 1)
        # One tokenizer per worker (fast tokenizers are not thread-safe), none shared with
        # the chunker, which tokenizes the next files meanwhile.
        self._tokenizers = [copy.deepcopy(tokenizer) for _ in range(self.threads)]
        self._calls = threading.Lock()  # one encode at a time owns the workers' tokenizers
        self.max_seq_length = max_seq_length

    def encode(self, texts: list[str], normalize: bool) -> np.ndarray:
        """Vectors of ``texts`` in order."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        workers = min(self.threads, len(texts))
        with self._calls, ThreadPoolExecutor(workers, thread_name_prefix="ragloom-onnx") as pool:
            parts = list(pool.map(self._encode_each, [texts[w::workers] for w in range(workers)],
                                  self._tokenizers))
        vectors = np.zeros((len(texts), parts[0].shape[1]), dtype=np.float32)
        for worker, part in enumerate(parts):
            vectors[worker::workers] = part
        if normalize:
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors

    def _encode_each(self, texts: list[str], tokenizer: Any) -> np.ndarray:
        rows = []
        for text in texts:
            tokens = tokenizer(text, truncation=True, max_length=self.max_seq_length,
                               return_tensors="np", return_token_type_ids=True)
            hidden = self._session.run(None, {name: tokens[name].astype(np.int64) for name in
                                              ("input_ids", "attention_mask", "token_type_ids")})[0]
            rows.append(hidden[0].mean(axis=0))  # no padding: every token counts
        return np.asarray(rows, dtype=np.float32)
