"""Issue 36: an application's components and templates chunked by their structure, with
exact file lines, symbols named by the component, language and source_type for filters."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import hash_config
from ragloom import RAGEngine
from ragloom.chunking.registry import FileChunker, language_for_path
from ragloom.config import RAGConfig
from ragloom.indexing.source_types import SourceTypes
from ragloom.readers.html import HtmlReader

pytest.importorskip("tree_sitter", reason="ragloom[code] is part of the CI install")

SAMPLES = Path(__file__).parent / "samples" / "app"
#: Fixtures only checked for slices and coverage (their boundaries are asserted below).
COVERED = ("config/media.php", "routes/api.php")

#: (start line, end line, symbols or symbol, kind) of every chunk at chunk_size 300.
EXPECTED: dict[str, list[tuple[int, int, str | None, str]]] = {
    "QueueScreen.vue": [
        (1, 8, "QueueScreen", "markup"),
        (9, 12, "QueueScreen", "markup"),
        (14, 21, "QueueScreen", "markup"),
        (23, 33, "QueueScreen", "markup"),
        (35, 42, "QueueScreen", "module"),  # the imports open the script's first chunk
        (44, 53, "QueueScreen.playAll, QueueScreen.clearQueue", "function"),
        (55, 64, "QueueScreen.playNext", "function"),
        (66, 75, "QueueScreen", "style"),
    ],
    "TodoList.svelte": [
        (1, 5, "TodoList", "module"),
        (7, 9, "TodoList.toggle", "function"),
        (11, 12, "TodoList", "module"),
        (14, 19, "TodoList", "markup"),
        (20, 23, "TodoList", "markup"),
        (25, 28, "TodoList", "style"),
    ],
    "resources/views/invoices/show.blade.php": [
        (1, 10, "show.content", "block"),
        (12, 17, "show.content", "block"),
        (18, 21, "show.content", "block"),
        (23, 28, "show.content", "block"),
        (30, 32, "show.scripts", "block"),
    ],
    "templates/checks/details.html": [
        (1, 4, "details.title", "block"),
        (6, 14, "details.content", "block"),
        (16, 22, "details.content", "block"),
        (23, 28, "details.content", "block"),
        (30, 32, "details.scripts", "block"),
    ],
    "templates/checks/remove_modal.html": [
        (1, 5, "remove_modal", "markup"),
        (6, 7, "remove_modal", "markup"),
        (8, 11, "remove_modal", "markup"),
    ],
    "_form.html.erb": [
        (1, 4, "_form", "markup"),
        (5, 11, "_form", "markup"),
        (13, 21, "_form", "markup"),
        (23, 25, "_form.sidebar", "block"),
    ],
    "web/invoice.gohtml": [
        (1, 1, "invoice.title", "block"),
        (3, 5, "invoice.page_header", "block"),
        (6, 11, "invoice.page_header", "block"),  # the comment opens what it documents
        (12, 15, "invoice.page_header", "block"),
        (16, 22, "invoice.page_header", "block"),
        (24, 32, "invoice.content", "block"),
        (33, 36, "invoice.content", "block"),
    ],
    "layout.twig": [
        (1, 9, "layout.sidebar", "block"),
        (11, 13, "layout.price", "block"),
    ],
    "comments.hbs": [
        (1, 12, "comments", "markup"),
        (14, 16, "comments.replies", "block"),
    ],
    "playlistStore.ts": [
        (1, 5, None, "imports"),  # alone: the store's first chunk would not fit beside them
        (7, 15, "playlistStore, playlistStore.init", "object"),
        (17, 25, "playlistStore.setupSmartPlaylist", "method"),
        (27, 32, "playlistStore.store", "method"),
        (34, 35, "playlistStore.sort", "method"),
    ],
    "counter.js": [
        (1, 2, None, "imports"),  # the store is split: its first part is a method's
        (4, 8, "useCartStore.state, useCartStore.total", "method"),
        (9, 14, "useCartStore.checkout", "method"),
        (15, 21, "useCartStore.addItem", "method"),
    ],
}
LANGUAGES = {"QueueScreen.vue": "vue", "TodoList.svelte": "svelte",
             "resources/views/invoices/show.blade.php": "blade",
             "templates/checks/details.html": "django-template",
             "templates/checks/remove_modal.html": "django-template", "_form.html.erb": "erb",
             "layout.twig": "twig", "comments.hbs": "handlebars",
             "web/invoice.gohtml": "go-template", "playlistStore.ts": "typescript",
             "counter.js": "javascript", "config/media.php": "php", "routes/api.php": "php"}


def chunks_of(path: str, size: int = 300) -> list:
    config = RAGConfig(embedding={"provider": "hash"}, chunk_size=size, chunk_overlap=size // 5)
    return FileChunker(config).chunk((SAMPLES / path).read_text(encoding="utf-8"), path)


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_chunks_follow_the_structure(path: str) -> None:
    found = [(c.metadata["start_line"], c.metadata["end_line"],
              c.metadata.get("symbols") or c.metadata.get("symbol"), c.metadata["kind"])
             for c in chunks_of(path)]
    assert found == EXPECTED[path]


@pytest.mark.parametrize("path", sorted([*EXPECTED, *COVERED]))
@pytest.mark.parametrize("size", [120, 300, 1000])
def test_chunks_are_file_slices_covering_every_line(path: str, size: int) -> None:
    text = (SAMPLES / path).read_text(encoding="utf-8")
    lines = text.split("\n")
    covered: set[int] = set()
    for chunk in chunks_of(path, size):
        m = chunk.metadata
        piece = text[m["start_char"]:m["end_char"]]
        assert chunk.text.endswith(piece) and piece.strip()
        assert m["start_char"] == sum(len(line) + 1 for line in lines[:m["start_line"] - 1])
        assert m["end_line"] == text.count("\n", 0, m["end_char"] - 1) + 1
        assert m["language"] == LANGUAGES[path]
        covered.update(range(m["start_line"], m["end_line"] + 1))
    assert {n for n, line in enumerate(lines, 1) if line.strip()} <= covered


@pytest.mark.parametrize("path", sorted(set(LANGUAGES) - set(COVERED)))
def test_language_and_source_type_come_from_the_path(path: str) -> None:
    assert language_for_path(path) == LANGUAGES[path]
    assert SourceTypes().of(f"app/{path}", LANGUAGES[path]) == "code"


def test_component_sections_are_named() -> None:
    sections = [c.metadata["section"] for c in chunks_of("QueueScreen.vue")]
    assert sections == ["template"] * 4 + ["script"] * 3 + ["style"]


def test_an_empty_section_is_no_chunk_of_its_own() -> None:
    source = ("<template>\n  <button @click=\"start\">Start</button>\n</template>\n\n"
              "<script setup lang=\"ts\">\nfunction start() {\n  timer.start()\n}\n</script>\n\n"
              "<style scoped></style>\n")
    config = RAGConfig(embedding={"provider": "hash"}, chunk_size=300, chunk_overlap=60)
    chunks = FileChunker(config).chunk(source, "components/StartButton.vue")
    # `<style scoped></style>` would be a chunk of nothing but the component's name
    assert [(c.metadata["start_line"], c.metadata["end_line"], c.metadata["section"])
            for c in chunks] == [(1, 3, "template"), (5, 11, "script")]
    assert chunks[-1].text.endswith("}\n</script>\n\n<style scoped></style>")
    alone = FileChunker(config).chunk("<style scoped></style>\n", "components/Empty.vue")
    assert [(c.metadata["start_line"], c.metadata["section"]) for c in alone] == [(1, "style")]


def test_export_default_members_are_named_by_the_component(tmp_path: Path) -> None:
    source = ("<template><p>{{ total }}</p></template>\n<script>\nexport default {\n"
              "  name: 'Cart',\n  methods: {\n    checkout () {\n      return this.$api.post()\n"
              "    },\n  },\n  computed: {\n    total () { return 1 },\n  },\n}\n</script>\n")
    config = RAGConfig(embedding={"provider": "hash"}, chunk_size=60, chunk_overlap=10)
    chunks = FileChunker(config).chunk(source, "components/CartPanel.vue")
    symbols = [c.metadata.get("symbol") for c in chunks if c.metadata["section"] == "script"]
    assert "CartPanel.checkout" in symbols and "CartPanel.total" in symbols


def test_a_config_banner_stays_with_the_key_it_documents() -> None:
    chunks = chunks_of("config/media.php", 1000)
    assert [(c.metadata["symbol"], c.metadata["start_line"], c.metadata["end_line"])
            for c in chunks] == [("media.storage_driver", 1, 17), ("media.sync", 19, 34),
                                 ("media.transcoding", 36, 51)]
    assert "| Sync Options" in chunks[1].text and "'sync' => [" in chunks[1].text


def test_a_comment_one_blank_line_above_a_definition_documents_it() -> None:
    source = ("// Licence: MIT\n\nimport { api } from './api'\n\n/**\n * Sends the order.\n */\n\n"
              "export function send (order) {\n  return api.post(order)\n}\n\n"
              "// Cancels an order that has not shipped.\n\nexport function cancel (order) {\n"
              "  return api.delete(order)\n}\n")
    config = RAGConfig(embedding={"provider": "hash"}, chunk_size=160, chunk_overlap=32)
    chunks = FileChunker(config).chunk(source, "orders.js")
    # the licence opens the imports (a function's chunk is not opened by them)
    assert [(c.metadata["start_line"], c.metadata["end_line"], c.metadata.get("symbol"))
            for c in chunks] == [(1, 3, None), (5, 11, "send"), (13, 17, "cancel")]
    store = source.replace("export function send (order) {\n  return api.post(order)\n}",
                           "export const orders = {\n  send (order) { return api.post(order) },\n}")
    assert FileChunker(config).chunk(store, "orders.js")[0].metadata["end_line"] == 11


def test_a_yaml_comment_stays_with_the_key_below_it() -> None:
    source = ("# Application settings\napp:\n  name: koel\n  # How long a session lasts, in minutes.\n"
              "  # Longer sessions keep users signed in across restarts.\n  session_lifetime: 120\n"
              "  # The queue driver jobs go through.\n  queue: redis\n")
    config = RAGConfig(embedding={"provider": "hash"}, chunk_size=140, chunk_overlap=28)
    chunks = FileChunker(config).chunk(source, "config/app.yml")
    assert [(c.metadata["start_line"], c.metadata["end_line"]) for c in chunks] == [
        (1, 3), (4, 6), (7, 8)]
    assert all(c.text == source[c.metadata["start_char"]:c.metadata["end_char"]] for c in chunks)


def test_a_commented_out_setting_ends_its_documentation_as_a_live_one_does() -> None:
    # a sample configuration shipping every option commented out under its documentation
    settings = [
        ("http_port", "17170", ["The port of the web interface, for logins and", "administration."]),
        ("jwt_secret", '"REPLACE_WITH_RANDOM"', ["Secret signing the session tokens; generate one with:",
                                                "LC_ALL=C tr -dc 'A-Za-z0-9' </dev/urandom | head -c 32"]),
        ("database_url", '"sqlite://users.db?mode=rwc"', ["Where the users are kept.",
                                                         "Note: sqlite needs mode=rwc to create it."])]
    lines: list[str] = []
    spans = {}
    for key, value, doc in settings:
        first = len(lines) + 1
        lines += [f"## {line}" for line in doc] + [f"#{key} = {value}", ""]
        spans[key] = (first, len(lines) - 1)
    source = "\n".join(lines)
    config = RAGConfig(embedding={"provider": "hash"}, chunk_size=160, chunk_overlap=32)
    chunks = FileChunker(config).chunk(source, "config.template.toml")
    assert [(c.metadata["start_line"], c.metadata["end_line"]) for c in chunks] == list(spans.values())
    yaml = "# Mail server.\n# smtp_host: mail.example.com\n\n# Note: retries are slow.\n# retries: 3\n"
    chunks = FileChunker(RAGConfig(embedding={"provider": "hash"}, chunk_size=60, chunk_overlap=12)).chunk(
        yaml, "config.example.yml")
    assert [(c.metadata["start_line"], c.metadata["end_line"]) for c in chunks] == [(1, 2), (4, 5)]


def test_a_table_header_opens_a_section_no_chunk_shares_with_the_one_before() -> None:
    source = ("## Where the users are kept.\ndatabase_url = \"sqlite://users.db\"\n\n"
              "## Options of the mail server sending password resets.\n[smtp_options]\n"
              "## The SMTP server.\n#server = \"smtp.example.com\"\n## The SMTP port.\n#port = 587\n"
              "## Whether to send reset mails at all.\n#enable_password_reset = true\n\n"
              "[[servers]]\nname = \"a\"\n")
    config = RAGConfig(embedding={"provider": "hash"}, chunk_size=220, chunk_overlap=44)
    chunks = FileChunker(config).chunk(source, "config.toml")
    # each section whole (the mail one with its banner), none sharing a chunk: together over the window
    assert [(c.metadata["start_line"], c.metadata["end_line"]) for c in chunks] == [(1, 2), (4, 11), (13, 14)]
    small = FileChunker(RAGConfig(embedding={"provider": "hash"}, chunk_size=2000, chunk_overlap=40)).chunk(
        source, "config.toml")
    assert len(small) == 1  # small sections share a window


def test_a_long_import_run_is_one_chunk_and_a_short_one_opens_the_code() -> None:
    chunks = chunks_of("routes/api.php", 1000)
    assert [(c.metadata["kind"], c.metadata["start_line"], c.metadata["end_line"])
            for c in chunks] == [("imports", 1, 82), ("route_group", 84, 96)]
    assert chunks_of("routes/api.php", 100)[0].metadata["end_line"] < 82  # over 8 windows: cut


def test_templates_are_not_read_as_pages() -> None:
    modal = (SAMPLES / "templates/checks/remove_modal.html").read_bytes()
    read = HtmlReader().read("templates/checks/remove_modal.html", modal)
    assert (read.language, read.text) == ("django-template", modal.decode())
    outside = b"{% extends 'base.html' %}\n{% block body %}<p>Hi</p>{% endblock %}\n"
    assert HtmlReader().read("site/page.html", outside).language == "django-template"
    go = b'{{ define "content" }}\n<p>{{ .Title }}</p>\n{{ end }}\n'
    assert HtmlReader().read("internal/templates/views/entry.html", go).language == "go-template"
    assert HtmlReader().read("site/entry.html", b"{{ if .Draft }}\n<p>draft</p>\n{{ end }}\n").language \
        == "go-template"
    page = HtmlReader().read("site/about.html", b"<html><body><h1>About</h1><p>We</p></body></html>")
    assert page.language == "markdown" and page.text.startswith("# About")


def test_filters_find_components_and_templates(tmp_path: Path) -> None:
    for path in ("QueueScreen.vue", "templates/checks/remove_modal.html",
                 "resources/views/invoices/show.blade.php"):
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((SAMPLES / path).read_bytes())
    (tmp_path / "README.md").write_text("# Player\n\nQueue songs and play them.\n")
    config = hash_config(vector_store={"provider": "turboquant"}, relevance_gate=0.0)
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        vue = engine.search("play the next song", top_k=20,
                            filters={"language": "vue", "source_type": "code"})
        modal = engine.search("remove check", top_k=20, filters={"language": "django-template"})
        code = engine.search("invoice overdue", top_k=30, filters={"source_type": "code"})
    assert {r.path for r in vue} == {"QueueScreen.vue"}
    assert [(r.metadata["start_line"], r.metadata["end_line"]) for r in modal] == [
        (1, 11)]  # the modal's own lines, not skipped as "no visible text"
    assert {r.path for r in code} == {"QueueScreen.vue", "templates/checks/remove_modal.html",
                                      "resources/views/invoices/show.blade.php"}


def test_every_chunk_of_a_rust_user_interface_says_so() -> None:
    component = ("use yew::prelude::*;\n\npub struct LoginForm {\n    name: String,\n}\n\n"
                 "impl LoginForm {\n    fn submit(&mut self) -> bool {\n"
                 "        self.name.is_empty()\n    }\n}\n\n"
                 "impl Component for LoginForm {\n    fn view(&self) -> Html {\n"
                 "        html! { <form></form> }\n    }\n}\n")
    server = "use actix_web::web;\n\npub fn login(form: web::Json<Login>) -> bool {\n    form.ok()\n}\n"
    config = RAGConfig(embedding={"provider": "hash"}, chunk_size=120, chunk_overlap=24)
    chunks = FileChunker(config).chunk(component, "app/src/components/login.rs")
    assert len(chunks) > 1 and {c.metadata.get("interface") for c in chunks} == {"component"}
    router = ("use yew_router::Routable;\n\n#[derive(Routable)]\n"
              "pub enum Route {\n    #[at(\"/\")]\n    Home,\n}\n")
    routes = FileChunker(config).chunk(router, "app/src/router.rs")
    assert {c.metadata.get("interface") for c in routes} == {"web"}  # no markup: a router
    assert {c.metadata.get("interface") for c in FileChunker(config).chunk(server, "src/auth.rs")} == {None}
    assert "interface" not in FileChunker(config).chunk("html! { }\n", "notes.txt")[0].metadata
