"""Issue 26's bounds for the tree-sitter chunker: on the C, C++ and JavaScript sources
installed with the test dependencies (torch's headers, packages' scripts) and on random
files hypothesis builds in several languages (long signatures, long lines, nesting)."""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

import pytest
from code_properties import check_code_chunks
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragloom.chunking.registry import language_for_path
from ragloom.chunking.treesitter import TreeSitterChunker

pytest.importorskip("tree_sitter", reason="ragloom[code] is part of the CI install")


#: A folder of real sources in other languages that .ci/run fetches from the npm registry at
#: pinned versions (a fresh venv ships few JavaScript files of its own).
FETCHED_SOURCES = os.environ.get("RAGLOOM_TEST_SOURCES")


def installed_sources(suffixes: tuple[str, ...], limit: int) -> list[Path]:
    """An evenly spaced, sorted sample of installed (and fetched) files with these suffixes."""
    roots = [Path(sysconfig.get_paths()["purelib"])]
    if FETCHED_SOURCES:
        roots.append(Path(FETCHED_SOURCES))
    files = sorted(p for root in roots for suffix in suffixes for p in root.rglob(f"*{suffix}")
                   if p.is_file() and p.stat().st_size > 200)
    step = max(1, len(files) // limit)
    return files[::step][:limit]


@pytest.mark.slow
@pytest.mark.parametrize("suffixes", [(".h",), (".cpp", ".cc", ".hpp"), (".js",)])
def test_installed_sources_hold_the_bounds(suffixes: tuple[str, ...]) -> None:
    files = installed_sources(suffixes, 25)
    if len(files) < 10 and not FETCHED_SOURCES:
        pytest.skip(f"fewer than 10 installed {suffixes} files; set RAGLOOM_TEST_SOURCES to a "
                    f"folder of real sources (.ci/run fetches npm packages there)")
    assert len(files) >= 10, f"too few installed or fetched {suffixes} files to test on"
    structured = 0
    for path in files:
        source = path.read_text(encoding="utf-8", errors="replace")
        language = language_for_path(path.name)
        for window in (1000, 300):
            chunks = TreeSitterChunker(language, window, window // 5).chunk(source, path.name)
            check_code_chunks(chunks, source, window)
            structured += any("symbol" in c.metadata for c in chunks)
    assert structured > len(files)  # most files have named definitions


TEMPLATES = {
    "javascript": ("class {name} extends Base {{\n", "}}\n", "  {name}({params}) {{\n", "  }}\n",
                   "    const value = {text};\n", "a{i}", "import {{ a }} from './a.js';\n"),
    "php": ("class {name} extends Base\n{{\n", "}}\n", "    public function {name}({params})\n    {{\n",
            "    }}\n", "        $value = {text};\n", "int $a{i}", "<?php\n\nuse App\\Models\\User;\n"),
    "go": ("type {name} struct {{\n\tID int\n}}\n\n", "", "func (s *{owner}) {name}({params}) {{\n", "}}\n",
           "\tvalue := {text}\n", "a{i} int", "package demo\n\nimport \"fmt\"\n"),
    "rust": ("impl {name} {{\n", "}}\n", "    fn {name}({params}) {{\n", "    }}\n",
             "        let value = {text};\n", "a{i}: u32", "use std::fmt;\n"),
    "java": ("class {name} {{\n", "}}\n", "    void {name}({params}) {{\n", "    }}\n",
             "        int value = {text};\n", "int a{i}", "import java.util.List;\n"),
}


@st.composite
def programs(draw: st.DrawFn, language: str) -> str:
    """A random file of classes whose methods have many parameters and lines from short
    to far longer than a window."""
    open_class, close_class, open_fn, close_fn, line, param, imports = TEMPLATES[language]
    parts = [imports, "\n"]
    for c in range(draw(st.integers(1, 3))):
        owner = f"Type{c}"
        parts.append(open_class.format(name=owner))
        for m in range(draw(st.integers(1, 6))):
            params = ", ".join(param.format(i=i) for i in range(draw(st.integers(0, 60))))
            parts.append(open_fn.format(name=f"method{m}", params=params, owner=owner))
            for _ in range(draw(st.integers(1, 15))):
                length = draw(st.one_of(st.integers(1, 40), st.integers(40, 300), st.integers(300, 2500)))
                text = " + ".join(f"x{i}" for i in range(length // 6 + 1))
                parts.append(line.format(text=text))
            parts.append(close_fn)
        parts.append(close_class + "\n")
    return "".join(parts)


@pytest.mark.parametrize("language", sorted(TEMPLATES))
def test_random_programs_hold_the_bounds(language: str) -> None:
    @settings(max_examples=25, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(source=programs(language), window=st.integers(60, 1500))
    def check(source: str, window: int) -> None:
        chunks = TreeSitterChunker(language, window, window // 5).chunk(source, f"f.{language}")
        assert {c.metadata["chunker"] for c in chunks} == {"tree_sitter"}
        check_code_chunks(chunks, source, window)

    check()
