"""Chat-model integrations: each module adapts one LLM API to the provider-neutral core
(``base.ChatIntegration``: retrieval, the context block and the ``rag_search`` tool are
shared; only the API calls differ).

``gemini``: google-genai. ``openai_compatible``: the OpenAI chat-completions API, which
OpenAI and most local servers (llama.cpp, vLLM, Ollama) speak.
"""
