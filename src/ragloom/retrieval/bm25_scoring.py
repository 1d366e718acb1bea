"""One query term's Okapi BM25 contribution, added to the scores of one segment's rows.

The term's idf is the caller's (it needs the document frequency over every segment); here
each posting adds idf x weight x tf (k1 + 1) / (tf + norm), with norm = k1 (1 - b + b x
length / average length) computed once per index version."""

from __future__ import annotations

import numpy as np

#: A term held by more than 1/DENSE_SHARE of a segment's rows is scored densely.
DENSE_SHARE = 8


def add_term_scores(scores: np.ndarray, matched: np.ndarray, length_norm: np.ndarray,
                     rows: np.ndarray, tfs: np.ndarray, scale: float) -> None:
    """Add scale x tf / (tf + norm) for one term's postings in one segment (scale = weight
    x idf x (k1 + 1)), and mark its rows matched. A term held by
    many rows is scored over the whole segment (contiguous arithmetic beats gathering and
    scattering most of it); a rare one only at its rows."""
    if len(rows) * DENSE_SHARE > len(scores):
        tf = np.zeros(len(scores))
        tf[rows] = tfs
        contribution = tf / (tf + length_norm)
        contribution *= scale
        scores += contribution
        matched |= tf > 0
        return
    rows = rows.astype(np.intp)  # converted once for the four indexings below
    contribution = length_norm[rows]
    contribution += tfs
    np.divide(tfs, contribution, out=contribution)
    contribution *= scale
    scores[rows] += contribution
    matched[rows] = True
