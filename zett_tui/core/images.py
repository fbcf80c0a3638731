"""Images for the model: checked, scaled and re-encoded to fit the provider's limits (Pillow).

Every image is decoded and encoded again, whatever it was: what reaches the provider is pixels
zett wrote (PNG, or JPEG for photographs and for what PNG cannot fit), never the file's own bytes,
so its metadata (EXIF with a GPS position, comments) stays on the machine, and a file that only
claims to be an image is refused here with a clear line, not by the provider with a 400.

Limits per provider (``limits_for``): the longest edge (Anthropic scales anything over 1568 px
down itself, OpenAI's "high" detail over 2048; local vision models work on much less), bytes per
image (Anthropic takes 5 MB of base64, so 3.75 MB of image; OpenAI 20 MB) and images per prompt.
A decompression bomb (more than ``MAX_SOURCE_PIXELS``) is refused before it is decoded.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

__all__ = [
    "IMAGE_SUFFIXES",
    "ImageLimits",
    "ImageRejected",
    "PreparedImage",
    "is_image_name",
    "limits_for",
    "prepare_image",
    "vision_support",
]

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff"})
#: Bytes read from one image file before it is scaled.
MAX_SOURCE_BYTES = 40 * 1024 * 1024
#: Pixels of a source image (a screenshot of a 8K display is 33 million).
MAX_SOURCE_PIXELS = 80_000_000


class ImageRejected(ValueError):
    """The file is not an image zett can send; the message says why, for the user."""


@dataclass(frozen=True, slots=True)
class ImageLimits:
    max_edge: int
    max_bytes: int
    max_images: int


LIMITS = {
    "anthropic": ImageLimits(max_edge=1568, max_bytes=3_750_000, max_images=20),
    "openai": ImageLimits(max_edge=2048, max_bytes=10_000_000, max_images=20),
    "local": ImageLimits(max_edge=1344, max_bytes=4_000_000, max_images=8),
}


def limits_for(model_label: str) -> ImageLimits:
    provider = model_label.split(":", 1)[0].lower() if ":" in model_label else ""
    return LIMITS.get(provider, LIMITS["local"])


#: Model names (after ``provider:``) known to read images, and known not to.
_VISION = (
    "claude-",
    "gpt-4o",
    "gpt-4.1",
    "gpt-4-turbo",
    "gpt-5",
    "o1",
    "o3",
    "o4",
    "chatgpt-4o",
    "llava",
    "bakllava",
    "llama3.2-vision",
    "llama4",
    "qwen2.5vl",
    "qwen2.5-vl",
    "qwen2-vl",
    "qwen3-vl",
    "gemma3",
    "minicpm-v",
    "moondream",
    "pixtral",
    "mistral-small3.1",
    "granite3.2-vision",
    "internvl",
)
_TEXT_ONLY = (
    "gpt-3.5",
    "gpt-4-0",
    "o1-mini",
    "o3-mini",
    "codellama",
    "deepseek-coder",
    "deepseek-r1",
    "qwen2.5-coder",
    "qwen3-coder",
    "starcoder",
    "phi3",
    "mistral:",
    "llama2",
    "llama3:",
    "llama3.1",
    "gpt-oss",
    "demo",
)


def vision_support(model_label: str) -> bool | None:
    """True when the model is known to read images, False when known not to, None when unknown
    (then the images are sent, and the provider's answer says whether it could)."""
    label = model_label.lower()
    name = label.split(":", 1)[1] if ":" in label else label
    if label == "demo" or any(name.startswith(prefix) or label.startswith(prefix) for prefix in _TEXT_ONLY):
        return False
    if any(name.startswith(prefix) for prefix in _VISION):
        return True
    return None


def is_image_name(name: str) -> bool:
    dot = name.rfind(".")
    return dot >= 0 and name[dot:].lower() in IMAGE_SUFFIXES


@dataclass(frozen=True, slots=True)
class PreparedImage:
    """One image as it is sent: encoded bytes, their type and size, and where it came from."""

    name: str
    data: bytes
    media_type: str
    width: int
    height: int
    #: The source's size in pixels and bytes, to say what scaling did.
    source_width: int = 0
    source_height: int = 0
    source_bytes: int = 0

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def scaled(self) -> bool:
        return (self.width, self.height) != (self.source_width, self.source_height)

    @property
    def chip(self) -> str:
        """``shot.png (1568×882, 412 KB)``: the name and the size after scaling."""
        return f"{self.name} ({self.width}×{self.height}, {human_bytes(len(self.data))})"


def human_bytes(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def prepare_image(name: str, data: bytes, limits: ImageLimits) -> PreparedImage:
    """``data`` (an image file's bytes) decoded, scaled to ``limits`` and encoded again.

    Raises ``ImageRejected`` for what is not an image Pillow can read, a decompression bomb, or an
    image that cannot be brought under ``limits.max_bytes``."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    if len(data) > MAX_SOURCE_BYTES:
        raise ImageRejected(f"{name} is larger than {human_bytes(MAX_SOURCE_BYTES)}")
    try:
        with Image.open(io.BytesIO(data)) as probe:
            source_format = (probe.format or "").upper()
            width, height = probe.size
            if width * height > MAX_SOURCE_PIXELS:
                raise ImageRejected(f"{name} has too many pixels ({width}×{height})")
            probe.seek(0)  # the first frame of an animation
            if source_format in ("JPEG", "MPO") and max(width, height) > 2 * limits.max_edge:
                # Decode at a fraction of the size (JPEG's own scaling): no smaller than the limit.
                scale = limits.max_edge / max(width, height)
                probe.draft("RGB", (max(1, int(width * scale) + 1), max(1, int(height * scale) + 1)))
            image = ImageOps.exif_transpose(probe.copy()) or probe.copy()
    except ImageRejected:
        raise
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError, SyntaxError) as error:
        raise ImageRejected(f"{name} is not an image zett can read ({type(error).__name__})") from None
    source = (width, height)
    image = _fit(image, limits.max_edge)
    photo = source_format in ("JPEG", "MPO") or (source_format == "WEBP" and image.mode == "RGB")
    encoded, media_type = _encode(image, photo, limits.max_bytes)
    return PreparedImage(
        name=name,
        data=encoded,
        media_type=media_type,
        width=image.width,
        height=image.height,
        source_width=source[0],
        source_height=source[1],
        source_bytes=len(data),
    )


def _fit(image: PILImage, max_edge: int) -> PILImage:
    from PIL import Image

    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        image = image.convert("RGBA" if "A" in image.mode or "transparency" in image.info else "RGB")
    longest = max(image.size)
    if longest > max_edge:
        scale = max_edge / longest
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        image = image.resize(size, Image.Resampling.LANCZOS)
    return image


def _encode(image: PILImage, photo: bool, max_bytes: int) -> tuple[bytes, str]:
    """PNG unless it is a photograph or PNG does not fit; then JPEG, smaller until it fits."""
    from PIL import Image

    if not photo:
        data = _save(image, "PNG")
        if len(data) <= max_bytes:
            return data, "image/png"
    flat = image
    if image.mode in ("RGBA", "LA"):
        flat = Image.new("RGB", image.size, (255, 255, 255))
        flat.paste(image, mask=image.getchannel("A"))
    elif image.mode != "RGB" and image.mode != "L":
        flat = image.convert("RGB")
    for quality in (88, 80, 70, 60, 50):
        data = _save(flat, "JPEG", quality=quality)
        if len(data) <= max_bytes:
            return data, "image/jpeg"
    while max(flat.size) > 256:
        flat = flat.resize(
            (max(1, flat.width * 3 // 4), max(1, flat.height * 3 // 4)), Image.Resampling.LANCZOS
        )
        data = _save(flat, "JPEG", quality=60)
        if len(data) <= max_bytes:
            return data, "image/jpeg"
    raise ImageRejected("the image cannot be made small enough for this provider")


def _save(image: PILImage, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    # PNG's "optimize" tries every filter and the slowest compression: seconds per screenshot.
    options = {"compress_level": 6, **options} if fmt == "PNG" else {"optimize": True, **options}
    image.save(out, fmt, **options)
    return out.getvalue()
