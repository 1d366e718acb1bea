"""Rust files that are a web user interface, known by what they use rather than where they live.

A front end in a Rust workspace is a crate compiled to WebAssembly, and its folder is as
often named for nothing (``app/``, ``web/``, ``ui/``) as for the front end: it is not told
apart from the server by path, and most of such a file's chunks (a component's ``update``,
a request helper) hold no word of the framework: only the file does (its ``use yew::...``
lines, an ``html! {...}`` in one function). So a Rust file using a web UI framework (Yew's
``html! {...}`` / ``impl Component for``, Leptos' ``view! {...}``, Dioxus' ``rsx! {...}``,
``yew_router``, ``web_sys``, ``gloo``, ``wasm_bindgen``) gives every chunk the metadata
``interface = "component"`` when the file defines a component (it renders markup: a
``html!`` / ``rsx!`` / ``view!`` macro, ``impl Component for``, ``#[function_component]``),
else ``interface = "web"`` (a client router, a request helper). The front-end prior
(``retrieval.frontend_prior``) counts both as front end; a component, like a ``.vue``
file, is never inside a part of the application (``retrieval.path_prior``).
"""

from __future__ import annotations

import re

#: What only a Rust UI component does: render markup, implement a framework's component.
_COMPONENT = re.compile(
    r"\b(?:html|rsx|view)!\s*[{(]|\bimpl\s+(?:yew::)?Component\s+for\b|#\[(?:function_)?component\b")
#: What only a web user interface written in Rust uses.
_WEB = re.compile(r"\b(?:yew|yew_router|leptos|dioxus|sycamore|web_sys|gloo(?:_\w+)?|wasm_bindgen)::")


def interface_of(text: str, language: str) -> str | None:
    """``"component"`` or ``"web"`` for a Rust file that is (part of) a web user interface,
    else None."""
    if language != "rust":
        return None
    if _COMPONENT.search(text):
        return "component"
    if _WEB.search(text):
        return "web"
    return None
