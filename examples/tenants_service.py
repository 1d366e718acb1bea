"""A service answering for many customers from one index: one writer engine without a
tenant writes each customer's texts with ``tenant=``, and each customer's searches run on
an engine of that tenant, which sees nothing of the others (the store scopes every read).
Each customer's tier allows two tickets (``[rag.limits] max_files_per_tenant``): a third
is refused before anything of it is written, and each customer's status shows its share.

    python examples/tenants_service.py [FOLDER]
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from ragloom import QuotaExceededError, RAGConfig, RAGEngine

os.environ.setdefault("HF_HUB_OFFLINE", "1")

TICKETS = {
    "acme": {"t-1": "Our rocket engine overheats during the second burn.",
             "t-2": "Invoices for the launch pad are due in March."},
    "globex": {"t-1": "The banana plantation needs a new irrigation pump.",
               "t-2": "Shipping mangoes to Lisbon takes four days."},
}


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    provider = os.environ.get("RAGLOOM_EXAMPLE_PROVIDER", "local")
    config = RAGConfig(embedding={"provider": provider}, vector_store={"provider": "turboquant"},
                       limits={"max_files_per_tenant": 2})  # each customer's tier
    with RAGEngine(config, base_dir=folder) as service:  # writes for every customer
        for tenant, tickets in TICKETS.items():
            service.add_documents(list(tickets), list(tickets.values()), tenant=tenant)
        try:  # a third ticket is over acme's tier; globex's tickets are not acme's
            service.ingest_text("t-3", "The fuel valve sticks.", tenant="acme")
        except QuotaExceededError as refused:
            print(f"acme: refused: {refused}")
    for tenant in TICKETS:  # the same ids, the same question: each sees its own only
        with RAGEngine(config, base_dir=folder, tenant=tenant, read_only=True) as engine:
            [best] = engine.search("what breaks during the burn or the harvest?", top_k=1)
            print(f"{tenant}: {engine.count()} chunks; best: {best.metadata['source_id']} "
                  f"{best.text!r}")
            share = engine.status(count_pending=False).limits["max_files_per_tenant"]
            print(f"{tenant}: {share['used']} of {share['limit']} tickets")
            try:
                engine.search("anything", filters={"tenant": "globex"})
            except ValueError as refused:
                print(f"{tenant}: refused: {refused}")


if __name__ == "__main__":
    main()
