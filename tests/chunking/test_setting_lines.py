"""Python settings read from the environment in words in the indexed text: the word
``setting``, its name, the variable and the default, whatever the lookup; other lines and
other languages untouched."""

from __future__ import annotations

import pytest

from ragloom.chunking.context import indexed_text
from ragloom.chunking.measure import CHARACTERS
from ragloom.chunking.setting_lines import readable_settings


@pytest.mark.parametrize(("line", "expected"), [
    # django-environ: any cast, a positional or keyword default
    ('REGISTRATION_ENABLED = env.bool("REGISTRATION_OPEN", True)',
     "setting REGISTRATION_ENABLED from environment variable REGISTRATION_OPEN default True"),
    ("SESSION_AGE = env.int('SESSION_AGE', default=1209600)",
     "setting SESSION_AGE from environment variable SESSION_AGE default 1209600"),
    ('DATABASES = {"default": env.db("DATABASE_URL")}',
     "setting DATABASES from environment variable DATABASE_URL"),
    # os.getenv / os.environ, a fallback after `or`, a lookup inside a cast
    ('TIME_ZONE = os.getenv("TZ", "UTC")', "setting TIME_ZONE from environment variable TZ default UTC"),
    ('DEBUG = bool(strtobool(os.environ.get("DEBUG") or "False"))',
     "setting DEBUG from environment variable DEBUG default False"),
    ('SECRET_KEY = os.environ["SECRET_KEY"]', "setting SECRET_KEY from environment variable SECRET_KEY"),
    # a helper named for it, python-decouple, a dict entry, an annotated name, indented
    ('ALLOW_SIGNUP = envbool("ALLOW_SIGNUP")',
     "setting ALLOW_SIGNUP from environment variable ALLOW_SIGNUP"),
    ("FEATURES['SIGNUP']: bool = config('SIGNUP', default=False, cast=bool)",
     "setting FEATURES SIGNUP from environment variable SIGNUP default False"),
    ('    EMAIL_PORT = os.environ.get("EMAIL_PORT") or 25',
     "    setting EMAIL_PORT from environment variable EMAIL_PORT default 25"),
    # an empty default says nothing
    ('EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER") or ""',
     "setting EMAIL_HOST_USER from environment variable EMAIL_HOST_USER"),
])
def test_a_setting_from_the_environment_reads_as_setting_variable_and_default(line: str,
                                                                               expected: str) -> None:
    assert readable_settings(line) == expected


@pytest.mark.parametrize("line", [
    'TIME_ZONE = "UTC"',  # no lookup
    'value = os.getenv("HOME")',  # not a setting's name
    'if os.getenv("EMAIL_HOST"):',  # no assignment
    "EMAIL_BACKEND = 'django.core.mail.backends.smtp.EmailBackend'",
])
def test_other_lines_are_untouched(line: str) -> None:
    assert readable_settings(line) == line


def test_only_python_chunks_are_read_so() -> None:
    text = '# Sign-ups\nALLOW_SIGNUP = env.bool("ALLOW_SIGNUP", True)\nLIMIT = 3'
    read = indexed_text(CHARACTERS)
    python = read(text, {"source": "file", "path": "app/settings.py", "language": "python"})
    assert python.endswith("# Sign-ups\nsetting ALLOW_SIGNUP from environment variable ALLOW_SIGNUP "
                           "default True\nLIMIT = 3")
    ruby = read(text, {"source": "file", "path": "config/app.rb", "language": "ruby"})
    assert ruby.endswith(text)
