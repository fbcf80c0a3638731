"""Images into the prompt: a pasted or dropped image path, and Ctrl+V with an image on the clipboard.

Each image is read under the session's read rules (a path outside the project or in a credential
store asks first, with the read dialog), scaled for the session's model (``core.images``), kept
in ``image_prompt.PASTED`` and stands in the prompt as a token, ``[Image #1: shot.png]``, with a
chip under the box (name, size after scaling). Deleting the token (Backspace removes it whole)
removes the image before sending. Reading, scaling and the clipboard tools run in a thread.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.widgets import TextArea

from zett_tui.core.contained_read import read_at_most
from zett_tui.core.images import ImageLimits, ImageRejected, PreparedImage, limits_for, prepare_image
from zett_tui.core.pasted_paths import image_paths

if TYPE_CHECKING:
    from zett_tui.runtime.files.read_access import ReadAccess, ReadGrant


class ImagePaste:
    """The image side of one composer (a ``TextArea``)."""

    def __init__(self, area: TextArea, rules: Callable[[], ReadAccess], root: Callable[[], Path]) -> None:
        self.area = area
        self.rules = rules
        self.root = root
        #: The session's model, whose provider's limits the images are scaled to.
        self.model_label: Callable[[], str] = lambda: ""

    def limits(self) -> ImageLimits:
        return limits_for(self.model_label())

    # -- a pasted path --------------------------------------------------------------------------

    def take_paste(self, text: str) -> bool:
        """When ``text`` is the path of one or more image files: attach them (True)."""
        paths = image_paths(text, self.root())
        if not paths:
            return False
        for path in paths:
            self._attach_path(path)
        return True

    def _attach_path(self, path: Path) -> None:
        from zett_tui.runtime.files.read_access import real_path

        real = real_path(path, self.root())
        rules = self.rules()
        verdict = rules.verdict(real)
        if verdict.allowed:
            self._read_in_thread(path, real, ())
            return
        from zett_tui.ui.modals.read_access import ONCE, SESSION, read_access_dialog

        dialog = read_access_dialog(
            "the pasted image",
            str(real),
            requested=str(path),
            secret=verdict.place.what if verdict.place is not None else None,
            reason=verdict.why,
            session_scope="this file only",
        )

        def answered(picked: Any) -> None:
            value = getattr(picked, "value", None)
            if value == SESSION:
                rules.grant(real)
                self._read_in_thread(path, real, ())
            elif value == ONCE:
                from zett_tui.runtime.files.read_access import ReadGrant

                self._read_in_thread(path, real, (ReadGrant(real),))
            else:
                self.area.notify(
                    f"{path.name} was not attached: you did not allow reading it", severity="warning"
                )

        self.area.app.push_screen(dialog, answered)

    def _read_in_thread(self, path: Path, real: Path, extra: tuple[ReadGrant, ...]) -> None:
        rules, limits = self.rules(), self.limits()

        def read() -> None:
            from zett_tui.core.images import MAX_SOURCE_BYTES
            from zett_tui.runtime.files.contained_tools import NotReadable, open_verified

            try:
                with open_verified(str(path), real, rules.checker(extra)) as (fd, _status):
                    data = read_at_most(fd, MAX_SOURCE_BYTES + 1)
                image = prepare_image(path.name, data, limits)
            except (OSError, NotReadable, ImageRejected) as error:
                self.area.app.call_from_thread(self._refused, path.name, error)
                return
            self.area.app.call_from_thread(self._insert, image)

        self.area.run_worker(read, thread=True, group="image-paste")

    # -- the clipboard --------------------------------------------------------------------------

    def paste_clipboard(self, fall_back: Callable[[], None]) -> None:
        """Ctrl+V: the clipboard's image when it holds one; otherwise ``fall_back`` (text paste)."""
        limits = self.limits()

        def read() -> None:
            from zett_tui.terminal.clipboard_image import NO_IMAGE, read_clipboard_image

            found = read_clipboard_image()
            if isinstance(found, str):
                self.area.app.call_from_thread(self._no_clipboard_image, found, found == NO_IMAGE, fall_back)
                return
            try:
                image = prepare_image("clipboard.png", found.data, limits)
            except ImageRejected as error:
                self.area.app.call_from_thread(self._refused, "the clipboard's image", error)
                return
            self.area.app.call_from_thread(self._insert, image)

        self.area.run_worker(read, thread=True, group="image-paste")

    def _no_clipboard_image(self, why: str, empty: bool, fall_back: Callable[[], None]) -> None:
        if not empty:
            self.area.notify(f"No image pasted: {why}", severity="warning", timeout=8)
        fall_back()

    # -- on the UI thread -----------------------------------------------------------------------

    def _insert(self, image: PreparedImage) -> None:
        from zett_tui.runtime.image_prompt import PASTED

        token = PASTED.add(image)
        before = self.area.document.get_text_range((0, 0), self.area.selection.start)
        spacer = " " if before and not before.endswith((" ", "\n")) else ""
        result = self.area.replace(spacer + token + " ", *self.area.selection)
        self.area.move_cursor(result.end_location)
        self.area.focus()

    def _refused(self, name: str, error: BaseException) -> None:
        reason = getattr(error, "strerror", None) or str(error)
        self.area.notify(f"{name} was not attached: {reason}", severity="warning", timeout=8)

    def chips(self, text: str) -> list[str]:
        """``🖼 shot.png (1568×882, 412 KB)`` for each image the prompt's tokens name."""
        from zett_tui.runtime.image_prompt import PASTED

        return [f"🖼 {image.chip}" for image in PASTED.images_in(text)]

    def span(self, line: str, column: int, *, ending: bool) -> tuple[int, int] | None:
        if "[Image #" not in line:
            return None
        from zett_tui.runtime.image_prompt import PASTED

        return PASTED.span_at(line, column, ending=ending)
