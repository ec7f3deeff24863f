"""The floor of `corpus validate`: read and parse every YAML file of a corpus with PyYAML's C
loader, nothing else (run as its own process by `python -m bench`).

    python bench/floor.py CORPUS_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml


def main() -> int:
    root = Path(sys.argv[1])
    count = 0
    for path in sorted(root.rglob("*.yaml")):
        yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
        count += 1
    print(count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
