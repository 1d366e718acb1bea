"""What ragloom needs to know about a sentence-transformers model before running it.

Opening an index needs the model's dimension and token window, not the model: these are
read from the model folder's JSON files (or from the ONNX export's manifest), so commands
that never embed (``ragloom status``) and searches with a cached export never import torch.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: Pipeline modules whose output size the JSON files tell; any other makes the folder unreadable.
_KNOWN_MODULES = {"Transformer", "Pooling", "Normalize", "Dense"}
_POOLING_MODES = ("cls_token", "mean_tokens", "max_tokens", "mean_sqrt_len_tokens",
                  "weightedmean_tokens", "lasttoken")


@dataclass(frozen=True)
class ModelInfo:
    """A model's shape: vector size, token window, the special tokens its tokenizer adds to
    every text, its named prompts and its pipeline (module class names, mean pooling or not)."""

    dimension: int
    max_seq_length: int
    special_tokens: int
    prompts: dict[str, str] = field(default_factory=dict)
    modules: tuple[str, ...] = ()
    mean_pooling: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"modules": list(self.modules)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelInfo:
        return cls(int(data["dimension"]), int(data["max_seq_length"]), int(data["special_tokens"]),
                   {str(k): str(v) for k, v in dict(data.get("prompts") or {}).items()},
                   tuple(data.get("modules") or ()), bool(data.get("mean_pooling")))


def info_of_model(st_model: Any) -> ModelInfo:
    """The shape of a loaded sentence-transformers model."""
    modules = tuple(type(module).__name__ for module in st_model)
    pooling = st_model[1] if len(modules) > 1 else None
    mode = getattr(pooling, "pooling_mode", None)  # sentence-transformers >= 6: "mean" or a list
    if mode is not None:
        mean = mode == "mean" or (isinstance(mode, (list, tuple)) and list(mode) == ["mean"])
    else:  # older releases: one flag per mode
        mean = bool(getattr(pooling, "pooling_mode_mean_tokens", False)) and not any(
            getattr(pooling, f"pooling_mode_{name}", False) for name in ("cls_token", "max_tokens"))
    dimension_of = (getattr(st_model, "get_embedding_dimension", None)
                    or st_model.get_sentence_embedding_dimension)
    tokenizer = st_model.tokenizer
    return ModelInfo(int(dimension_of()), int(st_model.max_seq_length),
                     int(tokenizer.num_special_tokens_to_add()), dict(getattr(st_model, "prompts", {}) or {}),
                     modules, mean)


def read_model_folder(folder: Path) -> ModelInfo | None:
    """The shape of the model saved in ``folder``, from its JSON files and tokenizer.json;
    None when they do not tell it (then the model itself is loaded to find out)."""
    try:
        entries = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        modules = tuple(str(entry["type"]).rsplit(".", 1)[-1] for entry in entries)
        if not modules or modules[0] != "Transformer" or set(modules) - _KNOWN_MODULES:
            return None
        window = _json(folder / "sentence_bert_config.json").get("max_seq_length")
        if not isinstance(window, int):
            return None
        dimension, mean = _pipeline_output(folder, entries)
        special = _special_tokens(folder / "tokenizer.json")
        if dimension is None or special is None:
            return None
        prompts = _json(folder / "config_sentence_transformers.json").get("prompts") or {}
        return ModelInfo(dimension, window, special, {str(k): str(v) for k, v in prompts.items()},
                         modules, mean)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _pipeline_output(folder: Path, entries: list[dict[str, Any]]) -> tuple[int | None, bool]:
    """Vector size at the pipeline's end, and whether its pooling is mean pooling alone."""
    dimension: int | None = None
    mean = False
    for entry in entries:
        kind = str(entry["type"]).rsplit(".", 1)[-1]
        settings = _json(folder / str(entry.get("path", "")) / "config.json")
        if kind == "Pooling":
            mode = settings.get("pooling_mode")
            chosen = ([mode] if isinstance(mode, str) else list(mode)) if mode else [
                name for name in _POOLING_MODES if settings.get(f"pooling_mode_{name}")]
            chosen = ["mean" if name in ("mean", "mean_tokens") else name for name in chosen]
            mean = chosen == ["mean"]
            dimension = int(settings["word_embedding_dimension"]) * max(1, len(chosen))
        elif kind == "Dense":
            dimension = int(settings["out_features"])
    return dimension, mean


def _special_tokens(tokenizer_file: Path) -> int | None:
    """How many special tokens the tokenizer adds to one text (from its post-processor)."""
    if not tokenizer_file.is_file():
        return None
    from tokenizers import Tokenizer  # light: no torch

    processor = Tokenizer.from_file(str(tokenizer_file)).post_processor
    return 0 if processor is None else int(processor.num_special_tokens_to_add(False))


def _json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}
