"""Generated Python files that break naive chunkers: huge typed signatures, very long
lines, deep nesting, a 20,000-line file. Deterministic (no randomness), all valid Python."""

from __future__ import annotations

from pathlib import Path

_TYPES = ("int", "str | None", "dict[str, list[tuple[int, str]]] | None",
          "Callable[[Request, Response], Awaitable[None]] | None", "Sequence[Mapping[str, Any]]")


def _parameters(count: int, indent: str) -> str:
    return "".join(f"{indent}parameter_{i}: {_TYPES[i % len(_TYPES)]} = None,\n" for i in range(count))


def typed_parameters() -> str:
    """A function and a class whose ``__init__`` take 100 typed parameters, with docstrings
    documenting each (the shape of click's ``Context.__init__`` or pydantic's ``Field``)."""
    doc = "".join(f"    :param parameter_{i}: what parameter {i} sets, and when it matters.\n"
                  for i in range(100))
    body = "".join(f"    values.append(parameter_{i})\n" for i in range(100))
    function = (f"def configure(\n{_parameters(100, '    ')}) -> list[object]:\n"
                f'    """Configure everything at once.\n\n{doc}    """\n    values = []\n{body}'
                "    return values\n")
    init_doc = "".join(f"        :param parameter_{i}: what parameter {i} sets.\n" for i in range(100))
    init_body = "".join(f"        self.parameter_{i} = parameter_{i}\n" for i in range(100))
    klass = ('class Context:\n    """The context of one command invocation, holding every '
             'setting a command, its parameters and its sub-commands need to run."""\n\n'
             f"    def __init__(\n        self,\n{_parameters(100, '        ')}    ) -> None:\n"
             f'        """Create a context.\n\n{init_doc}        """\n{init_body}\n'
             "    def close(self) -> None:\n        self.parameter_0 = None\n")
    return ("from collections.abc import Awaitable, Callable, Mapping, Sequence\n"
            "from typing import Any\n\nRequest = Response = object\n\n\n"
            f"{function}\n\n{klass}")


def long_lines() -> str:
    """Lines of 5,000+ characters: a constant, a one-line signature, strings in a body."""
    numbers = ", ".join(str(i) for i in range(1100))
    words = " ".join(f"word{i}" for i in range(700))
    signature = ", ".join(f"argument_{i}: int = {i}" for i in range(220))
    body = "".join(f"    text_{i} = '{words}'\n" for i in range(6))
    return (f"TABLE = [{numbers}]\n\n\ndef wide({signature}) -> int:\n    return argument_0\n\n\n"
            f"def strings() -> list[str]:\n{body}    return [text_0, text_5]\n")


def nested_classes(depth: int = 60) -> str:
    """Classes nested ``depth`` deep, each with a docstring and two methods."""
    lines = []
    for level in range(depth):
        pad = "    " * level
        lines.append(f"{pad}class Level{level}:")
        lines.append(f'{pad}    """Level {level} of a deeply nested structure of settings."""')
        for name in ("get", "put"):
            lines.append(f"{pad}    def {name}_{level}(self, key: str, value: int = {level}) -> int:")
            lines.append(f"{pad}        total = value + len(key) + {level}")
            lines.append(f"{pad}        return total * 2")
    return "\n".join(lines) + "\n"


def huge_file(total_lines: int = 20_000) -> str:
    """A 20,000-line module: many small functions, a class of 300 methods, one function of
    5,000 lines, and module-level statements filling the rest."""
    lines = ["import math", ""]
    for i in range(400):
        lines += [f"def small_{i}(x: float) -> float:", f'    """Scale x by {i}."""',
                  f"    return math.sqrt(x) * {i}", "", ""]
    lines += ["class Registry:", '    """Holds every handler the application registers."""', ""]
    for i in range(300):
        lines += [f"    def handler_{i}(self, event: dict[str, int]) -> int:",
                  f"        count = event.get('n{i}', 0)", f"        return count + {i}", ""]
    lines += ["", "def giant(value: int) -> int:", '    """One very long function."""']
    lines += [f"    value = (value * {i + 3} + {i}) % 1_000_003" for i in range(5000)]
    lines += ["    return value", "", ""]
    i = 0
    while len(lines) < total_lines - 1:
        lines.append(f"CONSTANT_{i} = {i} * 2")
        i += 1
    return "\n".join(lines) + "\n"


FILES = {"typed_parameters.py": typed_parameters, "long_lines.py": long_lines,
         "nested_classes.py": nested_classes, "huge_file.py": huge_file}


def write_adversarial(folder: Path) -> list[Path]:
    """Write every generated file under ``folder``; their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, make in FILES.items():
        path = folder / name
        path.write_text(make(), encoding="utf-8")
        paths.append(path)
    return paths
