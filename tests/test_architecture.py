"""The house rules, read from the source: ragloom's import graph has no circle, no module
imports one on a higher floor, and the core never imports the outer ring (``apps`` and
``integrations``). Every import counts: module level, inside functions and under
``TYPE_CHECKING`` alike.

FLOORS is the one place the floor order is written down; docs/architecture.md shows the
same table (a test below keeps them equal)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "ragloom"
ARCHITECTURE_DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"

#: Floors from the bottom up. A module may import its own floor and the floors below it.
#: A name covers the module and everything under it; the longest name that matches wins.
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("errors", "types", "digests", "atomic", "faults", "sqlite_db", "_optional",
                    "_registry", "_lazy", "globs", "filters", "security", "ownership", "layout",
                    "locking", "prompt", "quant", "arrayfile", "segments", "top_k", "products", "version",
                    "tenancy")),
    ("config", ("config",)),
    ("parts", ("chunking", "embeddings", "readers", "stores")),
    ("retrieval", ("retrieval",)),
    ("indexing", ("indexing", "stores.backend", "stores.registry")),
    ("engine", ("engine", "testing")),
    ("integrations", ("integrations",)),
    ("apps", ("apps",)),
    ("surface", ("__init__", "__main__")),
]
#: The outer ring: the core (every floor below it) never imports these.
OUTER_RING = ("integrations", "apps")

#: Arrows that still run the wrong way, each with the issue that removes it. Keep empty.
KNOWN_EXCEPTIONS: set[tuple[str, str]] = set()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(SOURCE.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Every ragloom module ``name`` imports, anywhere in the file."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            # ``from ragloom.x import y`` imports the submodule ragloom.x.y when there is one
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names
                                if f"{base}.{alias.name}" in known]
        else:
            continue
        found.update(target for target in targets if target.split(".")[0] == "ragloom")
    found.discard(name)
    return found


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    edges = {name: imports_of(name, path, known) for name, path in found.items()}
    for name, targets in edges.items():
        unknown = targets - known
        assert not unknown, f"{name} imports {sorted(unknown)}, which do not exist"
    return edges


def floor_of(module: str) -> int:
    """The index in FLOORS of the floor ``module`` lives on."""
    relative = module.split(".")[1:] or ["__init__"]
    best: tuple[int, int] | None = None  # (length of the matching name, floor)
    for number, (_, names) in enumerate(FLOORS):
        for floor_name in names:
            prefix = floor_name.split(".")
            if relative[:len(prefix)] == prefix and (best is None or len(prefix) > best[0]):
                best = (len(prefix), number)
    if best is None:
        raise AssertionError(f"{module} is on no floor: add it to FLOORS in {__file__} "
                             f"and to the table in docs/architecture.md")
    return best[1]


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def without_exceptions(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    return {name: {t for t in targets if (name, t) not in KNOWN_EXCEPTIONS}
            for name, targets in edges.items()}


def test_the_import_graph_has_no_circle() -> None:
    assert cycles(without_exceptions(graph())) == []


def test_every_module_is_on_a_floor() -> None:
    for name in modules():
        floor_of(name)


def test_no_import_runs_up_a_floor() -> None:
    upward = [f"{name} ({FLOORS[floor_of(name)][0]}) imports {target} ({FLOORS[floor_of(target)][0]})"
              for name, targets in sorted(without_exceptions(graph()).items())
              for target in sorted(targets) if floor_of(target) > floor_of(name)]
    assert upward == []


def test_the_core_never_imports_the_outer_ring() -> None:
    outer = {number for number, (floor, _) in enumerate(FLOORS) if floor in OUTER_RING}
    lowest_outer = min(outer)
    offending = [f"{name} imports {target}" for name, targets in sorted(graph().items())
                 if floor_of(name) < lowest_outer
                 for target in sorted(targets) if floor_of(target) in outer]
    assert offending == []


def test_known_exceptions_are_still_needed() -> None:
    edges = graph()
    stale = [pair for pair in sorted(KNOWN_EXCEPTIONS) if pair[1] not in edges.get(pair[0], set())]
    assert stale == [], "remove these from KNOWN_EXCEPTIONS: the import is gone"


def test_the_architecture_doc_shows_these_floors() -> None:
    """docs/architecture.md lists the floors top down, one table row each, as FLOORS has them."""
    text = ARCHITECTURE_DOC.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| floor ") and line[8:9].isdigit()]
    expected = [f"| floor {number} | {floor} | " + ", ".join(f"`{n}`" for n in names) + " |"
                for number, (floor, names) in reversed(list(enumerate(FLOORS)))]
    assert rows == expected


@pytest.mark.parametrize(("edges", "expected"), [
    ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
])
def test_cycle_finder_finds_circles(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles(edges) == expected


def test_floor_of_uses_the_longest_name() -> None:
    assert FLOORS[floor_of("ragloom.apps.cli")][0] == "apps"
    assert FLOORS[floor_of("ragloom")][0] == "surface"
    assert FLOORS[floor_of("ragloom.errors")][0] == "foundation"
    with pytest.raises(AssertionError, match="on no floor"):
        floor_of("ragloom.nowhere")


#: The house rule: one concept per module, none over this many lines.
MAX_MODULE_LINES = 350


def test_no_module_is_over_the_line_limit() -> None:
    long = {name: count for name, path in modules().items()
            if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert long == {}, f"split these along a seam (at most {MAX_MODULE_LINES} lines each)"


#: Where a module may be imported by a name held in a string (hidden from the import graph
#: above), and why. Everything else imports ragloom modules with import statements.
LOADS_BY_NAME = {
    "ragloom._registry": "plugins: entry points and 'package.module:factory' paths",
    "ragloom._lazy": "lazy package exports, each also imported under TYPE_CHECKING (checked below)",
    "ragloom._optional": "third-party optional dependencies (checked below: never a ragloom module)",
    "ragloom.chunking.treesitter.outline": "the installed tree-sitter grammar wheels (third-party)",
}
_LOADERS = {"import_module", "__import__", "spec_from_file_location", "resolve_name"}


def _called_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _trees() -> dict[str, ast.Module]:
    return {name: ast.parse(path.read_text(encoding="utf-8"), str(path)) for name, path in modules().items()}


def test_no_module_is_loaded_by_string_outside_the_plugin_registry() -> None:
    found = sorted(f"{name}:{node.lineno} calls {_called_name(node)}"
                   for name, tree in _trees().items() if name not in LOADS_BY_NAME
                   for node in ast.walk(tree)
                   if isinstance(node, ast.Call) and _called_name(node) in _LOADERS)
    assert found == [], "import it with an import statement (or register a plugin)"


def test_optional_imports_name_third_party_modules() -> None:
    named = [(name, node.args[0].value) for name, tree in _trees().items() for node in ast.walk(tree)
             if isinstance(node, ast.Call) and _called_name(node) == "import_optional"]
    assert named, "import_optional is called somewhere"
    assert [(name, module) for name, module in named
            if not isinstance(module, str) or module.split(".")[0] == "ragloom"] == []


def test_lazy_exports_are_imported_where_the_graph_sees_them() -> None:
    """Each ``_EXPORTS = {"Name": "ragloom.module"}`` entry of a package is also imported
    (under TYPE_CHECKING) by that package, so the graph tests above count the edge."""
    hidden = []
    for name, tree in _trees().items():
        exports = next((node.value for node in tree.body if isinstance(node, ast.Assign)
                        and [getattr(t, "id", "") for t in node.targets] == ["_EXPORTS"]), None)
        if not isinstance(exports, ast.Dict):
            continue
        imported = {(node.module, alias.name) for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom) for alias in node.names}
        hidden += [f"{name}: {key.value} from {value.value}"
                   for key, value in zip(exports.keys, exports.values)
                   if isinstance(key, ast.Constant) and isinstance(value, ast.Constant)
                   and (value.value, key.value) not in imported]
    assert hidden == []
def test_every_folder_of_modules_is_a_package() -> None:
    """A folder holding Python modules has an ``__init__.py``, so ``pkgutil`` and every tool
    that walks packages sees it; a folder of package data alone (no ``.py``) is not one."""
    missing = sorted(str(folder.relative_to(SOURCE.parent)) for folder in [SOURCE, *SOURCE.rglob("*")]
                     if folder.is_dir() and any(folder.glob("*.py"))
                     and not (folder / "__init__.py").is_file())
    assert missing == []


def test_the_index_layout_is_written_in_one_place() -> None:
    """The file names of an index's parts (``ragloom/layout.py``) are spelled in no other
    module: everything else asks the layout for a path. A name's prefix counts where it
    starts a literal (``f"manifest_{store}"``), a suffix anywhere."""
    layout = SOURCE / "layout.py"
    names = {node.value for node in ast.walk(ast.parse(layout.read_text(encoding="utf-8")))
             if isinstance(node, ast.Constant) and isinstance(node.value, str)
             and node.value in ("manifest_", "bm25_", ".segments", "embeddings.sqlite")}
    assert len(names) == 4, "the layout no longer names its parts as this test expects"
    spelled = [f"{name} spells {literal!r}" for name, path in modules().items() if path != layout
               for text in strings_in(path) for literal in sorted(names)
               if text.startswith(literal) or literal.startswith(".") and literal in text]
    assert spelled == []


def strings_in(path: Path) -> list[str]:
    """The string literals of a module (f-string parts included), docstrings and other
    bare string statements left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bare = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in bare]
