"""Issue 21, item 5: the HTML report opened in a real browser.  `.ci/run` installs Debian's
`chromium`; locally the test is skipped when no `chromium` (or `chromium-browser`) is on
PATH, unless STATICFLOPS_REQUIRE_BROWSER=1 (set by `.ci/run`) makes that a failure.

The screenshot is decoded by the small PNG reader below (zlib and struct: no imaging
dependency).  Where the chart lies on the page is measured in a copy of the page given one
line of script (the report itself has none, and its policy forbids any), then the pixels of
that rectangle in the screenshot of the unmodified report are checked."""

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WINDOW = (1100, 900)  # CSS px at scale factor 1: the charts come right after the totals, inside this


def browser() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def chromium():
    found = browser()
    if found is None:
        if os.environ.get("STATICFLOPS_REQUIRE_BROWSER") == "1":
            pytest.fail("STATICFLOPS_REQUIRE_BROWSER=1 but no chromium or chromium-browser on PATH")
        pytest.skip("no chromium or chromium-browser on PATH (.ci/run installs Debian's chromium)")
    return found


def headless(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    """One headless Chromium run.  As root Chromium refuses to start without --no-sandbox; a
    fresh profile folder keeps it from touching (or waiting for) the user's own."""
    command = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               f"--user-data-dir={profile}", "--hide-scrollbars", "--force-device-scale-factor=1",
               f"--window-size={WINDOW[0]},{WINDOW[1]}", "--no-first-run", "--disable-extensions", *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    return result


def read_png(data: bytes, rows: int | None = None) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGBA bytes) of an 8-bit RGB or RGBA, non-interlaced PNG (what
    Chromium writes); ``rows``: decode only the first ones (each row's filter needs only the
    row above it)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, chunks, header = 8, [], None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
        position += 12 + length
    width, height, depth, colour, _compression, _filter, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    channels = 4 if colour == 6 else 3
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    previous = bytearray(stride)
    decoded = []
    for y in range(min(height, rows or height)):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        _unfilter(kind, line, previous, channels)
        decoded.append(bytes(line) if channels == 4 else _with_alpha(line))
        previous = line
    return width, height, decoded


def _unfilter(kind: int, line: bytearray, above: bytearray, bpp: int) -> None:
    if kind == 0:
        return
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        up = above[i]
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 2:
            line[i] = (line[i] + up) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
        elif kind == 4:
            corner = above[i - bpp] if i >= bpp else 0
            estimate = left + up - corner
            near_left, near_up, near_corner = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
            if near_left <= near_up and near_left <= near_corner:
                best = left
            elif near_up <= near_corner:
                best = up
            else:
                best = corner
            line[i] = (line[i] + best) & 0xFF
        else:
            raise AssertionError(f"unknown PNG filter {kind}")


def _with_alpha(line: bytearray) -> bytes:
    out = bytearray()
    for i in range(0, len(line), 3):
        out += line[i:i + 3] + b"\xff"
    return bytes(out)


def test_png_reader_decodes_every_filter():
    """A 2x2 RGB image written by hand, one filter per row kind: row 0 Sub, row 1 Paeth.
    Row 0: (10,20,30) then Sub adds the left pixel: (10+5, 20+5, 30+5) = (15,25,35).
    Row 1 Paeth: first pixel, left and corner 0 -> estimate = up, so (10,20,30) + (1,1,1);
    second pixel: left (11,21,31), up (15,25,35), corner (10,20,30): estimate left+up-corner =
    (16,26,36), nearest is up (distance 1 vs 4 and 6) -> (15,25,35) + (2,2,2) = (17,27,37)."""
    raw = bytes([1, 10, 20, 30, 5, 5, 5, 4, 1, 1, 1, 2, 2, 2])
    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    width, height, rows = read_png(png)
    assert (width, height) == (2, 2)
    assert rows[0] == bytes([10, 20, 30, 255, 15, 25, 35, 255])
    assert rows[1] == bytes([11, 21, 31, 255, 17, 27, 37, 255])


MEASURE = ('<script>document.documentElement.setAttribute("data-rect", JSON.stringify('
           'document.getElementById("flops-chart").getBoundingClientRect()));</script>')


def test_resnet50_html_report_draws_its_chart_in_chromium(chromium, tmp_path):
    page = tmp_path / "r.html"
    made = subprocess.run([sys.executable, "-m", "staticflops", "analyze", "samples/resnet50.py", "--input",
                           "1x3x224x224", "--format", "html", "-o", str(page)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert made.returncode == 0, made.stderr

    dom = headless(chromium, tmp_path / "profile", "--dump-dom", page.as_uri()).stdout
    assert re.search(r'<h1 id="title">ResNet50</h1>', dom)  # the title text, as the browser built the DOM
    assert "Total forward: 8.18 GFLOPs" in dom  # 8,178,368,512: README's table, recorded with FlopCounterMode
    chart = dom[dom.index('id="flops-chart"'):dom.index("</svg>", dom.index('id="flops-chart"'))]
    assert chart.count("<rect") > 50  # ResNet50: 16 blocks of 3-4 convolutions, each a box

    measured = tmp_path / "measure.html"
    text = page.read_text(encoding="utf-8")
    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text)  # let the measuring line run
    measured.write_text(text.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    rect = json.loads(re.search(r'data-rect="([^"]*)"', headless(chromium, tmp_path / "profile", "--dump-dom",
                                                                  measured.as_uri()).stdout)
                      .group(1).replace("&quot;", '"'))
    left, top = int(rect["left"]), int(rect["top"])
    right, bottom = int(rect["right"]), int(rect["bottom"])
    assert 0 <= left < right <= WINDOW[0] and 0 <= top < bottom <= WINDOW[1], rect  # in the viewport
    assert right - left > 500 and bottom - top > 100  # 960 x 5 rows of 26 px, unless the window shrank it

    shot = tmp_path / "shot.png"
    headless(chromium, tmp_path / "profile", f"--screenshot={shot}", page.as_uri())
    width, height, rows = read_png(shot.read_bytes(), rows=bottom)
    assert (width, height) == WINDOW
    painted, colours = 0, set()
    for y in range(top, bottom):
        row = rows[y]
        for x in range(left, right):
            r, g, b = row[4 * x], row[4 * x + 1], row[4 * x + 2]
            if min(r, g, b) < 235:  # not the white page
                painted += 1
                colours.add((r >> 4, g >> 4, b >> 4))
    area = (right - left) * (bottom - top)
    # The root row and the row of ResNet50's stages each span the whole width: at least 2 of 5 rows
    assert painted > 0.4 * area, (painted, area)
    assert len(colours) >= 4  # grey root, the stages' Sequential, Bottleneck, Conv2d... boxes, not one blot
    above = rows[max(top - 3, 0)]
    assert any(min(above[4 * x:4 * x + 3]) >= 235 for x in range(left, right))  # the region starts at the chart
