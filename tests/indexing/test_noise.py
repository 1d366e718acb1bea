"""The noise rules: lock files, minified and compiled files, snapshots, rendered copies of
docs, symlinked copies and one-line blobs are skipped with the rule's reason; the config's
``skip_noise`` and a naming ``include`` pattern bring them back."""

from __future__ import annotations

import os
import typing
from pathlib import Path

import pytest

from helpers import write
from ragloom.config import NoiseRuleName, RAGConfig
from ragloom.errors import ConfigError
from ragloom.indexing.noise import (
    DATA_DUMP_MIN_BYTES,
    RULE_NAMES,
    MarkerFiles,
    data_dump,
    hashed_copy,
    mostly_long_lines,
    noise_of,
    path_noise,
    rendered_copy,
    reverse_migration,
)


def test_config_names_every_rule_and_refuses_others() -> None:
    assert typing.get_args(NoiseRuleName) == RULE_NAMES
    assert RAGConfig(skip_noise=["lock-file"]).skip_noise == ["lock-file"]
    with pytest.raises((ConfigError, ValueError), match="lockfiles"):
        RAGConfig(skip_noise=["lockfiles"])


@pytest.mark.parametrize(("path", "rule"), [
    ("composer.lock", "lock-file"), ("frontend/pnpm-lock.yaml", "lock-file"), ("go.sum", "lock-file"),
    ("package-lock.json", "lock-file"), ("uv.lock", "lock-file"), ("Cargo.lock", "lock-file"),
    ("public/js/app.min.js", "minified"), ("static/site.min.css", "minified"),
    ("assets/app.js.map", "source-map"), ("public/build/assets/app-3f2a.js", "build-output"),
    ("public/vendor/horizon/app.js", "build-output"), ("packages/ui/dist/index.js", "build-output"),
    ("build/lib/module.py", "build-output"), ("src/__snapshots__/App.spec.ts.snap", "snapshot"),
    ("locale/de/LC_MESSAGES/django.po", "translations"), ("lang/en.json", "translations"),
    ("internal/locale/translations/en_US.json", "translations"), ("config/locales/fr.yml", "translations"),
    ("resources/js/i18n/de.json", "translations"), ("messages.pot", "translations"),
    ("static_src/font/icons.svg", "svg-image"), ("vendor/javascript/autosize.js", "vendored"),
    ("vendor/github.com/lib/pq/conn.go", "vendored"), ("hc/static/vendor/jquery.js", "vendored"),
    ("app/assets/vendor/select.css", "vendored"), ("native/third_party/zlib/inflate.c", "vendored"),
    (".claude/skills/livewire-development/SKILL.md", "agent-files"), (".junie/guidelines.md", "agent-files"),
    (".cursor/rules/laravel.mdc", "agent-files"), (".github/instructions/php.instructions.md", "agent-files"),
    ("web/.agents/skills/pest/SKILL.md", "agent-files"),
    ("lang/de/auth.php", "translations"), ("resources/lang/pt_BR/validation.php", "translations"),
    ("lang/en/birthday.php", "translations"), ("resources/lang/en/validation.php", "translations"),
    ("lang/en_GB/passwords.php", "translations"), ("lang/vendor/backup/nl/notifications.php", "translations"),
    ("static/img/logos/logo-negative.eps", "postscript"), ("print/poster.ai", "postscript"),
    (".phpstorm.meta.php", "generated"), ("_ide_helper_models.php", "generated"),
    ("api/v1/orders_pb2.py", "generated"), ("internal/rpc/orders.pb.go", "generated"),
    ("server/.sqlx/query-5f1e0c2a9b.json", "generated"),
    ("web/assets/syntaxes/Packages/Rust/Rust.sublime-syntax", "editor-syntax"),
    ("web/assets/syntaxes/Packages/Rust/Comments.tmPreferences", "editor-syntax"),
    ("web/assets/syntaxes/Packages/Go/tests/syntax_test_go.go", "editor-syntax"),
    ("web/assets/syntaxes/Extras/TOML/TOML.tmLanguage", "editor-syntax"),
    (".gitignore", "ignore-files"), ("storage/framework/views/.gitignore", "ignore-files"),
    ("database/.gitignore", "ignore-files"), (".dockerignore", "ignore-files"),
    ("logs/.gitkeep", "ignore-files"),
    ("web/static/FiraSans-LICENSE.txt", "nested-license"),
    ("templates/assets/highlight/LICENSE", "nested-license"),
    ("crates/parser/LICENSE-MIT", "nested-license"), ("third/COPYING", "nested-license"),
    ("public/libs/tinymce/tinymce.d.ts", "vendored"), ("web/wwwroot/lib/bootstrap/dist.css", "vendored"),
    ("app/static/libs/chart.js", "vendored"), ("public/js/vendor/modernizr.js", "vendored"),
    ("public/themes/pterodactyl/vendor/ace/mode-php.js", "vendored"),
    ("web/static/admin/vendor/select2/select2.css", "vendored"),
    ("dev/licensing/js-library-licenses.txt", "dependency-licenses"),
    ("THIRD-PARTY-LICENSES.md", "dependency-licenses"), ("dist-licenses/3rdpartylicenses.txt",
                                                          "dependency-licenses"),
    ("ThirdPartyNotices.txt", "dependency-licenses"), ("docs/third_party_licenses", "dependency-licenses"),
])
def test_glob_rules(path: str, rule: str) -> None:
    assert path_noise(path, RULE_NAMES) == f"{path_noise(path, [rule])}"
    assert f"(rule {rule})" in str(path_noise(path, [rule]))
    assert path_noise(path, [name for name in RULE_NAMES if name != rule]) is None


@pytest.mark.parametrize("path", ["src/lock.py", "docs/building.md", "src/build/steps.py", "app/Dist.php",
                                  "minify.js", "src/map.ts", "src/snapshot.py", "locks/redis.lock.py",
                                  "app/Lang/Translator.php", "src/i18n/index.ts", "locale/setup.py",
                                  "lang/Translator.php", "app/Lang/en/Messages.php",
                                  "app/Helpers/ide_helper.php", "src/storage/app/files.go", "src/csv.py",
                                  "src/syntax/highlight.rs", "tests/syntax_test.py", "src/gitignore.rs",
                                  "queries/orders.sql", "src/ignore/rules.ts", "LICENSE",
                                  "LICENSE-APACHE", "COPYING", "app/Models/License.php",
                                  "src/licenses/LicenseController.php", "resources/svg/Icon.vue",
                                  "app/vendor/[id]/page.tsx", "app/Models/Vendor.php",
                                  "src/vendors/list.ts", "AGENTS.md", "CLAUDE.md", "src/claude/client.py",
                                  ".github/workflows/tests.yml", "docs/cursor.md",
                                  "fixtures/licenses.json", "fixtures/test-licenses.json",
                                  "resources/views/help/licenses.blade.php", "src/lib/parser.ts",
                                  "resources/js/wysiwyg/lexical/core/LexicalNode.ts"])
def test_glob_rules_leave_sources_alone(path: str) -> None:
    assert path_noise(path, RULE_NAMES) is None


def test_rendered_copy_needs_its_source_beside_it() -> None:
    assert rendered_copy("api.html-fragment", {"api.md", "api.html-fragment"})
    assert rendered_copy("guide.html", {"guide.rst"})
    assert not rendered_copy("index.html", {"about.md"})
    assert not rendered_copy("api.md", {"api.md", "api.html"})


def test_hashed_copy_needs_its_plain_name_beside_it() -> None:
    beside = {"app.js", "app.7606a4559e55.js", "jquery.min.2c872dbe60f4.js", "jquery.min.js",
              "select2.css", "select2.deadbeef.css", "Form.1234abcd.vue"}
    assert hashed_copy("app.7606a4559e55.js", beside)
    assert hashed_copy("jquery.min.2c872dbe60f4.js", beside)
    assert not hashed_copy("select2.deadbeef.css", beside)  # a word, not a hash (no digit)
    assert not hashed_copy("Form.1234abcd.vue", beside)  # no Form.vue beside it
    assert not hashed_copy("app.js", beside)
    rules = ["hashed-copy"]
    assert noise_of("static/js/app.7606a4559e55.js", rules, lambda: beside) == \
        "copy of an asset beside it under a content-hash name (rule hashed-copy)"
    assert noise_of("static/js/app.js", rules, lambda: beside) is None


def test_reverse_migration_needs_its_forward_half_beside_it() -> None:
    assert reverse_migration("down.sql", {"up.sql", "down.sql"})
    assert not reverse_migration("down.sql", {"down.sql", "seed.sql"})  # no up.sql: kept
    assert not reverse_migration("up.sql", {"up.sql", "down.sql"})
    sqlx = {"20240105_add_events.up.sql", "20240105_add_events.down.sql", "20240106_x.down.sql"}
    assert reverse_migration("20240105_add_events.down.sql", sqlx)
    assert not reverse_migration("20240106_x.down.sql", sqlx)  # its up half is elsewhere
    flyway = {"V3__add_events.sql", "U3__add_events.sql", "U4__drop_x.sql", "Users.sql"}
    assert reverse_migration("U3__add_events.sql", flyway)
    assert not reverse_migration("U4__drop_x.sql", flyway)
    assert not reverse_migration("Users.sql", flyway)
    beside = {"up.sql", "down.sql"}
    rules = ["reverse-migration"]
    path = "migrations/mysql/2021-08-30-193501_create_emergency_access/down.sql"
    assert noise_of(path, rules, lambda: beside) == \
        "reverse of the SQL migration beside it (rule reverse-migration)"
    assert noise_of(path.replace("down", "up"), rules, lambda: beside) is None
    assert noise_of(path, ["lock-file"], lambda: beside) is None


def test_collected_static_is_the_folder_of_a_staticfiles_manifest(tmp_path: Path) -> None:
    write(tmp_path, "static/staticfiles.json", '{"paths": {}}')
    write(tmp_path, "static/admin/js/core.js", "var a = 1;\n")
    write(tmp_path, "assets/static/app.js", "var b = 2;\n")
    roots = MarkerFiles(tmp_path)
    assert roots.collected_static("static/admin/js/core.js")
    assert roots.collected_static("static/staticfiles.json")
    assert not roots.collected_static("assets/static/app.js")
    assert not roots.collected_static("staticfiles.json")
    assert noise_of("static/admin/js/core.js", ["collected-static"], lambda: (), roots) == \
        "collected static files: a folder holding Django's staticfiles.json manifest (rule collected-static)"
    assert noise_of("static/admin/js/core.js", ["lock-file"], lambda: (), roots) is None


def test_app_storage_is_laravels_runtime_folders_beside_artisan(tmp_path: Path) -> None:
    write(tmp_path, "artisan", "#!/usr/bin/env php\n<?php\n")
    write(tmp_path, "backend/artisan", "#!/usr/bin/env php\n<?php\n")
    markers = MarkerFiles(tmp_path)
    for runtime in ("storage/app/public/gedcom/family.ged", "storage/framework/views/3f2a.php",
                    "storage/logs/laravel.log", "backend/storage/app/avatars/1.txt"):
        assert markers.laravel_storage(runtime), runtime
        assert noise_of(runtime, ["app-storage"], lambda: (), markers) == \
            "runtime files of a Laravel app: uploads, caches, logs under storage/app, " \
            "storage/framework, storage/logs beside artisan (rule app-storage)"
    # not Laravel's: no artisan beside storage/, another folder of storage/, or a file in it
    for source in ("src/storage/app/files.go", "storage/Drivers/S3.php", "storage/app.php",
                   "app/Services/storage/app/Keys.php"):
        assert not markers.laravel_storage(source), source
    assert noise_of("storage/logs/laravel.log", ["lock-file"], lambda: (), markers) is None


def test_long_lines_judged_by_share_of_text() -> None:
    blob = '{"icons": [' + ",".join(f'"icon-{n}"' for n in range(2000)) + "]}\n"
    assert mostly_long_lines(blob, "json")
    assert not mostly_long_lines(blob, "markdown")  # an unwrapped paragraph is prose
    code = "".join(f"x{n} = {n}\n" for n in range(2000)) + "y = '" + "a" * 3000 + "'\n"
    assert not mostly_long_lines(code, "python")  # one long line in a big file
    assert not mostly_long_lines("z" * 3000, "javascript")  # too small to judge


def _app(project: Path) -> None:
    write(project, "app/Player.php", "<?php\nclass Player { public function play() { return 1; } }\n")
    write(project, "composer.lock", '{"packages": []}\n')
    write(project, "public/build/assets/app.js", "function a(){return 1}\n")
    write(project, "resources/js/app.min.js", "var a=1;\n")
    write(project, "resources/js/__snapshots__/Queue.spec.ts.snap", "exports[`x`] = `y`;\n")
    write(project, "templates/docs/api.md", "# API\n\nCall the endpoint.\n")
    write(project, "templates/docs/api.html-fragment", "<h1>API</h1><p>Call the endpoint.</p>\n")
    write(project, "static/icons.json", '{"icons": [' + ",".join(f'"i{n}"' for n in range(3000)) + "]}")
    write(project, "CHANGELOG.md", "# Changes\n\n## 1.0\n\nFirst release.\n")
    write(project, "locale/de/LC_MESSAGES/django.po", 'msgid "Sleep"\nmsgstr "Schlaf"\n')
    write(project, "staticfiles/staticfiles.json", '{"paths": {"admin/base.css": "admin/base.1a2b3c4d.css"}}')
    write(project, "staticfiles/admin/base.css", "body { color: red; }\n")
    write(project, "artisan", "#!/usr/bin/env php\n<?php\n$status = $kernel->handle($input);\n")
    write(project, "storage/app/demo/family.ged", "0 HEAD\n1 GEDC\n2 VERS 5.5.1\n0 TRLR\n")
    write(project, "migrations/2022-10-18_add_events/up.sql", "CREATE TABLE event (uuid CHAR(36));\n")
    write(project, "migrations/2022-10-18_add_events/down.sql", "DROP TABLE event;\n")
    for folder in ("crates/a", "crates/b", "notes"):
        (project / folder).mkdir(parents=True)
    os.symlink("../../CHANGELOG.md", project / "crates/a/CHANGELOG.md")
    os.symlink("../../CHANGELOG.md", project / "crates/b/CHANGELOG.md")
    write(project, "shared/outside.md", "# Shared notes\n")
    os.symlink("../shared/outside.md", project / "notes/linked.md")
    os.symlink("../shared/outside.md", project / "crates/other.md")


def test_index_skips_noise_with_reasons_and_says_which_rule(make_engine, project: Path) -> None:
    _app(project)
    engine = make_engine()
    report = engine.index_directory()
    skipped = {s.path: s.reason for s in report.skipped}
    assert skipped == {
        "composer.lock": "lock file (rule lock-file)",
        "public/build/assets/app.js": "compiled assets (rule build-output)",
        "resources/js/app.min.js": "minified file (rule minified)",
        "resources/js/__snapshots__/Queue.spec.ts.snap": "test snapshot (rule snapshot)",
        "templates/docs/api.html-fragment": "rendered copy of a document beside it (rule rendered-docs)",
        "static/icons.json": skipped["static/icons.json"],
        "crates/a/CHANGELOG.md": "symlink to a file indexed under its own path (rule symlink-copy)",
        "crates/b/CHANGELOG.md": "symlink to a file indexed under its own path (rule symlink-copy)",
        "crates/other.md": "symlink to a file indexed under its own path (rule symlink-copy)",
        "notes/linked.md": "symlink to a file indexed under its own path (rule symlink-copy)",
        "locale/de/LC_MESSAGES/django.po": "translation catalog (rule translations)",
        "staticfiles/staticfiles.json": skipped["staticfiles/admin/base.css"],
        "staticfiles/admin/base.css": "collected static files: a folder holding Django's staticfiles.json "
                                 "manifest (rule collected-static)",
        "storage/app/demo/family.ged": "runtime files of a Laravel app: uploads, caches, logs under "
                                       "storage/app, storage/framework, storage/logs beside artisan "
                                       "(rule app-storage)",
        "migrations/2022-10-18_add_events/down.sql": "reverse of the SQL migration beside it "
                                                     "(rule reverse-migration)",
    }
    assert skipped["static/icons.json"].endswith("(rule long-lines)")
    indexed = set(engine.get_all_indexed_paths())
    assert {"app/Player.php", "CHANGELOG.md", "templates/docs/api.md", "shared/outside.md",
            "migrations/2022-10-18_add_events/up.sql"} <= indexed
    assert not indexed & set(skipped)
    assert engine.excluded_reason(project / "composer.lock") == "lock file (rule lock-file)"
    assert engine.excluded_reason(project / "crates/a/CHANGELOG.md") == skipped["crates/a/CHANGELOG.md"]
    assert engine.excluded_reason(project / "templates/docs/api.html-fragment") is not None
    collected = "staticfiles/admin/base.css"
    assert engine.excluded_reason(project / collected) == skipped[collected]
    stored = "storage/app/demo/family.ged"
    assert engine.excluded_reason(project / stored) == skipped[stored]


def test_skip_noise_empty_indexes_everything(make_engine, project: Path) -> None:
    _app(project)
    kept = make_engine(skip_noise=[]).index_directory()
    assert kept.skipped == []


def test_previously_indexed_file_is_removed_when_a_rule_skips_it(make_engine, project: Path) -> None:
    _app(project)
    persistent = {"provider": "turboquant"}
    engine = make_engine(skip_noise=[], vector_store=persistent)
    engine.index_directory()
    assert "composer.lock" in engine.get_all_indexed_paths()
    engine.close()
    again = make_engine(vector_store=persistent)
    report = again.index_directory()
    indexed = again.get_all_indexed_paths()
    assert "composer.lock" not in indexed and "static/icons.json" not in indexed
    assert "crates/a/CHANGELOG.md" not in indexed and report.files_removed >= 4


def test_a_naming_include_pattern_wins_over_the_rules(make_engine, project: Path) -> None:
    _app(project)
    engine = make_engine(include=["composer.lock", "static/icons.json", "staticfiles/admin/base.css",
                                  "app/**"])
    report = engine.index_directory()
    assert report.skipped == []
    assert sorted(engine.get_all_indexed_paths()) == ["app/Player.php", "composer.lock",
                                                      "static/icons.json", "staticfiles/admin/base.css"]



def test_data_dump_is_a_large_data_file_under_fixtures_or_seeds() -> None:
    big, small = (lambda: DATA_DUMP_MIN_BYTES), (lambda: DATA_DUMP_MIN_BYTES - 1)
    for path in ("wger/exercises/fixtures/translations.json", "fixtures/users.yaml",
                 "db/seeds/ingredients.csv", "database/seeders/data/countries.JSON",
                 "app/fixture/rows.xml", "db/seed_data/plans.yml", "spec/fixtures/feeds/x.ndjson"):
        assert data_dump(path, big), path
        assert not data_dump(path, small), path  # a test's few rows
    for path in ("wger/exercises/translations.json", "config/fixtures.json", "openapi-schema.yml",
                 "wger/fixtures/loader.py", "database/seeders/UserSeeder.php", "fixtures.yaml/x.txt"):
        assert not data_dump(path, big), path
    asked: list[str] = []
    assert not data_dump("app/models.py", lambda: asked.append("size") or 10**9)
    assert asked == []  # only a fixture's path is worth a stat


def _records(count: int) -> str:
    """A fixture as ``dumpdata`` writes it: one short line per field."""
    return "[\n" + ",\n".join(f'  {{\n    "model": "exercises.translation",\n    "pk": {n},\n'
                                f'    "fields": {{"name": "Exercise {n}", "language": 2}}\n  }}'
                                for n in range(count)) + "\n]\n"


def test_a_data_dump_is_skipped_and_an_index_drops_it_and_include_brings_it_back(
        make_engine, project: Path) -> None:
    write(project, "app/exercises/loader.py", "def load():\n    return call_command('loaddata')\n")
    write(project, "app/exercises/fixtures/translations.json", _records(1000))  # over 100 kB
    write(project, "app/core/fixtures/test-users.json", _records(10))
    dump = "app/exercises/fixtures/translations.json"
    persistent = {"provider": "turboquant"}
    before = make_engine(skip_noise=[], vector_store=persistent)  # indexed before the rule
    assert before.index_directory().skipped == [] and dump in before.get_all_indexed_paths()
    before.close()
    engine = make_engine(vector_store=persistent)
    report = engine.index_directory()
    assert {s.path: s.reason for s in report.skipped} == {
        dump: "data dump: a JSON, YAML, XML or CSV file of 100 kB or more under a fixtures or "
              "seeds folder (rule data-fixtures)"}
    assert dump not in engine.get_all_indexed_paths() and report.files_removed == 1
    assert engine.excluded_reason(project / dump) == report.skipped[0].reason
    assert make_engine(skip_noise=["long-lines"]).index_directory().skipped == []
    named = make_engine(include=["app/**", dump])
    assert named.index_directory().skipped == []
