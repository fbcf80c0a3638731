"""Saving one setting in the user's config.toml (the theme chosen in the app), keeping their text.

What the file may be, and what a save does with it:

- Comments, blank lines, CRLF line endings and a UTF-8 BOM are kept (``toml_edit``); the new
  text replaces the old atomically (temporary file, fsync, rename) as a 0600 file.
- A symlink (a dotfiles repository) is followed: its target is replaced atomically in the
  target's own folder, and the link stays a link. A link that points nowhere, or at itself,
  is refused: zett does not create files where a link points.
- A file or folder the user made read-only, invalid TOML, a part of the key that is not a table
  (``ui = 3``) or a file over ``MAX_EDIT_BYTES`` is refused with ``ConfigSaveError``: one line
  for the user, the file untouched.
- Two saves at once (two zett windows) take turns on a lock on the folder, so neither loses the
  other's change.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from zett_tui.config.converters import InvalidValue
from zett_tui.config.schema import resolve_setting
from zett_tui.config.toml_edit import TomlEditError, set_toml_value
from zett_tui.config.toml_file import UTF8_BOM, UnusableFile, parse_toml_bytes
from zett_tui.config.toml_keys import Key
from zett_tui.core import paths

MAX_EDIT_BYTES = 64 * 1024
"""Above this zett does not rewrite the file: the save runs on the event loop, and ``tomlkit``
takes about 0.3 s on 64 KiB of tables (20 ms on a usual 2 KiB config)."""
LOCK_WAIT_SECONDS = 2.0


class ConfigSaveError(Exception):
    """``save_user_setting`` could not save; the message is fit to show the user."""


def save_user_setting(path: Path, dotted_key: str, value: str | bool | int) -> None:
    """Set one key in the user config file, keeping the rest of the file and its comments.

    The new text must parse back to the old settings plus this one, or nothing is written.
    Raises ``ConfigSaveError`` with a message fit for the user.
    """
    key: Key = tuple(dotted_key.split("."))
    setting = resolve_setting(key)
    if setting is None or setting.item_list:
        raise ConfigSaveError(f"{dotted_key} is not a setting that can be saved")
    try:
        setting.convert(value)
    except InvalidValue as error:
        raise ConfigSaveError(f"{dotted_key}: {error}") from None
    target = _edit_target(path)
    folder_exists = target.parent.is_dir()
    if not folder_exists:
        try:
            paths.ensure_private_dir(target.parent)
        except OSError as error:
            raise ConfigSaveError(f"{target.parent}: cannot create: {error.strerror or error}") from None
    with _locked(target.parent, path):
        if _read_only(target.parent, target.parent.stat().st_mode):
            raise ConfigSaveError(
                f"{path}: its folder {target.parent} is read-only; {dotted_key} was not saved"
            )
        raw = _read_for_edit(target, path, dotted_key)
        bom = raw.startswith(UTF8_BOM)
        try:
            text = parse_toml_bytes(raw)[0] if raw else ""
        except UnusableFile as error:
            where = f"{path}:{error.line}" if error.line else str(path)
            raise ConfigSaveError(f"{where}: {error.message}; fix it before saving {dotted_key}") from None
        try:
            new_text = set_toml_value(text, key, value)
        except TomlEditError as error:
            raise ConfigSaveError(f"{path}: cannot save {dotted_key}: {error}") from None
        try:
            if target == path and folder_exists:
                paths.ensure_private_dir(target.parent)
            # A link's target folder is the user's (a dotfiles repository): it is not tightened.
            paths.write_private(target, lambda stream: stream.write(("\ufeff" if bom else "") + new_text))
        except OSError as error:
            raise ConfigSaveError(f"{path}: cannot write: {error.strerror or error}") from None


def _edit_target(path: Path) -> Path:
    """The file to replace: ``path``, or where its symlink (chain) ends."""
    if not path.is_symlink():
        return path
    try:
        target = path.resolve(strict=True)
    except FileNotFoundError:
        raise ConfigSaveError(
            f"{path} is a link to {os.readlink(path)}, which does not exist; create that file or remove the link"
        ) from None
    except (OSError, RuntimeError) as error:  # a loop: RuntimeError up to 3.12, OSError after
        raise ConfigSaveError(f"{path} is a link that cannot be followed: {error}") from None
    return target


def _read_for_edit(target: Path, shown: Path, dotted_key: str) -> bytes:
    """The file's bytes (empty when it does not exist), refusing what must not be rewritten."""
    try:
        info = target.stat()
    except FileNotFoundError:
        return b""
    except OSError as error:
        raise ConfigSaveError(f"{shown}: cannot be read: {error.strerror or error}") from None
    if not target.is_file():
        raise ConfigSaveError(f"{shown} is not a regular file; set {dotted_key} there by hand")
    if info.st_size > MAX_EDIT_BYTES:
        raise ConfigSaveError(
            f"{shown} is larger than {MAX_EDIT_BYTES // 1024} KiB; zett does not rewrite a file that big, "
            f"set {dotted_key} there by hand"
        )
    if _read_only(target, info.st_mode):
        raise ConfigSaveError(f"{shown} is read-only; {dotted_key} was not saved (make it writable to save)")
    try:
        return target.read_bytes()
    except OSError as error:
        raise ConfigSaveError(f"{shown}: cannot be read: {error.strerror or error}") from None


def _read_only(path: Path, mode: int) -> bool:
    """Not writable for us, or not for its owner: a rename could still replace a 0444 file (or
    root could write anywhere), but the user said "leave it alone"."""
    return not (mode & stat.S_IWUSR) or not os.access(path, os.W_OK)


@contextlib.contextmanager
def _locked(folder: Path, shown: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``folder`` (read, change and replace as one step).

    The lock is on the folder, not the file: the file is replaced by a rename, so a lock on it
    would be on the old file. Waits up to ``LOCK_WAIT_SECONDS`` for another zett's save.
    """
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as error:
        raise ConfigSaveError(f"{folder}: cannot be opened: {error.strerror or error}") from None
    try:
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ConfigSaveError(
                        f"{shown}: another program is saving it; try again in a moment"
                    ) from None
                time.sleep(0.02)
        yield
    finally:
        os.close(fd)
