"""``from ragloom.llm import send`` (the Gemini integration under its first name).

The provider-neutral parts live in ``ragloom.integrations.base``, Gemini in
``ragloom.integrations.gemini``, the OpenAI-compatible API in
``ragloom.integrations.openai_compatible``.
"""

from ragloom.integrations.base import SendResult, retrieve_for
from ragloom.integrations.context import system_instruction
from ragloom.integrations.gemini import DEFAULT_MODEL, resolve_client, send, send_detailed

__all__ = ["DEFAULT_MODEL", "SendResult", "resolve_client", "retrieve_for", "send", "send_detailed",
           "system_instruction"]
