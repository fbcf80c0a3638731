"""Images in and pages fetched: what preparing them costs, and what the session file keeps.

Run: ``python -m benchmarks.bench_images_web`` (about half a minute).

- scaling: ``core.images.prepare_image`` on a 4000x3000 photograph-like JPEG (noise: the worst
  case for the byte limit) and on a 2560x1440 screenshot-like PNG, for Anthropic's limits;
  baseline: Pillow decoding the same file alone, in the same run.
- the session line: one turn with ten 1280x800 screenshots, as zett writes it (images stored
  beside the lines, ``sessions.image_files``) against the line with the images inline (base64, as
  zett-agent encodes them), in bytes.
- the model history: the same ten-image prompt and nine text turns in zett-agent's SQLite, with
  the images named by reference (``runtime.history_images``) against base64 in the rows (the
  baseline, as before), in database bytes and the median ``load`` (once per request).
- a preview: ``core.image_thumbnail.thumbnail_cells`` on one prepared screenshot, median.
- a page: ``runtime.web.page_text.page_to_text`` on a 200 KB and a 5 MB (the size bound) HTML
  page (a documentation page's structure repeated), median; baseline: decoding the bytes alone.
"""

from __future__ import annotations

import io
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image


def median_ms(run: Callable[[], object], repeat: int = 7) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def noisy_jpeg(size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3)).save(out, "JPEG", quality=92)
    return out.getvalue()


def screenshot_png(size: tuple[int, int], seed: int = 0) -> bytes:
    image = Image.new("RGB", size, (245, 245, 245))
    for row in range(0, size[1], 24):  # lines of "text": bands of dark pixels
        band = Image.new("RGB", (size[0] * 2 // 3, 12), (40 + seed % 50, 40, 60))
        image.paste(band, (40 + (row * 7 + seed) % 80, row))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def html_page(size: int) -> bytes:
    block = (
        "<section><h2>run(task, *, timeout=None)</h2><p>Runs <code>task</code> and returns its result. "
        "<a href='/api#run'>See also</a>.</p><ul><li>timeout: seconds</li><li>raises TimeoutError</li></ul>"
        "<pre><code>result = run(job, timeout=5)\n</code></pre><script>track()</script></section>\n"
    )
    return ("<html><body>" + block * (size // len(block)) + "</body></html>").encode()


async def history_figures(message: object) -> dict[str, tuple[int, float]]:
    """Database bytes and median load time, images by reference and (baseline) in the rows."""
    from zett_agent.messages import AssistantMessage, UserMessage
    from zett_agent.storage import SQLiteSessionStorage

    from zett_tui.runtime.history_images import HistoryImages
    from zett_tui.runtime.history_store import HistoryStore

    figures: dict[str, tuple[int, float]] = {}
    for mode in ("by reference", "base64 in the rows (baseline)"):
        with tempfile.TemporaryDirectory() as folder:
            database = Path(folder) / "history.sqlite3"
            images = HistoryImages(Path(folder) / "images") if mode == "by reference" else None
            store = HistoryStore(SQLiteSessionStorage(database), redact=str, images=images)
            await store.append("s", "r0", message)  # type: ignore[arg-type]
            await store.append("s", "r0", AssistantMessage(content="they differ in the header"))
            for turn in range(1, 10):
                await store.append("s", f"r{turn}", UserMessage(content=f"question {turn}"))
                await store.append("s", f"r{turn}", AssistantMessage(content=f"answer {turn} " * 40))
            samples = []
            for _ in range(7):
                start = time.perf_counter()
                await store.load("s")
                samples.append((time.perf_counter() - start) * 1000)
            await store.close()
            figures[mode] = (database.stat().st_size, statistics.median(samples))
    return figures


def main() -> None:
    from zett_agent.messages import ImageBytesSource, ImageContent, TextContent, UserMessage
    from zett_agent.storage import encode_messages

    from zett_tui.core.image_thumbnail import thumbnail_cells
    from zett_tui.core.images import LIMITS, prepare_image
    from zett_tui.runtime.web.page_text import page_to_text
    from zett_tui.sessions.image_files import externalized_line

    limits = LIMITS["anthropic"]
    photo, shot = noisy_jpeg((4000, 3000)), screenshot_png((2560, 1440))
    for name, data in (("4000x3000 JPEG", photo), ("2560x1440 PNG", shot)):
        decode = median_ms(lambda data=data: Image.open(io.BytesIO(data)).load(), 5)
        prepare = median_ms(lambda data=data: prepare_image("x", data, limits), 5)
        result = prepare_image("x", data, limits)
        print(
            f"scaling {name} ({len(data) / 1e6:.1f} MB): {prepare:.0f} ms median "
            f"(decode alone {decode:.0f} ms, x{prepare / decode:.1f}) -> {result.width}x{result.height} "
            f"{result.media_type}, {len(result.data) / 1e3:.0f} KB"
        )

    images = [prepare_image(f"s{i}.png", screenshot_png((1280, 800), i), limits) for i in range(10)]
    message = UserMessage(
        content=[TextContent("what changed between these?")]
        + [
            ImageContent(ImageBytesSource(image.data, image.media_type), alt_text=image.name)
            for image in images
        ]
    )
    inline = json.dumps({"version": 1, "messages": json.loads(encode_messages([message]))})
    with tempfile.TemporaryDirectory() as folder:
        stored = externalized_line(inline, Path(folder) / "images")
        kept = sum(path.stat().st_size for path in (Path(folder) / "images").iterdir())
    print(
        f"session line with ten 1280x800 screenshots: {len(stored.encode()):,} bytes "
        f"(inline base64: {len(inline.encode()):,} bytes, x{len(inline) / len(stored):.0f}); "
        f"image files beside it: {kept:,} bytes"
    )

    import asyncio

    for mode, (size, load_ms) in asyncio.run(history_figures(message)).items():
        print(
            f"history with ten screenshots and nine text turns, {mode}: {size:,} bytes, load {load_ms:.1f} ms median"
        )
    thumb = median_ms(lambda: thumbnail_cells(images[0].data), 7)
    print(f"preview of one 1280x800 screenshot (32x8 cells): {thumb:.1f} ms median")

    for size in (200_000, 5_000_000):
        page = html_page(size)
        convert = median_ms(lambda page=page: page_to_text(page, "text/html; charset=utf-8", 50_000), 5)
        decode_text = median_ms(lambda page=page: page.decode("utf-8"), 5)
        print(
            f"{size / 1e6:g} MB HTML page to Markdown (at most 500,000 characters converted): "
            f"{convert:.0f} ms median (decoding alone {decode_text:.1f} ms)"
        )


if __name__ == "__main__":
    main()
