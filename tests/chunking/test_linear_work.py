"""Issue 36: no chunker does more than linear work in the size of its input. For every
registered language (and the character fallback), three adversarial shapes, each at n and
8n: one long line (a minified bundle), many short lines (a 100k-line file, scaled down),
and deep nesting (brackets, elements or template blocks opened n times, then closed).

Work is counted, not timed: the Python calls the chunker makes (``sys.setprofile``) plus
the characters it hands its measure (a tokenizer's cost; copying the rest of a line for
each window was the quadratic of issue 27). A quadratic chunker does 64 times the work on
8n; a linear one about 8; the bound is 14.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

import pytest

from ragloom.chunking.measure import CharacterMeasure
from ragloom.chunking.registry import FileChunker, chunkers, language_for_path
from ragloom.chunking.sizing import ChunkSizing
from ragloom.config import RAGConfig

pytest.importorskip("tree_sitter", reason="ragloom[code] is part of the CI install")

#: A short piece of each language (its extension and a few lines) the shapes repeat.
SNIPPETS: dict[str, tuple[str, str]] = {
    "python": (".py", "def f(a, b):\n    return [a, (b, {1: 2})]\n"),
    "markdown": (".md", "# Title\n\n- item [link](x)\n> quote\n"),
    "rst": (".rst", "Title\n=====\n\n* item ``code``\n"),
    "php": (".php", "function f($a) { return [$a => ['k' => fn($x) => $x]]; }\n"),
    "javascript": (".js", "var o = {m: function (t) { return [t, {x: () => 1}]; }};\n"),
    "typescript": (".ts", "export const f = (a: number): number[] => [a, (a + 1)];\n"),
    "go": (".go", "func F(a int) []int { return []int{a, (a + 1)} }\n"),
    "rust": (".rs", "fn f(a: i32) -> Vec<i32> { vec![a, (a + 1)] }\n"),
    "java": (".java", "class A { int f(int a) { return (a + 1); } }\n"),
    "swift": (".swift", "func f(a: Int) -> [Int] { return [a, (a + 1)] }\n"),
    "c": (".c", "int f(int a) { return (a + 1) * g(a); }\n"),
    "cpp": (".cpp", "namespace n { int f(int a) { return (a + 1); } }\n"),
    "csharp": (".cs", "class A { int F(int a) { return (a + 1); } }\n"),
    "ruby": (".rb", "def f(a)\n  [a, { k: (a + 1) }]\nend\n"),
    "kotlin": (".kt", "fun f(a: Int): List<Int> { return listOf(a, (a + 1)) }\n"),
    "vue": (".vue", '<template>\n  <div :a="b > 1"><p>{{ x }}</p></div>\n</template>\n'
                    '<script setup lang="ts">\nconst s = { m() { return [1, (2)] } }\n</script>\n'),
    "svelte": (".svelte", "<script>\n  let a = [1, (2)]\n</script>\n{#if a}<p>{a}</p>{/if}\n"),
    "blade": (".blade.php", "@section('a')\n  <x-card>@if($a) {{ $a }} @endif</x-card>\n"
                            "@endsection\n"),
    "django-template": (".jinja", "{% block a %}\n  <div>{% if a %}{{ a }}{% endif %}</div>\n"
                                  "{% endblock %}\n"),
    "twig": (".twig", "{% block a %}\n  <div>{% for a in b %}{{ a }}{% endfor %}</div>\n"
                      "{% endblock %}\n"),
    "erb": (".erb", "<% items.each do |a| %>\n  <li><%= a %></li>\n<% end %>\n"),
    "handlebars": (".hbs", "{{#each items}}\n  <li>{{#if a}}{{a}}{{/if}}</li>\n{{/each}}\n"),
    "yaml": (".yaml", "# the key\nkey: [1, {a: 2}]\n"),
    "toml": (".toml", "# the table\n[a]\nk = [1, {b = 2}]\n"),
    "ini": (".ini", "; the section\n[s]\nk = v\n"),
    "shell": (".sh", "# the function\nf() { echo $(( 1 + (2) )); }\n"),
    "sql": (".sql", "-- the table\nCREATE TABLE t (a INT, b INT DEFAULT (1));\n"),
}
#: What opens and closes one level of nesting, by language (default: brackets).
NESTING: dict[str, tuple[str, str]] = {
    "python": ("[", "]"), "markdown": ("> ", ""), "rst": ("  ", ""), "ruby": ("[", "]"),
    "vue": ("<div>", "</div>"), "svelte": ("{#if a}<b>", "</b>{/if}"),
    "blade": ("@if($a)<x-a>", "</x-a>@endif"), "django-template": ("{% if a %}<p>", "</p>{% endif %}"),
    "twig": ("{% for a in b %}", "{% endfor %}"), "erb": ("<% if a %><i>", "</i><% end %>"),
    "handlebars": ("{{#if a}}<i>", "</i>{{/if}}"),
}


class CountingMeasure(CharacterMeasure):
    """Characters, counting every character it is handed."""

    def __init__(self) -> None:
        self.seen = 0

    def count(self, text: str) -> int:
        self.seen += len(text)
        return super().count(text)

    def line_sizes(self, lines: Sequence[str]) -> list[int]:
        self.seen += sum(len(line) for line in lines)
        return super().line_sizes(lines)

    def fit(self, text: str, budget: int) -> int:
        self.seen += len(text)
        return super().fit(text, budget)


def work(language: str, path: str, text: str) -> int:
    """Python calls plus measured characters of chunking ``text`` as ``language``."""
    measure = CountingMeasure()
    config = RAGConfig(embedding={"provider": "hash"})
    chunker = FileChunker(config, ChunkSizing("characters", 300, 60, measure)).chunker_for(
        path, language)
    chunker.chunk(text[:200], path)  # grammar loading and caches are not the input's work
    calls = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        calls += event == "call"

    sys.setprofile(profile)
    try:
        chunks = chunker.chunk(text, path)
    finally:
        sys.setprofile(None)
    assert chunks, f"{language}: no chunk for {len(text)} characters"
    limit = 8 * 300  # the window, 8 windows for an import run
    assert max(len(c.text) for c in chunks) <= limit, f"{language}: a chunk over {limit}"
    return calls + measure.seen


def shapes(language: str, snippet: str) -> dict[str, Callable[[int], str]]:
    opener, closer = NESTING.get(language, ("{(", ")}"))
    if language in LINEAR_EXTRA:
        return LINEAR_EXTRA[language]()
    return {
        "one line": lambda n: snippet.replace("\n", " ") * n,
        "many lines": lambda n: snippet * n,
        "nesting": lambda n: "x = " + opener * (n * 8) + "1" + closer * (n * 8) + "\n"
        if closer else "".join(opener * min(i, 40) + "x\n" for i in range(n * 8)),
    }


#: Languages whose shapes need more than a snippet (filled by the markup chunkers' tests).
LINEAR_EXTRA: dict[str, Callable[[], dict[str, Callable[[int], str]]]] = {}


def cases() -> list[tuple[str, str, str]]:
    found = []
    for language in sorted({*chunkers, "text"}):
        if language not in SNIPPETS and language not in LINEAR_EXTRA and language != "text":
            continue
        for shape in ("one line", "many lines", "nesting"):
            found.append((language, shape, SNIPPETS.get(language, (".txt", ""))[0]))
    return found


def test_every_registered_language_has_adversarial_inputs() -> None:
    missing = sorted(set(chunkers) - set(SNIPPETS) - set(LINEAR_EXTRA))
    assert not missing, f"no linear-work inputs for {missing}"


@pytest.mark.parametrize(("language", "shape", "suffix"), cases())
def test_chunking_work_is_linear(language: str, shape: str, suffix: str) -> None:
    path = f"src/sample{suffix}"
    if language == "text":
        make = shapes("text", "lorem ipsum dolor sit amet, consectetur.\n")[shape]
    else:
        make = shapes(language, SNIPPETS[language][1])[shape]
    assert language_for_path(path) == language
    small, large = work(language, path, make(200)), work(language, path, make(1600))
    assert large <= 14 * small, (f"{language} {shape}: work {small} on n, {large} on 8n "
                                 f"({large / small:.1f}x)")
