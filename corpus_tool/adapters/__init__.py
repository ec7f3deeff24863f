"""Framework adapters: a team's OpenAI Agents SDK, LangChain/LangGraph or pydantic-ai agent,
unchanged, with its model and its tools answered through the `Runtime`.

Each module imports its framework (installed by the extra of the same name:
`pip install corpus-tool[openai-agents]`, `[langchain]`, `[pydantic-ai]`) and nothing else in
corpus-tool imports a framework: an import-linter contract holds the rest of the package to it.
What an adapter sends `rt.model` is what the framework's own tracing export records, in the
chat shape the importers write, so a case added from that export replays strictly.
"""
