"""Write the page's PNG icons (app/web/icons/icon-{192,512}.png) from the SVG's shapes.

The manifest offers the SVG too; the PNGs are for browsers that install only from a
raster icon. Standard library only: ``python -m scripts.make_icons``.
"""

import struct
import zlib
from pathlib import Path

ICONS = Path(__file__).resolve().parents[1] / "app" / "web" / "icons"
ACCENT = (0x1F, 0x6F, 0x4A)
WHITE = (0xFF, 0xFF, 0xFF)
SIZES = (192, 512)


def pixel(x: float, y: float) -> tuple[int, int, int]:
    """The colour at (x, y) on a 512-unit square, as icon.svg draws it (no rounding)."""
    inside_card = 112 <= x < 400 and 112 <= y < 400
    if not inside_card:
        return ACCENT
    ruled = any(abs(y - line) < 10 for line in (208, 256, 304)) and 176 <= x < 336
    split = abs(x - 256) < 10 and 160 <= y < 352
    return ACCENT if ruled or split else WHITE


def png(size: int) -> bytes:
    """An RGB PNG of the icon size pixels square."""
    scale = 512 / size
    raw = bytearray()
    for row in range(size):
        raw.append(0)  # no filter
        for col in range(size):
            raw.extend(pixel((col + 0.5) * scale, (row + 0.5) * scale))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(raw), 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    for size in SIZES:
        (ICONS / f"icon-{size}.png").write_bytes(png(size))


if __name__ == "__main__":
    main()
