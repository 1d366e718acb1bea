"""Chunking of markup that is code: an application's templates (Django/Jinja, Twig, Blade,
ERB, Handlebars, Go) by their blocks, and single-file components (Vue, Svelte) by their
sections (script as code, template by elements, style apart)."""

from ragloom.chunking.markup.chunker import TemplateChunker, component_name
from ragloom.chunking.markup.components import ComponentChunker
from ragloom.chunking.markup.syntax import SYNTAXES, template_language

__all__ = ["SYNTAXES", "ComponentChunker", "TemplateChunker", "component_name", "template_language"]
