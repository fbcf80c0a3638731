"""Saving one setting into a file the user wrote by hand: where a new key lands, odd layouts,
a really read-only mount, and readers during concurrent saves.

tests/test_config_saving.py covers CRLF, the BOM, symlinks, the size bound and the lock; this
file adds the layouts tomlkit alone gets wrong (``config/toml_edit.py`` corrects them).
"""

from __future__ import annotations

import os
import stat
import threading
import tomllib
from pathlib import Path

import pytest

from tests.fakes.mounts import read_only_bind
from zett_tui.config.settings import ConfigSaveError, save_user_setting

HAND_WRITTEN = """\
# zett, set up by hand
model = "openai:gpt-4o"   # work

[ui]
bell = false # tmux rings anyway

# endpoints I run at home
[endpoints.local]
base_url = "http://127.0.0.1:8080/v1"
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "user" / "config.toml"
    path.parent.mkdir()
    return path


def _without(text: str, line: str) -> str:
    assert line in text, f"{line!r} is not in the file:\n{text}"
    return text.replace(line, "", 1)


def test_a_new_key_goes_under_its_table_and_the_next_headers_comment_stays_with_it(config: Path) -> None:
    config.write_text(HAND_WRITTEN)
    save_user_setting(config, "ui.theme", "nord")
    text = config.read_text()
    assert text == HAND_WRITTEN.replace(
        "bell = false # tmux rings anyway\n", 'bell = false # tmux rings anyway\ntheme = "nord"\n'
    )
    assert _without(text, 'theme = "nord"\n') == HAND_WRITTEN


def test_a_changed_value_keeps_its_comment_and_spacing(config: Path) -> None:
    config.write_text(HAND_WRITTEN)
    save_user_setting(config, "model", "demo")
    assert config.read_text() == HAND_WRITTEN.replace('"openai:gpt-4o"   # work', '"demo"   # work')


def test_a_top_level_key_goes_above_the_first_table_and_its_comments(config: Path) -> None:
    config.write_text("# my tables\n[ui]\nbell = false\n")
    save_user_setting(config, "model", "demo")
    assert config.read_text() == 'model = "demo"\n\n# my tables\n[ui]\nbell = false\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ui = 3\n", "ui is not a table"),
        ('ui = "dark"\n', "ui is not a table"),
        ("[[ui]]\nbell = true\n", "ui is not a table"),
        ('model = "a"\nmodel = "b"\n', "not valid TOML"),
        ("[ui]\nbell = true\n[ui]\ntheme = 'x'\n", "not valid TOML"),
        ("model = \n", "not valid TOML"),
        ('model = "\x00"\n', "not valid TOML"),
    ],
)
def test_a_file_that_cannot_take_the_key_is_never_rewritten(config: Path, text: str, message: str) -> None:
    config.write_text(text)
    with pytest.raises(ConfigSaveError, match=message) as raised:
        save_user_setting(config, "ui.theme", "nord")
    assert "\n" not in str(raised.value)
    assert config.read_text() == text


@pytest.mark.parametrize(
    "text",
    [
        "ui.bell = false\n",
        "[ui]\nbell.extra = 1\n",
        '[ui]\nbell = false\n\n[[extensions.list]]\nname = "a"\n',
        "ui = { bell = false }\n",
        'model = """multi\nline"""\n[ui]\n',
        "arr = [\n  1, # one\n  2,\n]\n[ui]\nbell = true\n",
        "[endpoints.local]\n[ui]\n",
    ],
)
def test_unusual_layouts_get_the_key_and_keep_every_other_value(config: Path, text: str) -> None:
    config.write_text(text)
    before = tomllib.loads(text)
    save_user_setting(config, "ui.theme", "nord")
    after = tomllib.loads(config.read_text())
    assert after["ui"]["theme"] == "nord"
    del after["ui"]["theme"]
    assert after == before


def test_a_read_only_folder_is_one_line_and_the_file_is_kept(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "config.toml").write_text(HAND_WRITTEN)
    with read_only_bind(folder):
        with pytest.raises(ConfigSaveError, match=r"is read-only; ui\.theme was not saved") as raised:
            save_user_setting(folder / "config.toml", "ui.theme", "nord")
        assert "\n" not in str(raised.value)
        assert (folder / "config.toml").read_text() == HAND_WRITTEN


def test_a_file_that_cannot_be_read_is_not_replaced(config: Path) -> None:
    config.mkdir()
    with pytest.raises(ConfigSaveError, match="is not a regular file"):
        save_user_setting(config, "ui.theme", "nord")
    assert config.is_dir()


def test_two_writers_at_once_never_leave_a_half_file_and_the_file_stays_private(config: Path) -> None:
    config.write_text(HAND_WRITTEN)
    os.chmod(config, 0o600)
    seen_broken: list[str] = []
    stop = threading.Event()

    def read_all_the_time() -> None:
        while not stop.is_set():
            try:
                tomllib.loads(config.read_text())
            except tomllib.TOMLDecodeError as error:
                seen_broken.append(str(error))
            except FileNotFoundError:
                seen_broken.append("missing")

    def write(key: str, values: list[str]) -> None:
        for value in values:
            save_user_setting(config, key, value)

    reader = threading.Thread(target=read_all_the_time)
    writers = [
        threading.Thread(target=write, args=("ui.theme", ["nord", "dracula"] * 20)),
        threading.Thread(target=write, args=("model", ["demo", "openai:gpt-4o"] * 20)),
    ]
    reader.start()
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join()
    stop.set()
    reader.join()
    assert seen_broken == []
    final = tomllib.loads(config.read_text())
    assert final["endpoints"]["local"]["base_url"] == "http://127.0.0.1:8080/v1"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
