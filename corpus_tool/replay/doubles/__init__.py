"""Provider-level doubles answered from a case's recording: the OpenAI and Anthropic HTTP APIs and MCP servers."""
