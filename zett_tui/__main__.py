"""``python -m zett_tui`` runs zett.

``python -m`` puts the current folder first on ``sys.path``: every module zett imported from then
on (``argparse``, ``rich``, a lazily imported one hours later) would be looked for in the project
first, where a sandboxed command writes, and run outside the sandbox. The ``zett`` command does not
do that; here the folder is taken off the path before anything else is imported. (A ``zett_tui``
folder in the project itself would still win: the ``zett`` command, or ``python -P -m zett_tui``,
has no such gap.)
"""

import os
import sys


def _without_the_current_folder(entries: list[str]) -> list[str]:
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:
        here = None
    return [entry for entry in entries if entry and os.path.realpath(entry) != here]


sys.path[:] = _without_the_current_folder(sys.path)

from zett_tui.cli import run  # noqa: E402  (after the path is safe)

run()
