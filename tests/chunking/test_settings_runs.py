"""A Python settings module's run of assignments: cut between settings, comments kept with
what they document, sections kept whole, each part named by the settings it assigns."""

from __future__ import annotations

from ragloom.chunking.python_ast import PythonAstChunker

SETTINGS = '''import os

import environ

env = environ.Env()

# Build paths inside the project like this: BASE_DIR / "subdir".
BASE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEBUG = env.bool("DJANGO_DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "change-me")

# Database
# Set DATABASE_URL to use PostgreSQL instead of the bundled SQLite file.
DATABASES = {
    "default": env.db("DATABASE_URL", default="sqlite:///db.sqlite3"),
}
CONN_MAX_AGE = env.int("CONN_MAX_AGE", 60)

# Email
# Without EMAIL_HOST mail is printed to the console.
EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
if os.getenv("EMAIL_HOST"):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = os.getenv("EMAIL_HOST")
    EMAIL_PORT = int(os.getenv("EMAIL_PORT", "587"))

# Features
FEATURES = {}
# Let visitors create their own accounts.
FEATURES["REGISTRATION_OPEN"] = env.bool("REGISTRATION_OPEN", True)
FEATURES["INVITES_ONLY"] = env.bool("INVITES_ONLY", False)
TIME_ZONE = "UTC"
'''


def parts(text: str, size: int, path: str = "project/settings.py") -> list[tuple[int, int, object, object]]:
    return [(c.metadata["start_line"], c.metadata["end_line"], c.metadata.get("symbol"),
             c.metadata.get("symbols")) for c in PythonAstChunker(size, 40).chunk(text, path)]


def test_a_settings_run_is_cut_at_its_sections_and_named_by_its_settings() -> None:
    # by lines, parts ended on a section's comment and inside the DATABASES dict, unnamed
    assert parts(SETTINGS, 400) == [
        (1, 5, None, None),
        (7, 10, "BASE_DIR", "BASE_DIR, DEBUG, SECRET_KEY"),
        (12, 17, "DATABASES", "DATABASES, CONN_MAX_AGE"),
        (19, 25, "EMAIL_BACKEND", "EMAIL_BACKEND, EMAIL_HOST, EMAIL_PORT"),
        (27, 32, "FEATURES", "FEATURES, FEATURES.REGISTRATION_OPEN, FEATURES.INVITES_ONLY, TIME_ZONE"),
    ]


def test_a_section_over_a_window_is_packed_between_statements_with_their_comments() -> None:
    # at 200 characters the Email section (314) does not fit: its statements are packed,
    # the `if` block whole, the comments above the first setting kept with it
    chunks = PythonAstChunker(200, 40).chunk(SETTINGS, "project/settings.py")
    email = [c for c in chunks if 19 <= c.metadata["start_line"] <= 25]
    assert [(c.metadata["start_line"], c.metadata["end_line"]) for c in email] == [(19, 21), (22, 25)]
    assert email[0].text.startswith("# Email\n# Without EMAIL_HOST")
    assert email[1].metadata["symbols"] == "EMAIL_BACKEND, EMAIL_HOST, EMAIL_PORT"
    # the comment above a subscript setting opens its part, never ends the one before
    features = [c for c in chunks if c.metadata["start_line"] >= 27]
    assert all(not c.text.rstrip().splitlines()[-1].startswith("#") for c in chunks)
    assert "# Let visitors create their own accounts.\nFEATURES[\"REGISTRATION_OPEN\"]" in \
        "".join(c.text for c in features)


def test_a_dict_of_options_over_a_window_is_cut_between_its_entries() -> None:
    text = SETTINGS.replace('    "default": env.db("DATABASE_URL", default="sqlite:///db.sqlite3"),\n',
                            "".join(f'    "replica{n}": env.db("REPLICA_{n}_URL"),\n' for n in range(12)))
    names = [f"DATABASES.replica{n}" for n in range(12)]
    # one-line entries pack to half a window; the section's comments open the first part,
    # the closing brace ends the last, and the setting after the dict starts its own
    assert parts(text, 300)[2:7] == [
        (12, 16, names[0], ", ".join(names[0:2])),
        (17, 20, names[2], ", ".join(names[2:6])),
        (21, 24, names[6], ", ".join(names[6:10])),
        (25, 27, names[10], ", ".join(names[10:12])),
        (28, 28, "CONN_MAX_AGE", None),
    ]


def test_entries_of_several_lines_are_parts_of_their_own() -> None:
    rates = "".join(f"    # {scope} endpoints are rate limited per client.\n    '{scope}': {{\n"
                    f"        'anon': '{n}/min',\n        'user': '{n * 2}/min',\n    }},\n"
                    for n, scope in enumerate(["login", "search", "upload", "export", "import",
                                               "sync", "feed", "admin"], 1))
    text = "# API\nREST_FRAMEWORK = {\n" + rates + "}\n" + "".join(
        f"OPTION_{n} = {n}\n" for n in range(8))
    got = parts(text, 300, "config/settings.py")
    assert got[:3] == [(1, 7, "REST_FRAMEWORK.login", None), (8, 12, "REST_FRAMEWORK.search", None),
                       (13, 17, "REST_FRAMEWORK.upload", None)]
    assert got[7] == (38, 43, "REST_FRAMEWORK.admin", None)


def test_a_run_that_is_not_mostly_assignments_is_cut_by_lines() -> None:
    script = "import sys\n\n" + "".join(f"print('step {n}', file=sys.stderr)\n" for n in range(20)) \
        + "".join(f"LIMIT_{n} = {n}\n" for n in range(4))
    chunks = PythonAstChunker(200, 40).chunk(script, "tools/run.py")
    assert all(c.metadata.get("symbol") is None for c in chunks)
    assert len(chunks) >= 3


def test_lowercase_helpers_and_private_names_are_not_settings() -> None:
    text = "".join(f"# option {n}\nOPTION_{n} = {n}\n" for n in range(8)) \
        + "config = {'a': 1}\n_cache = None\nconfig['b'] = 2\nOPTIONS = {}\nOPTIONS[KEY] = 1\n" \
        + "LOW = 1; HIGH = 9\n"
    got = parts(text, 120)
    names = {name for *_, symbol, symbols in got for name in str(symbols or symbol or "").split(", ") if name}
    assert names == {f"OPTION_{n}" for n in range(8)} | {"OPTIONS", "LOW", "HIGH"}
    assert got[-1][1] == 22 and all(first <= last for first, last, *_ in got)


def test_small_sections_share_a_part_up_to_half_a_window() -> None:
    text = ("SITE_NAME = 'Baby Tracker'\n\n"
            "# Lockout after failed logins\n# See the axes documentation.\n\nAXES_COOLOFF_TIME = 1\n\n"
            "AXES_FAILURE_LIMIT = 5\n\n# `None` keeps the default proxy order.\nAXES_PROXY_ORDER = None\n\n"
            "AXES_LOCKOUT_URL = '/login/lock'\n\n"
            "# Sessions\n# How often the session is refreshed, in seconds.\nSESSION_REFRESH = 86400\n\n"
            "# Uploads\nMAX_UPLOAD_SIZE = 10 * 1024 * 1024\nUPLOAD_ROOT = '/srv/media'\n")
    # the lockout heading (a blank line under it) and its four settings stay together
    # although a comment after a blank line opens a section inside them; no part crosses
    # the heading; the two small sections after them share one
    assert parts(text, 300) == [
        (1, 1, "SITE_NAME", None),
        (3, 13, "AXES_COOLOFF_TIME", "AXES_COOLOFF_TIME, AXES_FAILURE_LIMIT, AXES_PROXY_ORDER, "
                                     "AXES_LOCKOUT_URL"),
        (15, 21, "SESSION_REFRESH", "SESSION_REFRESH, MAX_UPLOAD_SIZE, UPLOAD_ROOT")]
    # without the blank line the lockout comment heads nothing: the setting before joins
    assert parts(text.replace("documentation.\n\n", "documentation.\n"), 300)[0][:2] == (1, 12)


def test_a_committed_template_of_a_settings_module_is_python() -> None:
    from ragloom.chunking.registry import FileChunker, language_for_path
    from ragloom.config import RAGConfig

    assert [language_for_path(p) for p in ("project/local_settings.py.example", "settings.py.dist",
                                           "config/app.php.sample", ".env.example", "a.example")] == \
        ["python", "python", "php", "text", "text"]
    chunks = FileChunker(RAGConfig(chunk_size=400)).chunk(SETTINGS, "project/local_settings.py.example")
    assert chunks[1].metadata["language"] == "python"
    assert chunks[1].metadata["symbols"] == "BASE_DIR, DEBUG, SECRET_KEY"
