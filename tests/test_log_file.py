"""The log file: a record that cannot be written is dropped without a word on the terminal, and
``zett acp``'s log is redacted like the app's."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from zett_tui.core.logs import setup_logging
from zett_tui.core.redacted_log import log_redaction


@pytest.fixture
def root_handlers() -> Iterator[None]:
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    yield
    for handler in root.handlers[:]:
        if handler not in before:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


def test_a_log_whose_folder_was_removed_writes_nothing_on_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], root_handlers: None
) -> None:
    state = tmp_path / "state"
    setup_logging(lambda text: text, path=state / "zett.log")
    shutil.rmtree(state)  # the user cleans their state folder before zett logs anything
    logging.getLogger("zett_tui.test").warning("after the folder went: %s", "a secret-ish word")
    captured = capfd.readouterr()
    assert "Logging error" not in captured.err
    assert "secret-ish" not in captured.err + captured.out


def test_zett_acps_log_is_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root_handlers: None
) -> None:
    key = "sk-ant-api03-" + "Q7x" * 30
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    redact = log_redaction()
    target = setup_logging(redact, path=tmp_path / "zett.log")
    logging.getLogger("zett_tui.test").warning("request failed with key %s", key)
    for handler in logging.getLogger().handlers:
        handler.flush()
    written = target.read_text()
    assert "request failed with key" in written
    assert key not in written
