"""int8 weights for an exported model, with each token's activations scaled on their own.

ONNX Runtime's dynamic quantization gives a matrix's whole input one scale, so a few large
activations (BERT models have them, on a few tokens) blur every other token. Here a
matrix that alone reads its input gets per-token scales instead: each row of the input is
quantized with its own largest magnitude (``QuantizeLinear`` along the rows), multiplied
in int8 (``MatMulInteger``) and scaled back by row and column. Matrices that share an
input (an attention's query, key and value) keep one dynamic quantization of it: measured,
per-token scales there cost more time than they win (``bench/int8_quantization.py``).
Weights are int8 per output column either way.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

from ragloom._optional import import_optional

#: Which matrices get per-token activation scales: ``none`` (all dynamic per input, as
#: ONNX Runtime's quantize_dynamic does), ``unshared`` (those that alone read their input;
#: the default) or ``all``.
PER_TOKEN_CHOICES = ("none", "unshared", "all")
_INT8_MAX = 127.0


def quantize_int8(source: Path, target: Path, per_token: str = "unshared") -> None:
    """Write ``source`` (an fp32 ONNX model) to ``target`` with int8 matrices."""
    if per_token not in PER_TOKEN_CHOICES:
        raise ValueError(f"per_token must be one of {PER_TOKEN_CHOICES}, got {per_token!r}")
    onnx = import_optional("onnx", "onnx", "the onnx-int8 backend")
    quantization = import_optional("onnxruntime.quantization", "onnx", "the onnx-int8 backend")
    model = onnx.load(str(source))
    graph = model.graph
    weights = {initializer.name: initializer for initializer in graph.initializer}
    matrices = [node for node in graph.node if node.op_type == "MatMul" and node.input[1] in weights
                and len(weights[node.input[1]].dims) == 2]
    readers: dict[str, int] = {}
    for node in matrices:
        readers[node.input[0]] = readers.get(node.input[0], 0) + 1
    chosen = {node.output[0] for node in matrices  # a node's output names it
              if per_token == "all" or (per_token == "unshared" and readers[node.input[0]] == 1)}
    opset = next(entry.version for entry in model.opset_import if entry.domain in ("", "ai.onnx"))
    nodes = []
    for node in graph.node:
        if node.op_type == "MatMul" and node.output[0] in chosen:
            nodes.extend(_per_token_matmul(onnx, graph, node, weights[node.input[1]], opset))
        else:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    rewritten = target.with_name(target.name + ".per-token.onnx")
    onnx.save(model, str(rewritten))
    logging.disable(logging.WARNING)  # its advice to pre-process, logged on the root logger
    try:  # the MatMuls left: dynamic per input, weights per column
        quantization.quantize_dynamic(str(rewritten), str(target), per_channel=True,
                                      weight_type=quantization.QuantType.QInt8)
    finally:
        logging.disable(logging.NOTSET)
        rewritten.unlink(missing_ok=True)


def _per_token_matmul(onnx: Any, graph: Any, node: Any, weight: Any, opset: int) -> list[Any]:
    """Nodes computing ``node``'s MatMul with int8 weights and one activation scale per row
    (symmetric: zero point 128 in uint8, the fast kernel on x86)."""
    numpy_helper, helper = onnx.numpy_helper, onnx.helper
    matrix = numpy_helper.to_array(weight).astype(np.float32)
    inner, outer = matrix.shape
    column_scales = np.maximum(np.abs(matrix).max(axis=0), 1e-12) / _INT8_MAX
    matrix_int8 = np.clip(np.round(matrix / column_scales), -_INT8_MAX, _INT8_MAX).astype(np.int8)
    prefix = (node.name or node.output[0]) + "/per_token"

    def constant(suffix: str, value: np.ndarray) -> str:
        graph.initializer.append(numpy_helper.from_array(value, prefix + suffix))
        return prefix + suffix

    def step(op: str, inputs: list[str], suffix: str, **attributes: Any) -> Any:
        return helper.make_node(op, inputs, [prefix + suffix], name=prefix + suffix, **attributes)

    x = node.input[0]
    row_axis = np.array([1], dtype=np.int64)
    if opset >= 18:  # axes became an input in opset 18
        row_max = step("ReduceMax", [prefix + "/magnitudes", constant("/row_axis", row_axis)], "/row_max",
                       keepdims=0)
    else:
        row_max = step("ReduceMax", [prefix + "/magnitudes"], "/row_max", axes=[1], keepdims=0)
    zero_point = constant("/zero_point", np.array(128, dtype=np.uint8))
    return [
        step("Reshape", [x, constant("/rows_shape", np.array([-1, inner], dtype=np.int64))], "/rows"),
        step("Abs", [prefix + "/rows"], "/magnitudes"),
        row_max,
        step("Max", [prefix + "/row_max", constant("/tiny", np.array(1e-12, dtype=np.float32))],
             "/row_max_positive"),
        step("Mul", [prefix + "/row_max_positive",
                     constant("/per_level", np.array(1.0 / _INT8_MAX, dtype=np.float32))], "/row_scales"),
        step("Shape", [prefix + "/row_scales"], "/rows_count"),
        step("Expand", [zero_point, prefix + "/rows_count"], "/row_zero_points"),
        step("QuantizeLinear", [prefix + "/rows", prefix + "/row_scales", prefix + "/row_zero_points"],
             "/rows_uint8", axis=0),
        step("MatMulInteger", [prefix + "/rows_uint8", constant("/weight_int8", matrix_int8), zero_point],
             "/product_int32"),
        step("Cast", [prefix + "/product_int32"], "/product", to=onnx.TensorProto.FLOAT),
        step("Unsqueeze", [prefix + "/row_scales", constant("/column_axis", row_axis)], "/row_scales_column"),
        step("Mul", [prefix + "/product", prefix + "/row_scales_column"], "/row_scaled"),
        step("Mul", [prefix + "/row_scaled", constant("/column_scales", column_scales.astype(np.float32))],
             "/rows_out"),
        step("Shape", [x], "/input_shape"),
        step("Slice", [prefix + "/input_shape", constant("/first", np.array([0], dtype=np.int64)),
                       constant("/last", np.array([-1], dtype=np.int64))], "/leading_shape"),
        step("Concat", [prefix + "/leading_shape", constant("/outer", np.array([outer], dtype=np.int64))],
             "/output_shape", axis=0),
        helper.make_node("Reshape", [prefix + "/rows_out", prefix + "/output_shape"], [node.output[0]],
                         name=prefix + "/output"),
    ]
