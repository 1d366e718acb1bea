"""int8 quantization with per-token activation scales: close to fp32, and a token's output
never depends on the other tokens' magnitudes where its matrix reads its input alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed")
ort = pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from ragloom.embeddings.onnx_int8 import quantize_int8  # noqa: E402

INNER, OUTER = 32, 16


def _model(path: Path, opset: int = 17) -> None:
    """``alone = x @ W`` and, from a second input read twice, ``left = y @ A``, ``right = y @ B``."""
    generator = np.random.default_rng(7)
    weights = {name: generator.normal(size=(INNER, OUTER)).astype(np.float32) for name in "WAB"}
    nodes = [helper.make_node("MatMul", ["x", "W"], ["alone"], name="alone"),
             helper.make_node("MatMul", ["y", "A"], ["left"], name="left"),
             helper.make_node("MatMul", ["y", "B"], ["right"], name="right")]
    inputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, "tokens", INNER]) for name in "xy"]
    outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, "tokens", OUTER])
               for name in ("alone", "left", "right")]
    graph = helper.make_graph(nodes, "three", inputs, outputs,
                              [numpy_helper.from_array(value, name) for name, value in weights.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), str(path))


def _run(path: Path, x: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return dict(zip(("alone", "left", "right"), session.run(None, {"x": x, "y": y})))


@pytest.fixture
def tokens() -> np.ndarray:
    return np.random.default_rng(11).normal(size=(1, 6, INNER)).astype(np.float32)


@pytest.mark.parametrize(("per_token", "opset"), [("none", 17), ("unshared", 17), ("all", 17), ("all", 18)])
def test_outputs_stay_close_to_fp32(tmp_path: Path, tokens: np.ndarray, per_token: str, opset: int) -> None:
    _model(tmp_path / "fp32.onnx", opset)  # opset 18 moved ReduceMax's axes to an input
    quantize_int8(tmp_path / "fp32.onnx", tmp_path / "int8.onnx", per_token)
    exact = _run(tmp_path / "fp32.onnx", tokens, tokens)
    quantized = _run(tmp_path / "int8.onnx", tokens, tokens)
    for name in exact:
        assert quantized[name].shape == (1, 6, OUTER)
        error = np.abs(quantized[name] - exact[name]).max() / np.abs(exact[name]).max()
        assert error < 0.03, (name, error)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["fp32.onnx", "int8.onnx"]


def _others_move(path: Path, tokens: np.ndarray) -> dict[str, bool]:
    """Whether tokens 1.. change when token 0 grows a large activation."""
    loud = tokens.copy()
    loud[0, 0, 3] = 500.0
    quiet, outlier = _run(path, tokens, tokens), _run(path, loud, loud)
    return {name: not np.array_equal(quiet[name][0, 1:], outlier[name][0, 1:]) for name in quiet}


def test_a_matrix_that_reads_its_input_alone_scales_each_token_alone(tmp_path: Path,
                                                                     tokens: np.ndarray) -> None:
    _model(tmp_path / "fp32.onnx")
    moved = {}
    for per_token in ("none", "unshared", "all"):
        quantize_int8(tmp_path / "fp32.onnx", tmp_path / f"{per_token}.onnx", per_token)
        moved[per_token] = _others_move(tmp_path / f"{per_token}.onnx", tokens)
    assert moved["none"] == {"alone": True, "left": True, "right": True}
    assert moved["unshared"] == {"alone": False, "left": True, "right": True}
    assert moved["all"] == {"alone": False, "left": False, "right": False}


def test_an_unknown_choice_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="per_token must be one of .* got 'rows'"):
        quantize_int8(tmp_path / "fp32.onnx", tmp_path / "int8.onnx", "rows")
