"""The version of corpus-tool (what results documents and `--version` report)."""

__version__ = "0.1.0"
