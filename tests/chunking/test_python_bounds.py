"""Issue 26: no degenerate chunk, whatever the Python code. The bounds of
``code_properties`` hold on popular typed packages, on generated adversarial files and on
random modules hypothesis builds."""

from __future__ import annotations

import ast
import threading

import pytest
from code_properties import (
    PACKAGES,
    check_code_chunks,
    check_definition_bounds,
    package_files,
    read_sources,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from properties import PYTHON_STRUCTURE_LINE

from ragloom.chunking.python_ast import PythonAstChunker, parse_python

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")


def check_file(source: str, window: int, structure: bool = True) -> int:
    chunks = PythonAstChunker(window, window // 5).chunk(source, "m.py")
    check_code_chunks(chunks, source, window, PYTHON_STRUCTURE_LINE if structure else None)
    assert all(c.metadata["chunker"] == "python_ast" for c in chunks)
    check_definition_bounds(chunks, source, window)
    return len(chunks)


@pytest.mark.slow
@pytest.mark.parametrize("package", PACKAGES)
def test_installed_typed_packages_hold_the_bounds(package: str) -> None:
    """Default-like window (1000 characters) over a deterministic sample of each package,
    then a small window (240) where headers crowd it, on fewer files."""
    checked = 0
    for _path, source in read_sources(package_files(package, limit=60)):
        try:
            ast.parse(source)
        except SyntaxError:
            continue
        check_file(source, 1000)
        checked += 1
    assert checked
    for _path, source in read_sources(package_files(package, limit=12)):
        try:
            ast.parse(source)
        except SyntaxError:
            continue
        # decorators alone can fill a 240-character chunk: no structure-line check here
        check_file(source, 240, structure=False)


def typed_parameters(count: int) -> str:
    return "".join(f"    parameter_{i}: dict[str, list[tuple[int, float]]] | None = None,\n"
                   for i in range(count))


def test_a_hundred_typed_parameters_do_not_explode() -> None:
    source = ("class Settings:\n    \"\"\"Every knob.\"\"\"\n\n    def __init__(\n        self,\n"
              + typed_parameters(100).replace("\n    ", "\n        ").replace("    parameter_0",
                                                                             "        parameter_0", 1)
              + "    ) -> None:\n        \"\"\"Store them.\"\"\"\n"
              + "".join(f"        self.parameter_{i} = parameter_{i}\n" for i in range(100)))
    for window in (1000, 300, 120):
        count = check_file(source, window)
        assert count <= 2 * len(source) / window + 2, (window, count)


def test_lines_of_five_thousand_characters() -> None:
    words = " ".join(f"word{i}" for i in range(800))[:5000]
    source = (f"def long_lines(value: int) -> str:\n    text = '{words}'\n    other = '{words}'\n"
              f"    return text + other\n\n\nCONSTANT = '{'x' * 5000}'\n")
    for window in (1000, 256):
        chunks = PythonAstChunker(window, 0).chunk(source, "l.py")
        check_code_chunks(chunks, source, window)
        check_definition_bounds(chunks, source, window)
        # pieces of a long line hold at least half a window, cut after a space where one is
        for chunk in chunks:
            if chunk.metadata["end_char"] < len(source) and source[chunk.metadata["end_char"] - 1] != "\n":
                assert source[chunk.metadata["end_char"] - 1] in " x", chunk.metadata


def test_deeply_nested_classes() -> None:
    depth = 40
    lines = []
    for level in range(depth):
        pad = "    " * level
        lines += [f"{pad}class Level{level}(Base{level}):",
                  f'{pad}    """Level {level} of a deep tree of classes."""',
                  f"{pad}    def method_{level}(self, value: int) -> int:",
                  f"{pad}        return value + {level} * self.factor_{level}", ""]
    source = "\n".join(lines) + "\n"
    for window in (1000, 400, 160):
        # at 160, a deep class line and its docstring line no longer fit together
        check_file(source, window, structure=window == 1000)


def test_a_twenty_thousand_line_file() -> None:
    blocks = []
    for i in range(2000):
        blocks.append(f"def function_{i}(a: int, b: str = 'x') -> int:\n"
                      f"    \"\"\"Function number {i}.\"\"\"\n"
                      + "".join(f"    a += len(b) * {j}\n" for j in range(6))
                      + "    return a\n\n")
    source = "".join(blocks)
    assert source.count("\n") >= 20_000
    count = check_file(source, 1000)
    assert count <= 2 * len(source) / 1000 * 2  # ~one chunk per few small functions


@st.composite
def modules(draw: st.DrawFn) -> str:
    """Random Python modules: functions and (nested) classes with long typed signatures,
    docstrings and lines from empty to over-long."""
    def line(indent: str) -> str:
        length = draw(st.one_of(st.integers(0, 60), st.integers(60, 400), st.integers(400, 3000)))
        words = " ".join("w" * draw(st.integers(1, 12)) for _ in range(length // 6 + 1))[:length]
        return f"{indent}x = {words!r}\n" if length else "\n"

    def function(indent: str, name: str) -> str:
        params = draw(st.integers(0, 40))
        annotation = " | ".join(["Annotated[int, Field(gt=0)]"] * draw(st.integers(1, 3)))
        signature = "".join(f"{indent}    p{i}: {annotation},\n" for i in range(params))
        doc = f'{indent}    """{"Doc " * draw(st.integers(0, 60))}"""\n' if draw(st.booleans()) else ""
        body = "".join(line(indent + "    ") for _ in range(draw(st.integers(1, 25))))
        decorators = f"{indent}@decorator\n" * draw(st.integers(0, 2))
        return (f"{decorators}{indent}def {name}(\n{signature}{indent}) -> None:\n"
                f"{doc}{body}{indent}    pass\n")

    def klass(indent: str, name: str, depth: int) -> str:
        doc = f'{indent}    """{"Class doc " * draw(st.integers(1, 40))}"""\n' if draw(st.booleans()) else ""
        members = []
        for i in range(draw(st.integers(1, 6))):
            if depth < 3 and draw(st.integers(0, 4)) == 0:
                members.append(klass(indent + "    ", f"{name}Inner{i}", depth + 1))
            elif draw(st.booleans()):
                members.append(function(indent + "    ", f"method_{i}"))
            else:
                members.append(line(indent + "    ") or f"{indent}    pass\n")
        return f"{indent}class {name}(Base):\n{doc}" + "".join(members) + f"{indent}    pass\n"

    parts = []
    for i in range(draw(st.integers(1, 6))):
        parts.append(klass("", f"C{i}", 0) if draw(st.booleans()) else function("", f"f{i}"))
        parts.append("\n" * draw(st.integers(0, 2)))
    return "".join(parts)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(source=modules(), window=st.integers(40, 1500))
def test_random_modules_hold_the_bounds(source: str, window: int) -> None:
    ast.parse(source)
    check_file(source, window, structure=False)


def test_parsing_from_many_threads_is_serialized() -> None:
    """``ast.parse`` on several threads at once raises spurious SystemErrors on 3.11
    (gh-106905); the chunker's parse holds a lock, so every thread gets its tree."""
    source = "class A:\n" + "".join(f"    def m{i}(self) -> int:\n        return {i}\n" for i in range(300))
    errors: list[BaseException] = []
    trees: list[ast.Module] = []

    def work() -> None:
        try:
            for _ in range(20):
                trees.append(parse_python(source))
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(trees) == 80
