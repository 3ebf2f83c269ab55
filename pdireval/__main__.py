"""``python -m pdireval``: the command line (``pdireval --help``); no arguments runs the demo."""

from __future__ import annotations

from pdireval.cli import console

if __name__ == "__main__":
    console()
