"""Building a google-genai Client from config or the environment (shared by the Gemini
embedding provider and ``send``). The key is never logged or put in an error message."""

from __future__ import annotations

import os
from typing import Any

from ragloom._optional import import_optional
from ragloom.errors import ConfigError

API_KEY_VARIABLES = ("GEMINI_API_KEY", "GOOGLE_API_KEY")


def api_key_from_environment() -> str | None:
    for variable in API_KEY_VARIABLES:
        if os.environ.get(variable):
            return os.environ[variable]
    return None


def genai_module(purpose: str) -> Any:
    """``google.genai``, or MissingDependencyError naming the ``gemini`` extra."""
    return import_optional("google.genai", "gemini", purpose)


def build_client(api_key: str | None, base_url: str | None, purpose: str) -> Any:
    """A google-genai Client for the Gemini API, optionally pointed at a gateway URL."""
    genai = genai_module(purpose)
    key = api_key or api_key_from_environment()
    if not key:
        raise ConfigError(
            f"{purpose} needs a Gemini API key: set [rag.embedding] api_key_env to the name of an "
            f"environment variable holding it, or set {' or '.join(API_KEY_VARIABLES)}"
        )
    http_options = genai.types.HttpOptions(base_url=base_url) if base_url else None
    return genai.Client(api_key=key, http_options=http_options)
