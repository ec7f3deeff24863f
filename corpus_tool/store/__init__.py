"""The corpus on disk: its root and configuration, staged writes, recovery of an interrupted
write, erasure (`forget`), and the fault points a test injects kills at."""

from __future__ import annotations
