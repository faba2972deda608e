"""The live offer catalog: sources -> normalize -> validate -> store (SQLite | PostgreSQL)."""
