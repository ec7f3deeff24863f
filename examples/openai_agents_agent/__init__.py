"""A refund desk built with the OpenAI Agents SDK, replayed through corpus-tool's adapter."""
