"""A closed pipe ends zett quietly: ``zett sessions list | head -1`` prints no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_a_reader_that_stops_early_leaves_no_traceback(project_dir: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "zett_tui", "sessions", "list", "--all"],
        cwd=project_dir,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before zett writes a byte
    err = process.stderr.read().decode()
    assert process.wait(timeout=30) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err and "internal error" not in err, err
