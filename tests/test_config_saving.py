"""Saving a setting into a config.toml the user wrote, when the file is not the easy case.

Every refusal leaves the file's bytes (and mode) as they were; every save keeps the rest of the
text byte for byte and leaves a 0600 file replaced atomically (no temporary file left behind).
"""

from __future__ import annotations

import fcntl
import os
import stat
import threading
import tomllib
from pathlib import Path

import pytest

from zett_tui.config import saving
from zett_tui.config.settings import ConfigSaveError, load_settings, save_user_setting
from zett_tui.config.toml_edit import set_toml_value

HAND_WRITTEN = (
    "# zett settings, hand written\n"
    "\n"
    'model = "openai:gpt-4o"   # the work model\n'
    "\n"
    "\n"
    "# looks\n"
    "[ui]\n"
    "bell    = false  # tmux rings anyway\n"
    "theme = 'nord'  # was dracula\n"
    "\n"
    "[endpoints.local]  # the llama box\n"
    'base_url = "http://127.0.0.1:8080/v1"\n'
)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    folder = tmp_path / "zett"
    folder.mkdir()
    return folder / "config.toml"


def _leftovers(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name != "config.toml")


def _assert_refused(config: Path, before: bytes, key: str, value: object, match: str) -> None:
    mode = stat.S_IMODE(config.lstat().st_mode)
    with pytest.raises(ConfigSaveError, match=match):
        save_user_setting(config, key, value)  # type: ignore[arg-type]
    assert config.read_bytes() == before
    assert stat.S_IMODE(config.lstat().st_mode) == mode


def test_changing_a_value_keeps_every_other_byte(config: Path) -> None:
    config.write_text(HAND_WRITTEN)
    save_user_setting(config, "ui.theme", "gruvbox")
    assert config.read_text() == HAND_WRITTEN.replace("'nord'", "'gruvbox'")


def test_adding_a_key_only_adds_its_line(config: Path) -> None:
    config.write_text(HAND_WRITTEN)
    save_user_setting(config, "ui.animations", False)
    lines = config.read_text().splitlines(keepends=True)
    added = [line for line in lines if line.startswith("animations")]
    assert added == ["animations = false\n"]
    lines.remove(added[0])
    assert "".join(lines) == HAND_WRITTEN
    assert lines.index("[endpoints.local]  # the llama box\n") > lines.index("[ui]\n")
    assert tomllib.loads(config.read_text())["ui"]["animations"] is False


def test_crlf_line_endings_stay_crlf_on_new_lines_too(config: Path) -> None:
    config.write_bytes(HAND_WRITTEN.replace("\n", "\r\n").encode())
    save_user_setting(config, "ui.animations", False)
    save_user_setting(config, "endpoints.other.base_url", "http://127.0.0.1:9/v1")
    expected = HAND_WRITTEN.replace("# was dracula\n", "# was dracula\nanimations = false\n")
    expected += '\n[endpoints.other]\nbase_url = "http://127.0.0.1:9/v1"\n'
    assert config.read_bytes() == expected.replace("\n", "\r\n").encode()


def test_a_utf8_bom_is_kept_and_the_file_still_loads(config: Path) -> None:
    config.write_bytes(b"\xef\xbb\xbf" + HAND_WRITTEN.encode())
    save_user_setting(config, "ui.theme", "gruvbox")
    raw = config.read_bytes()
    assert raw == b"\xef\xbb\xbf" + HAND_WRITTEN.replace("'nord'", "'gruvbox'").encode()
    settings, problems = load_settings(cwd=config.parent, env={}, user_config=config)
    assert problems == [] and settings.ui.theme == "gruvbox"


def test_a_symlink_is_followed_and_stays_a_link(config: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir(mode=0o755)
    os.chmod(dotfiles, 0o755)
    real = dotfiles / "zett.toml"
    real.write_text(HAND_WRITTEN)
    config.symlink_to(real)
    save_user_setting(config, "ui.theme", "gruvbox")
    assert config.is_symlink() and os.readlink(config) == str(real)
    assert real.read_text() == HAND_WRITTEN.replace("'nord'", "'gruvbox'")
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert stat.S_IMODE(dotfiles.stat().st_mode) == 0o755, "the dotfiles folder is the user's"
    assert _leftovers(dotfiles) == ["zett.toml"]


def test_a_link_to_nothing_or_to_itself_is_refused(config: Path, tmp_path: Path) -> None:
    config.symlink_to(tmp_path / "gone" / "zett.toml")
    with pytest.raises(ConfigSaveError, match="which does not exist"):
        save_user_setting(config, "ui.theme", "nord")
    assert config.is_symlink() and not (tmp_path / "gone").exists()
    config.unlink()
    config.symlink_to(config)
    with pytest.raises(ConfigSaveError, match="cannot be followed"):
        save_user_setting(config, "ui.theme", "nord")
    assert config.is_symlink()


def test_a_read_only_file_is_left_alone(config: Path) -> None:
    config.write_text(HAND_WRITTEN)
    os.chmod(config, 0o444)
    _assert_refused(
        config, HAND_WRITTEN.encode(), "ui.theme", "gruvbox", "is read-only; ui.theme was not saved"
    )


def test_a_read_only_folder_is_left_alone(config: Path) -> None:
    config.write_text(HAND_WRITTEN)
    os.chmod(config.parent, 0o500)
    try:
        _assert_refused(config, HAND_WRITTEN.encode(), "ui.theme", "gruvbox", "folder .* is read-only")
        assert _leftovers(config.parent) == []
    finally:
        os.chmod(config.parent, 0o700)


def test_a_write_that_fails_says_so_and_leaves_the_file(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config.write_text(HAND_WRITTEN)

    def full_disk(path: Path, write: object, **_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(saving.paths, "write_private", full_disk)
    _assert_refused(config, HAND_WRITTEN.encode(), "ui.theme", "x", "cannot write: No space left on device")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ui = 3\n", r"ui is not a table \(it is a number\)"),
        ('ui = "dark"\n', r"ui is not a table \(it is a string\)"),
        ("[[ui]]\nbell = true\n", r"ui is not a table \(it is a list of tables\)"),
        ("[endpoints]\nlocal = [1]\n", r"endpoints.local is not a table \(it is a list\)"),
    ],
)
def test_a_value_where_a_table_belongs_is_refused(config: Path, text: str, message: str) -> None:
    config.write_text(text)
    key = "endpoints.local.base_url" if "endpoints" in text else "ui.theme"
    _assert_refused(config, text.encode(), key, "http://h" if "endpoints" in text else "nord", message)


@pytest.mark.parametrize(
    "text",
    [
        'model = "demo"\nmodel = "openai:gpt-4o"\n',  # a duplicate key
        "[ui]\nbell = true\n[ui]\ntheme = 'x'\n",  # a duplicate table
        "model = \n",
        'model = "demo\n',
        "\xff\xfe not text",
    ],
)
def test_invalid_toml_is_never_overwritten(config: Path, text: str) -> None:
    raw = text.encode("latin-1") if text.startswith("\xff") else text.encode()
    config.write_bytes(raw)
    _assert_refused(config, raw, "ui.theme", "nord", "fix it before saving ui.theme")


def test_a_huge_file_is_refused_without_reading_it_through_tomlkit(config: Path) -> None:
    text = HAND_WRITTEN + "".join(f"# padding line {index}\n" for index in range(20_000))
    assert len(text) > saving.MAX_EDIT_BYTES
    config.write_text(text)
    _assert_refused(config, text.encode(), "ui.theme", "nord", "larger than 64 KiB")


def test_a_file_just_under_the_limit_is_edited(config: Path) -> None:
    padding = "".join(f"# padding line {index}\n" for index in range(2_000))
    config.write_text(HAND_WRITTEN + padding)
    save_user_setting(config, "ui.theme", "gruvbox")
    assert config.read_text() == HAND_WRITTEN.replace("'nord'", "'gruvbox'") + padding


def test_saves_at_the_same_time_all_land(config: Path) -> None:
    config.write_text(HAND_WRITTEN)
    os.chmod(config, 0o644)
    keys = [("ui.animations", False), ("ui.bell", True), ("reasoning_effort", "high"), ("model", "demo")]
    keys += [(f"endpoints.e{index}.base_url", f"http://127.0.0.1:{index}/v1") for index in range(12)]
    start = threading.Barrier(len(keys))
    failures: list[BaseException] = []

    def save(key: str, value: object) -> None:
        start.wait()
        try:
            save_user_setting(config, key, value)  # type: ignore[arg-type]
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=save, args=pair) for pair in keys]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    document = tomllib.loads(config.read_text())
    assert document["ui"] == {"bell": True, "theme": "nord", "animations": False}
    assert document["reasoning_effort"] == "high" and document["model"] == "demo"
    assert len(document["endpoints"]) == 13
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert _leftovers(config.parent) == []


def test_a_save_waiting_on_another_gives_up_with_a_line(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config.write_text(HAND_WRITTEN)
    monkeypatch.setattr(saving, "LOCK_WAIT_SECONDS", 0.1)
    holder = os.open(config.parent, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        _assert_refused(config, HAND_WRITTEN.encode(), "ui.theme", "x", "another program is saving it")
    finally:
        os.close(holder)
    save_user_setting(config, "ui.theme", "x")
    assert tomllib.loads(config.read_text())["ui"]["theme"] == "x"


@pytest.mark.parametrize("failure", ["raises", "changes something else"])
def test_when_tomlkit_fails_or_disturbs_the_file_nothing_is_written(
    config: Path, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    import tomlkit

    real_parse = tomlkit.parse

    def broken_parse(text: str) -> object:
        if failure == "raises":
            raise AttributeError("a tomlkit bug")
        return real_parse(text.replace("openai:gpt-4o", "demo"))

    monkeypatch.setattr(tomlkit, "parse", broken_parse)
    config.write_text(HAND_WRITTEN)
    _assert_refused(config, HAND_WRITTEN.encode(), "ui.theme", "x", "set ui.theme by hand")


@pytest.mark.parametrize(
    ("before", "value", "after"),
    [
        ("theme = 'nord'\n", "gruvbox", "theme = 'gruvbox'\n"),  # the user's quotes are kept
        ('theme = "nord"\n', "gruvbox", 'theme = "gruvbox"\n'),
        ("theme = 'nord'\n", "it's", 'theme = "it\'s"\n'),  # a literal cannot hold a quote
    ],
)
def test_a_replaced_string_keeps_its_quote_style_when_it_can(before: str, value: str, after: str) -> None:
    assert set_toml_value(before, ("theme",), value) == after
