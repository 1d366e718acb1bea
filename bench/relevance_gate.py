"""Choosing the default relevance gate for the local model.

On each dev set (bench/retrieval_quality.py) it runs every judged query and 100 off-topic
queries (small talk and other domains, written for this bench) with the default settings
and no gate, then for each threshold prints, for a per-result cut (``min_score``) and for
a per-query gate (nothing when the best result is below it; ``relevance_gate``):

* lost: the share of judged queries with a relevant result in the top 10 that would lose
  every one of them (target <= 2%);
* silent: the share of off-topic queries for which nothing passes (target >= 90%).

Then the gate as ragloom applies it, cosine or lexical evidence
(``retrieval/relevance_gate.py``: a result holding a share of the query's words, with a
cosine down to a floor under the gate): "emptied", the judged queries left with nothing
at all (target 0), and "silent" as above.

    python bench/relevance_gate.py [--work-dir DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import CRANFIELD  # noqa: E402
from retrieval_quality import dev_sets  # noqa: E402

from ragloom.apps.eval import document_id  # noqa: E402
from ragloom.retrieval.relevance_gate import lexical_evidence  # noqa: E402
from ragloom.retrieval.tokenize import tokenize  # noqa: E402

OFF_TOPIC = """hello
hi there, how are you today?
thanks, that's all
good morning!
what's up
can you tell me a joke
who won the football world cup in 2018
what is the capital of australia
how tall is mount everest
best recipe for chocolate chip cookies
how long should I boil an egg
what wine goes with salmon
how do I get red wine out of a carpet
recommend a good science fiction novel
who painted the mona lisa
what time is it in tokyo
will it rain tomorrow in london
how many calories are in a banana
what are the symptoms of the flu
how can I improve my sleep
is coffee bad for your heart
how do I train for a marathon
what is the best exercise for back pain
how to make sourdough bread starter
translate good night into french
what does carpe diem mean
who wrote pride and prejudice
when did the roman empire fall
how many moons does jupiter have
what is the plot of hamlet
explain the rules of cricket
how do I change a flat tire
what is the cheapest way to fly to paris
how do I apply for a passport
best beaches in portugal
how to grow tomatoes on a balcony
why do cats purr
how often should I water a cactus
what breed of dog is best for children
how do I knit a scarf
what are good birthday gifts for a ten year old
how much should I tip at a restaurant
how do I write a wedding speech
tips for a job interview
how to ask for a raise
what is a good name for a goldfish
how do I meditate
what is the meaning of life
do you like music
sing me a song
what is your favourite colour
tell me about yourself
are you a robot
I'm bored
lol
ok
yes please
no thanks
goodbye
see you later
who is the president of france
what is the population of brazil
how does the stock market work
should I buy gold or bitcoin
how do mortgages work
what is a roth ira
how to lower my electricity bill
how do I unclog a drain
how to remove a wasp nest
what is the best way to clean windows
how do I iron a shirt
what to pack for a ski trip
how to fold a fitted sheet
how do I repot an orchid
which vitamins should I take in winter
what is the difference between a latte and a cappuccino
how to cook rice in a pot
vegan substitutes for eggs in baking
how long does it take to learn the piano
what key is the moonlight sonata in
who directed the godfather
what are the lyrics of yesterday by the beatles
how do volcanoes form
why is the sky blue
how far is the moon from the earth
what do whales eat
how do bees make honey
what is the tallest tree in the world
how old is the universe
when is the next solar eclipse
what causes hiccups
how to stop snoring
how to make a paper airplane
what are the rules of chess castling
how many players are on a basketball team
who holds the record for the 100 metres
best board games for families
how do I start a vegetable garden
what is the best pizza topping
what is the weather like in madrid in may""".split("\n")

THRESHOLDS = [0.1, 0.15, 0.2, *(round(0.01 * i, 2) for i in range(25, 41)), 0.45, 0.5]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work-dir", default="/tmp/ragloom-devsets")
    parser.add_argument("--dataset", default=str(CRANFIELD))
    args = parser.parse_args()
    assert len(OFF_TOPIC) == 100, len(OFF_TOPIC)
    sets = dev_sets(Path(args.work_dir), Path(args.dataset))
    measured, signals = [], []
    for dataset, engine in sets:
        engine.config.relevance_gate = False  # see every result; the gate is what is measured
        judged = []  # per query with a relevant hit in the top 10: (best relevant, best) cosine
        for query_id, text in dataset.queries.items():
            hits = engine.search(text, 10, min_score=-1.0)
            relevant = [r.score for r in hits
                        if dataset.qrels[query_id].get(document_id(r.id, r.metadata), 0) > 0]
            if relevant:
                judged.append((max(relevant), max(r.score for r in hits)))
        off_topic = [max((r.score for r in engine.search(q, 10, min_score=-1.0)), default=-1.0)
                     for q in OFF_TOPIC]
        measured.append((judged, off_topic))
        signals.append(([gate_signals(engine, q) for q in dataset.queries.values()],
                        [gate_signals(engine, q) for q in OFF_TOPIC]))
    for title, column in (("per result (min_score drops each result below it)", 0),
                          ("per query (nothing when the best result is below it)", 1)):
        print(f"\n{title}\n{'threshold':<10}"
              + "".join(f"{d.name + ' lost':>24}{'silent':>8}" for d, _ in sets))
        for threshold in THRESHOLDS:
            row = f"{threshold:<10}"
            for judged, off_topic in measured:
                lost = sum(pair[column] < threshold for pair in judged) / len(judged)
                silent = sum(s < threshold for s in off_topic) / len(off_topic)
                row += f"{100 * lost:>23.1f}%{100 * silent:>7.0f}%"
            print(row, flush=True)
    print(f"\ncosine or lexical evidence\n{'rule':<44}"
          + "".join(f"{d.name + ' emptied':>24}{'silent':>8}" for d, _ in sets))
    for gate, floor, share in LEXICAL_RULES:
        rule = f"cosine {gate}" + (f" or (cosine {floor} and words {share})" if floor else "")
        row = f"{rule:<44}"
        for real, off in signals:
            emptied = sum(not passes(pair, gate, floor, share) for pair in real)
            silent = sum(not passes(pair, gate, floor, share) for pair in off) / len(off)
            row += f"{emptied:>23} {100 * silent:>7.0f}%"
        print(row, flush=True)
    for _, engine in sets:
        engine.close()


#: (gate, cosine floor, share of the query's words) rules compared; None: cosine alone.
LEXICAL_RULES = [(0.35, None, 1.0), (0.33, None, 1.0), (0.30, None, 1.0), (0.35, 0.25, 0.66),
                 (0.35, 0.25, 0.5), (0.35, 0.2, 0.66), (0.35, 0.2, 0.5)]


#: Results the gate judges (relevance_gate.GATE_WINDOW: the best 5, whatever top_k is).
JUDGED = 5


def gate_signals(engine, query: str) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """The best cosine among the results the gate judges and the query's lexical evidence
    in them."""
    hits = engine.search(query, 10, min_score=-1.0)[:JUDGED]
    return max((r.score for r in hits), default=-1.0), lexical_evidence(tokenize(query), hits, tokenize)


def passes(pair: tuple[float, float], gate: float, floor: float | None, share: float) -> bool:
    cosine, lexical = pair
    return cosine >= gate or (floor is not None and cosine >= floor and lexical >= share)


if __name__ == "__main__":
    main()
