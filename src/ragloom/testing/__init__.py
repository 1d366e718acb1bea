"""Conformance suites for backends: ``ragloom.testing.stores.StoreConformance`` and
``ragloom.testing.embeddings.EmbedderConformance``. Import them from a test module (they
need pytest); ragloom runs them on its own backends and plugin authors on theirs."""
