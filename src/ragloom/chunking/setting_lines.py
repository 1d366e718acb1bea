"""Python settings read from the environment, in words: what the embedder and BM25 read of
a line that sets a setting from an environment variable.

Django and Flask settings modules read most options from the environment:
``REGISTRATION_OPEN = env.bool("REGISTRATION_OPEN", True)``, ``EMAIL_HOST =
os.environ.get("EMAIL_HOST")``, ``DEBUG = os.getenv("DEBUG", "False") == "True"``,
``FEATURES['SIGNUP'] = config('SIGNUP', default=False, cast=bool)``. A developer asks
"which environment variable turns off sign-ups" or "what is the default for the session
age": the words *setting*, *environment variable* and *default* are in the question, never
in the line (``env.bool`` and ``os.environ.get`` are punctuation to the model). So in the
indexed text (``context.indexed_text``; the stored text stays the file's exact slice) such a
line becomes ``setting REGISTRATION_OPEN from environment variable REGISTRATION_OPEN
default True``, as ``route_lines`` reads a route registration.
"""

from __future__ import annotations

import re

#: An environment lookup: ``os.getenv("X"``, ``os.environ.get("X"``, ``os.environ["X"``,
#: django-environ's ``env("X"`` / ``env.bool("X"`` (any cast), python-decouple's
#: ``config("X"``, and helpers named for it (``envbool("X"``, ``get_env("X"``).
_LOOKUP = (r"(?:os\.getenv|os\.environ\.get|os\.environ\s*\[|environ\.get|env(?:\.\w+)?|"
           r"config|\w*env\w*)\(?\s*['\"](?P<variable>[A-Z][A-Z0-9_]*)['\"]")
#: A module-level setting assigned from a lookup: ``NAME = ...lookup...`` or
#: ``DICT['KEY'] = ...lookup...``; the default follows the variable's name.
_SETTING = re.compile(
    r"^(?P<indent>\s*)(?P<target>[A-Z][A-Z0-9_]*(?:\[['\"][\w.-]+['\"]\])*)\s*(?::[^=]+)?=\s*(?P<value>.*)$")
_LOOKUP_IN = re.compile(_LOOKUP)
#: What follows the variable's name: ``, True)``, ``, default=30)``, ``) or "False"``.
_DEFAULT = re.compile(r"^['\"]\s*(?:,\s*(?:default\s*=\s*)?(?P<argument>'[^']*'|\"[^\"]*\"|[^,()]+?)\s*[,)]|"
                      r"\)\s*or\s+(?P<fallback>'[^']*'|\"[^\"]*\"|[\w.]+))")
#: Characters of a default worth reading (a long URL or list says little more).
_DEFAULT_CHARACTERS = 60


def readable_settings(text: str) -> str:
    """``text`` with every setting read from the environment in words (module doc);
    ``text`` itself when it reads none."""
    if "env" not in text and "config(" not in text:
        return text
    lines = text.split("\n")
    changed = False
    for number, line in enumerate(lines):
        setting = _SETTING.match(line)
        if setting is None:
            continue
        lookup = _LOOKUP_IN.search(setting.group("value"))
        if lookup is None:
            continue
        target = re.sub(r"\[['\"]([\w.-]+)['\"]\]", r" \1", setting.group("target"))
        words = ["setting", target, "from environment variable", lookup.group("variable")]
        rest = setting.group("value")[lookup.end() - 1:]
        default = _DEFAULT.match(rest)
        value = default and (default.group("argument") or default.group("fallback"))
        value = (value or "").strip("'\"")
        if value and len(value) <= _DEFAULT_CHARACTERS:
            words += ["default", value]
        lines[number] = setting.group("indent") + " ".join(words)
        changed = True
    return "\n".join(lines) if changed else text
