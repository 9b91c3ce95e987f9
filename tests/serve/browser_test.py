"""The `trackgen serve` page in headless Chromium, driven over the DevTools
protocol: it loads, renders one cell per track, re-renders with a new picture
and new metrics when a parameter changes, follows the track-count slider,
opens the large view of a track, and a screenshot of it is not blank.

usage: browser_test.py TRACKGEN SCREENSHOT.png
Exits 77 (skipped) when no Chromium is installed."""

import base64
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from harness import Failures, Server, request


class WebSocket:
    """The client side of RFC 6455, enough for the DevTools protocol: text
    frames out (masked), text frames in (fragmented or not), pings answered."""

    def __init__(self, url):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=120)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise RuntimeError("websocket: connection closed during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError("websocket: handshake refused: " + head.decode(errors="replace"))

    def _read(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise RuntimeError("websocket: connection closed")
            data += chunk
        return data

    def _send_frame(self, opcode, payload):
        n = len(payload)
        head = bytes([0x80 | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def send(self, text):
        self._send_frame(0x1, text.encode())

    def recv(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise RuntimeError("websocket: closed by the browser")
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode in (0x0, 0x1, 0x2):
                message += payload
                if b0 & 0x80:
                    return message.decode()


class Page:
    """One page target of the browser."""

    def __init__(self, ws_url):
        self.ws = WebSocket(ws_url)
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def eval(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"page script failed: {expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_render(self, after, timeout=120):
        """Waits until the page has rendered more than `after` times and is idle; the render count."""
        t0 = time.time()
        while time.time() - t0 < timeout:
            s = self.eval("document.body ? [document.body.dataset.state, +document.body.dataset.renders] : ['', 0]")
            if s[0] == "ready" and s[1] > after:
                return s[1]
            if s[0] == "error":
                raise RuntimeError("page shows an error: " + self.eval("document.getElementById('error').textContent"))
            time.sleep(0.1)
        raise RuntimeError(f"no render after {timeout} s")


def png_pixels(data):
    """(width, height, rows of bytes) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError("unsupported PNG layout")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xFF
            elif f == 2:
                line[i] = (line[i] + b) & 0xFF
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def picture_stats(png):
    """Luminance variance and the fraction of dark pixels (lines drawn) of a PNG, on a sample grid."""
    w, h, bpp, rows = png_pixels(png)
    lum = []
    for y in range(0, h, 3):
        row = rows[y]
        for x in range(0, w, 3):
            r, g, b = row[x * bpp:x * bpp + 3]
            lum.append(0.299 * r + 0.587 * g + 0.114 * b)
    mean = sum(lum) / len(lum)
    return sum((v - mean) ** 2 for v in lum) / len(lum), sum(v < 100 for v in lum) / len(lum)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def start_browser(chromium, profile):
    """Chromium in a session of its own, so that stop_browser can end its
    helper processes (renderer, crash handler) too, not only the browser."""
    proc = subprocess.Popen([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-proxy-server",
                             "--hide-scrollbars", "--no-first-run", "--window-size=1400,1000",
                             "--remote-debugging-port=0", f"--user-data-dir={profile}", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    for line in proc.stderr:  # "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/..."
        if "DevTools listening on" in line:
            port = urllib.parse.urlparse(line.split("listening on ", 1)[1].strip()).port
            return proc, port
    stop_browser(proc)
    raise RuntimeError("chromium exited before it listened")


def stop_browser(proc):
    """Ends every process of Chromium's group and waits until none is left:
    a helper that outlives the browser may still write into the profile
    folder while it is being removed (seen in CI as 'Directory not empty')."""
    def signal_group(sig):
        try:
            os.killpg(proc.pid, sig)
            return True
        except ProcessLookupError:
            return False

    signal_group(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    start = time.monotonic()
    while signal_group(0):  # signal 0: is any member of the group still there?
        waited = time.monotonic() - start
        if waited > 15:  # an unreaped zombie answers signal 0 too: do not wait forever
            break
        if waited > 10:
            signal_group(signal.SIGKILL)
        time.sleep(0.05)


def main():
    trackgen, screenshot = sys.argv[1], sys.argv[2]
    chromium = find_chromium()
    if not chromium:
        print("no chromium on PATH: skipped")
        sys.exit(77)
    f = Failures()
    with Server(trackgen) as srv, tempfile.TemporaryDirectory() as profile:
        browser, port = start_browser(chromium, profile)
        try:
            targets = json.loads(request(f"http://127.0.0.1:{port}/json/list")[2])
            page = Page(next(t for t in targets if t["type"] == "page")["webSocketDebuggerUrl"])
            page.call("Page.navigate", url=srv.base + "/")
            renders = page.wait_render(0)

            cells = "document.querySelectorAll('#grid .cell').length"
            picture = "Array.from(document.querySelectorAll('#grid .cell svg polygon'), p => p.getAttribute('points')).join('|')"
            quality = ("Array.from(document.querySelectorAll('#metrics [data-key]'))"
                       ".filter(d => d.dataset.key !== 'generate').map(d => d.textContent).join(' ')")
            f.check(page.eval(cells) == 16, f"the page renders 16 cells ({page.eval(cells)})")
            f.check(page.eval("document.querySelectorAll('#groups .field').length") > 20, "controls from the schema")
            before_picture, before_quality = page.eval(picture), page.eval(quality)
            f.check(len(before_picture) > 1000 and "yield" in before_quality, "tracks and metrics drawn")

            # Change a parameter through its number box, as a user would.
            page.eval("(() => { const box = document.querySelector('.field[data-name=half_width] input[type=number]');"
                      " box.value = '0.05'; box.dispatchEvent(new Event('change')); })()")
            renders = page.wait_render(renders)
            print("re-render of 16 tracks:", page.eval("document.querySelector('#metrics [data-key=generate]').title"),
                  "+ drawing", page.eval("document.body.dataset.renderMs"), "ms", flush=True)
            f.check(page.eval(cells) == 16, "still 16 cells")
            f.check(page.eval(picture) != before_picture, "the picture changes with half_width")
            f.check(page.eval(quality) != before_quality,
                    f"the metrics change with half_width: {before_quality} -> {page.eval(quality)}")

            # The track-count slider.
            page.eval("(() => { const s = document.getElementById('envs'); s.value = '9';"
                      " s.dispatchEvent(new Event('input')); })()")
            renders = page.wait_render(renders)
            f.check(page.eval(cells) == 9, f"9 cells after the slider moved ({page.eval(cells)})")

            # Screenshot of the grid, then of the large view of a track with its checkpoints.
            shot = base64.b64decode(page.call("Page.captureScreenshot", format="png")["data"])
            with open(screenshot, "wb") as out:
                out.write(shot)
            variance, dark = picture_stats(shot)
            print(f"screenshot {screenshot}: {len(shot)} bytes, luminance variance {variance:.0f}, "
                  f"dark pixels {dark:.3%}")
            f.check(len(shot) > 20000 and variance > 100 and dark > 0.005, "the screenshot is not blank")

            page.eval("(() => { const c = document.getElementById('checkpoints'); c.checked = true;"
                      " c.dispatchEvent(new Event('change')); })()")
            renders = page.wait_render(renders)
            page.eval("document.querySelector('#grid .cell').click()")
            f.check(page.eval("!document.getElementById('detail').hidden"), "a click opens the large view")
            f.check(page.eval("document.querySelectorAll('#detail-body line').length") > 100,
                    "the large view draws the curvature-coloured centre line")
            f.check(page.eval("document.querySelectorAll('#detail-body .checkpoint').length") >= 3,
                    "the large view draws the checkpoints")
            detail = base64.b64decode(page.call("Page.captureScreenshot", format="png")["data"])
            detail_path = os.path.splitext(screenshot)[0] + "-detail.png"
            with open(detail_path, "wb") as out:
                out.write(detail)
            f.check(picture_stats(detail)[0] > 100, "the large-view screenshot is not blank")

            # Invalid tracks are marked (at half_width 0.1 without relaxation these 9 tracks are all invalid).
            page.eval("document.querySelector('#detail-close').click()")
            page.eval("(() => { const c = document.querySelector('.field[data-name=relax_enable] input');"
                      " c.checked = false; c.dispatchEvent(new Event('change'));"
                      " const box = document.querySelector('.field[data-name=half_width] input[type=number]');"
                      " box.value = '0.1'; box.dispatchEvent(new Event('change')); })()")
            renders = page.wait_render(renders)
            invalid = page.eval("document.querySelectorAll('#grid .cell.invalid').length")
            f.check(invalid == 9, f"tracks without relaxation are marked invalid ({invalid} of 9)")
            if page.eval("state.result.tracks.some(t => (t.invalid_reason || []).length)"):
                f.check(page.eval("document.querySelectorAll('#grid .cell.invalid .reason').length") == 9,
                        "each invalid cell says why")

            # Gates mode.
            page.eval("(() => { const r = document.querySelector('input[name=mode][value=gates]'); r.checked = true;"
                      " r.dispatchEvent(new Event('change')); })()")
            renders = page.wait_render(renders)
            f.check(page.eval(cells) == 9 and page.eval("document.querySelectorAll('#grid .gate').length") > 9 * 3,
                    "gates mode draws a gate course per cell")
        finally:
            stop_browser(browser)
    f.exit()


if __name__ == "__main__":
    main()
