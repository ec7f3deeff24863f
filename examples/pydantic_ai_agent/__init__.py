"""A refund desk built with pydantic-ai, replayed through corpus-tool's adapter."""
