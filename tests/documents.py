"""Documents made in the test from known text, so what a reader extracts can be checked
exactly: PDFs (fpdf2: one column, two columns, a page without text, broken ones)."""

from __future__ import annotations

import io
from dataclasses import dataclass

#: Page texts of ``text_pdf()``; page 2 has no text layer.
PAGES = (
    "Lift grows with the angle of attack until the wing stalls. "
    "Stall arrives earlier on a rough wing.",
    "",
    "Drag rises sharply near the speed of sound. Swept wings delay the rise.",
)
LEFT_COLUMN = "Boundary layers thicken downstream of the leading edge."
RIGHT_COLUMN = "Shock waves form where the flow exceeds the speed of sound."


@dataclass(frozen=True)
class MadePdf:
    data: bytes
    #: Sentences each page must yield (1-based page -> sentences).
    sentences: dict[int, list[str]]


def _document():  # type: ignore[no-untyped-def]
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    return pdf


def text_pdf() -> MadePdf:
    """Three pages of ``PAGES``: text, no text, text."""
    pdf = _document()
    for text in PAGES:
        pdf.add_page()
        if text:
            pdf.multi_cell(0, 6, text)
    sentences = {number: _sentences(text) for number, text in enumerate(PAGES, start=1) if text}
    return MadePdf(bytes(pdf.output()), sentences)


def two_column_pdf(repeats: int = 4) -> MadePdf:
    """One page in two columns: ``LEFT_COLUMN`` repeated, then ``RIGHT_COLUMN`` repeated."""
    pdf = _document()
    pdf.add_page()
    with pdf.text_columns(ncols=2, gutter=10) as columns:
        columns.write(" ".join([LEFT_COLUMN] * repeats))
        columns.new_column()
        columns.write(" ".join([RIGHT_COLUMN] * repeats))
    return MadePdf(bytes(pdf.output()), {1: [LEFT_COLUMN, RIGHT_COLUMN]})


def image_only_pdf() -> bytes:
    """Two pages with drawings and no text layer (what a scanner makes, text-wise)."""
    pdf = _document()
    for _ in range(2):
        pdf.add_page()
        pdf.rect(20, 20, 100, 60, style="F")
    return bytes(pdf.output())


def encrypted_pdf(password: str = "s3cret") -> bytes:
    """``text_pdf()`` encrypted with a user password (RC4, which pypdf opens unaided)."""
    import pypdf

    writer = pypdf.PdfWriter(clone_from=io.BytesIO(text_pdf().data))
    writer.encrypt(user_password=password, owner_password=password, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def zero_page_pdf() -> bytes:
    import pypdf

    out = io.BytesIO()
    pypdf.PdfWriter().write(out)
    return out.getvalue()


def normalized(text: str) -> str:
    """Whitespace collapsed, for checking that a sentence survived extraction."""
    return " ".join(text.split())


def _sentences(text: str) -> list[str]:
    return [part.strip() + "." for part in text.split(".") if part.strip()]
