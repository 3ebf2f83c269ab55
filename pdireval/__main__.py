"""``python -m pdireval``: the command line (``pdireval --help``); no arguments runs the demo."""

from __future__ import annotations

from pdireval.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
