"""The soak's plot as a PNG, with the standard library only (zlib for the image data and a
3×5 pixel font for the labels): one panel per series over time, the warm-up shaded."""
import struct
import zlib

# 3×5 glyphs, rows top to bottom, '#' = ink. Only what the labels use.
FONT = {
    "0": "###|# #|# #|# #|###", "1": " # |## | # | # |###", "2": "###|  #|###|#  |###",
    "3": "###|  #|###|  #|###", "4": "# #|# #|###|  #|  #", "5": "###|#  |###|  #|###",
    "6": "###|#  |###|# #|###", "7": "###|  #|  #|  #|  #", "8": "###|# #|###|# #|###",
    "9": "###|# #|###|  #|###", ".": "   |   |   |   | # ", "-": "   |   |###|   |   ",
    "+": "   | # |###| # |   ", "/": "  #|  #| # |#  |#  ", ":": "   | # |   | # |   ",
    "(": " # |#  |#  |#  | # ", ")": " # |  #|  #|  #| # ", " ": "   |   |   |   |   ",
    "A": "###|# #|###|# #|# #", "B": "## |# #|## |# #|## ", "C": "###|#  |#  |#  |###",
    "D": "## |# #|# #|# #|## ", "E": "###|#  |## |#  |###", "F": "###|#  |## |#  |#  ",
    "G": "###|#  |# #|# #|###", "H": "# #|# #|###|# #|# #", "I": "###| # | # | # |###",
    "K": "# #|# #|## |# #|# #", "L": "#  |#  |#  |#  |###", "M": "# #|###|###|# #|# #",
    "N": "## |# #|# #|# #|# #", "O": "###|# #|# #|# #|###", "P": "###|# #|###|#  |#  ",
    "R": "## |# #|## |# #|# #", "S": "###|#  |###|  #|###", "T": "###| # | # | # | # ",
    "U": "# #|# #|# #|# #|###", "V": "# #|# #|# #|# #| # ", "W": "# #|# #|###|###|# #", "Y": "# #|# #| # | # | # ",
}

WIDTH, PANEL, MARGIN_LEFT, MARGIN_TOP = 900, 150, 70, 24


class Canvas:
    def __init__(self, width, height):
        self.w, self.h = width, height
        self.px = bytearray(b"\xff" * (width * height * 3))

    def dot(self, x, y, color):
        if 0 <= x < self.w and 0 <= y < self.h:
            i = (y * self.w + x) * 3
            self.px[i:i + 3] = bytes(color)

    def rect(self, x0, y0, x1, y1, color):
        for y in range(max(0, y0), min(self.h, y1)):
            for x in range(max(0, x0), min(self.w, x1)):
                self.dot(x, y, color)

    def line(self, x0, y0, x1, y1, color):
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err = dx + dy
        while True:
            self.dot(x0, y0, color)
            self.dot(x0, y0 + 1, color)
            if x0 == x1 and y0 == y1:
                return
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy

    def text(self, x, y, string, color=(0, 0, 0), scale=2):
        for ch in string.upper():
            rows = FONT.get(ch, FONT[" "]).split("|")
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    if cell == "#":
                        self.rect(x + c * scale, y + r * scale, x + (c + 1) * scale, y + (r + 1) * scale, color)
            x += 4 * scale

    def png(self, path):
        raw = b"".join(b"\x00" + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3]) for y in range(self.h))

        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def plot(path, samples, warmup):
    series = [("RESIDENT MEMORY (MIB)", "rss", 2**20, (200, 40, 40)),
              ("DESCRIPTORS", "fds", 1, (40, 90, 200)),
              ("THREADS", "threads", 1, (30, 140, 60)),
              ("VERSION HISTORY (MIB)", "history", 2**20, (150, 60, 170)),
              ("OPEN STREAMS", "streams", 1, (200, 130, 20))]
    canvas = Canvas(WIDTH, MARGIN_TOP + PANEL * len(series) + 30)
    t_end = max(s["t"] for s in samples) or 1
    plot_w = WIDTH - MARGIN_LEFT - 20
    for n, (title, key, unit, color) in enumerate(series):
        top = MARGIN_TOP + n * PANEL
        bottom = top + PANEL - 34
        values = [(s["t"], s[key] / unit) for s in samples if s[key] is not None]
        canvas.text(MARGIN_LEFT, top - 16, title, color)
        if not values:
            continue
        hi = max(v for _, v in values)
        hi = hi * 1.1 if hi > 0 else 1
        x_warm = MARGIN_LEFT + int(plot_w * min(warmup, t_end) / t_end)
        canvas.rect(MARGIN_LEFT, top, x_warm, bottom, (238, 238, 238))
        canvas.rect(MARGIN_LEFT, bottom, MARGIN_LEFT + plot_w, bottom + 1, (0, 0, 0))
        canvas.rect(MARGIN_LEFT, top, MARGIN_LEFT + 1, bottom, (0, 0, 0))
        canvas.text(4, top, f"{hi:.0f}" if hi >= 10 else f"{hi:.1f}")
        canvas.text(4, bottom - 10, "0")
        prev = None
        for t, v in values:
            point = (MARGIN_LEFT + int(plot_w * t / t_end), bottom - int((bottom - top) * v / hi))
            if prev:
                canvas.line(prev[0], prev[1], point[0], point[1], color)
            prev = point
    minutes = t_end / 60
    y = MARGIN_TOP + PANEL * len(series) - 28
    canvas.text(MARGIN_LEFT, y, "0")
    canvas.text(MARGIN_LEFT + plot_w - 90, y, f"{minutes:.1f} MIN")
    canvas.text(MARGIN_LEFT + plot_w // 2 - 100, y + 14, "TIME (SHADED: WARM-UP)")
    canvas.png(path)
