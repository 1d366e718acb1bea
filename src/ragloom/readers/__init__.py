"""Readers turn a file's bytes into the text ragloom chunks (plain text today; plugins add
formats such as PDF by registering a reader for their extension)."""

from ragloom.readers.base import Reader, ReadText, SkipFile, SpanLookup, TextSpan
from ragloom.readers.registry import FileReaders, reader_name_for, readers

__all__ = ["FileReaders", "ReadText", "Reader", "SkipFile", "SpanLookup", "TextSpan",
           "reader_name_for", "readers"]
