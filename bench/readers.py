"""PDF readers compared on the same files: pypdf (ragloom's ``pdf`` reader) and
pdfminer.six, pages/second, MB/second, and the share of pages whose extracted text holds
the sentences known to be on them.

Files: PDFs made here with fpdf2 from known text (Cranfield abstracts, two per page, 200
pages; a two-column page; a page without text) and two real PDFs from Debian packages'
documentation (pdfTeX), with sentences picked from their pages.

    python bench/readers.py [--runs 3]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _data import cranfield_texts  # noqa: E402

from documents import MadePdf, normalized, text_pdf, two_column_pdf  # noqa: E402

REAL_PDFS: dict[str, dict[int, list[str]]] = {
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf": {
        5: ["The ::= token must be separate from other elements, so the following declaration "
            "is invalid"],
        12: ["Creates the structures needed to manage the ASN.1 definitions."],
        20: ["Creates a length-value DER encoding for the input data as it would have been for "
             "a BIT STRING."],
    },
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf": {
        2: ["it was clear that the differences between the databases were simply a result of "
            "them being separate"],
        6: ["Note that this doesn’t indicate the user’s preferred application, only the (fixed) "
            "default."],
        10: ["Each XMLnamespaces file is a list of lines in the form"],
    },
}


def cranfield_pdf(pages: int = 200) -> MadePdf:
    """Two Cranfield abstracts per page; each page must yield both abstracts' first sentence."""
    from fpdf import FPDF

    documents = [text for _, text in cranfield_texts()][: 2 * pages]
    pdf = FPDF()
    pdf.set_font("Helvetica", size=10)
    sentences: dict[int, list[str]] = {}
    for number in range(1, pages + 1):
        pdf.add_page()
        pair = documents[2 * number - 2: 2 * number]
        for text in pair:
            pdf.multi_cell(0, 5, text.encode("latin-1", "replace").decode("latin-1"))
            pdf.ln(4)
        sentences[number] = [normalized(text.split(".")[0]) for text in pair if text.split(".")[0]]
    return MadePdf(bytes(pdf.output()), sentences)


def with_pypdf(data: bytes) -> list[str]:
    from ragloom.readers.pdf import PdfReader

    read = PdfReader().read("bench.pdf", data)
    lines = read.text.splitlines()
    texts = {span.metadata["page"]: "\n".join(lines[span.start_line - 1: span.end_line])
             for span in read.spans}
    return [texts.get(number, "") for number in range(1, max(texts, default=0) + 1)]


def with_pdfminer(data: bytes) -> list[str]:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer

    return ["".join(element.get_text() for element in page if isinstance(element, LTTextContainer))
            for page in extract_pages(io.BytesIO(data))]


def found_share(pages: list[str], expected: dict[int, list[str]]) -> float:
    """Share of pages with expected sentences whose text holds all of them."""
    hits = sum(all(normalized(s) in normalized(pages[n - 1]) if n <= len(pages) else False
                   for s in sentences) for n, sentences in expected.items())
    return hits / len(expected)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    files: dict[str, MadePdf] = {"cranfield (fpdf2, 200 pages)": cranfield_pdf(),
                                 "three pages, one empty (fpdf2)": text_pdf(),
                                 "two columns (fpdf2)": two_column_pdf()}
    for path, sentences in REAL_PDFS.items():
        if Path(path).is_file():
            files[Path(path).name + " (pdfTeX)"] = MadePdf(Path(path).read_bytes(), sentences)
    readers: dict[str, Callable[[bytes], list[str]]] = {"pypdf": with_pypdf, "pdfminer.six": with_pdfminer}
    print(f"{'file':34} {'reader':13} {'pages':>5} {'pages/s':>8} {'MB/s':>6} {'sentences':>9}")
    totals: dict[str, list[float]] = {name: [0.0, 0.0, 0.0, 0.0] for name in readers}
    for label, made in files.items():
        for name, read in readers.items():
            seconds = []
            for _ in range(args.runs):
                started = time.perf_counter()
                pages = read(made.data)
                seconds.append(time.perf_counter() - started)
            median = statistics.median(seconds)
            page_count = len(with_pdfminer(made.data)) if name == "pypdf" else len(pages)
            share = found_share(pages, made.sentences)
            megabytes = len(made.data) / 1e6
            print(f"{label:34} {name:13} {page_count:5d} {page_count / median:8.1f} "
                  f"{megabytes / median:6.2f} {share:9.0%}")
            total = totals[name]
            total[0] += page_count
            total[1] += median
            total[2] += share * len(made.sentences)
            total[3] += len(made.sentences)
    for name, (pages, seconds, hits, checked) in totals.items():
        print(f"all files: {name:13} {pages / seconds:8.1f} pages/s, "
              f"{hits:.0f}/{checked:.0f} pages with their sentences ({hits / checked:.1%})")


if __name__ == "__main__":
    main()
