"""Fail when a function's cyclomatic complexity, as radon counts it, is above 15.

radon counts boolean operators as branches (ruff's mccabe check does not), so this is the
stricter of the two. Usage: python .ci/complexity.py pdireval
"""

from __future__ import annotations

import sys
from pathlib import Path

from radon.complexity import cc_visit

LIMIT = 15


def main(folder: str) -> int:
    too_complex = []
    for path in sorted(Path(folder).rglob("*.py")):
        for block in cc_visit(path.read_text(encoding="utf-8")):
            if block.complexity > LIMIT:
                name = (
                    f"{block.classname}.{block.name}"
                    if getattr(block, "classname", None)
                    else block.name
                )
                too_complex.append(f"{path}:{block.lineno} {name} {block.complexity}")
    for line in too_complex:
        print(line)
    print(f"{len(too_complex)} function(s) above complexity {LIMIT}")
    return 1 if too_complex else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "pdireval"))
