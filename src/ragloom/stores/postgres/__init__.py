"""The Postgres (pgvector) store: one index shared by any number of processes and machines."""

from ragloom.stores.postgres.settings import PostgresSettings, Tables, table_name

__all__ = ["PostgresSettings", "Tables", "table_name"]
