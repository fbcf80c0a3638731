"""The wheel carries the bundled extensions and themes inside the package, and works installed."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode != 0 and "hatchling" in result.stderr:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out), str(ROOT)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert result.returncode == 0, result.stderr[-2000:]
    [built] = out.glob("zett-*.whl")
    return built


def test_wheel_has_no_bare_top_level_modules(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/")[0] for name in names}
    assert "extensions" not in top_level and "themes" not in top_level
    assert "zett_tui/_bundled/extensions/tool_output.py" in names
    assert any(name.startswith("zett_tui/_bundled/themes/") for name in names)
    assert not any("/tests/" in name or name.startswith("tests/") for name in names)


def test_installed_wheel_finds_its_bundled_extensions(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        timeout=300,
    )
    script = (
        "import zett_tui.core.paths as p, zett_tui.runtime.extensions.loader as l;"
        "d = p.bundled_dir('extensions'); print(d);"
        "print(l.load_bundled('tool_output', 'ToolOutputOutsideProject').__name__)"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )
    assert result.returncode == 0, result.stderr
    folder, name = result.stdout.split()
    assert folder.startswith(str(target)) and folder.endswith("zett_tui/_bundled/extensions")
    assert name == "ToolOutputOutsideProject"
    version = subprocess.run(
        [sys.executable, "-m", "zett_tui", "--version"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert version.stdout.strip().startswith("zett ")
