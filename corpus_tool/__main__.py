"""`python -m corpus_tool` runs the command line."""

from __future__ import annotations

import sys

from corpus_tool.cli import main

sys.exit(main())
