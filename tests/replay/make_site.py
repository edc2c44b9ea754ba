#!/usr/bin/env python3
"""A small static site whose looks depend on every kind of page requisite.

  make_site.py DIR

Two pages linking each other; a stylesheet that @imports a second one, which
sets a background-image url() and an @font-face url() (both relative to the
stylesheet, not the page); an <img src>, an <img srcset> of two candidates,
a <link rel=icon> and a style="background-image:url(...)" attribute. Each
stylesheet sets a colour that replay_check.js reads back, so a stylesheet
missing from the archive shows as a wrong colour, not just a missing file.
"""
import os
import shutil
import struct
import sys
import zlib


def png(width, height, rgb):
    """A valid one-colour RGB PNG: what a browser decodes to naturalWidth > 0."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    row = b"\x00" + bytes(rgb) * width  # filter byte 0, then the pixels
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * height))
            + chunk(b"IEND", b""))


def small_font():
    """The smallest TrueType font of the system (Chromium brings some), so
    document.fonts can report it loaded; None when there is none."""
    fonts = [os.path.join(root, name)
             for root, _, names in os.walk("/usr/share/fonts")
             for name in names if name.endswith(".ttf")]
    return min(fonts, key=os.path.getsize, default=None)


def main(out):
    files = {
        "index.html": """<!doctype html>
<html><head><meta charset="utf-8"><title>zcrawl replay index</title>
<link rel="stylesheet" href="css/main.css">
<link rel="icon" href="img/icon.png">
</head><body>
<h1 class="title">zcrawl replay check</h1>
<p class="fonted">Text in the archived web font.</p>
<img id="plain" src="img/plain.png" alt="plain">
<img id="set" srcset="img/set-1x.png 1x, img/set-2x.png 2x" alt="srcset">
<div id="inline" style="background-image:url(img/inline-bg.png)">inline background</div>
<div class="tile">background from the imported stylesheet</div>
<p><a href="page2.html">page two</a></p>
</body></html>
""",
        "page2.html": """<!doctype html>
<html><head><meta charset="utf-8"><title>zcrawl replay page two</title>
<link rel="stylesheet" href="css/main.css">
</head><body><h1 class="title">page two</h1>
<p><a href="index.html">back</a></p></body></html>
""",
        # main.css: the h1 colour proves the first stylesheet; the @import
        # and its url() are resolved against css/, not the page.
        "css/main.css": """@import url("theme.css");
h1.title { color: rgb(0, 128, 0); }
""",
        "css/theme.css": """body { background-color: rgb(255, 230, 200); }
.tile { background-image: url("../img/tile.png"); width: 120px; height: 40px; }
#inline { width: 120px; height: 40px; }
@font-face { font-family: "ZcrawlFont"; src: url("../fonts/zfont.ttf") format("truetype"); }
.fonted { font-family: "ZcrawlFont", serif; }
""",
    }
    for name, text in files.items():
        path = os.path.join(out, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    os.makedirs(os.path.join(out, "img"), exist_ok=True)
    images = {"plain": (40, 30, (200, 0, 0)), "set-1x": (20, 20, (0, 0, 200)),
              "set-2x": (40, 40, (0, 0, 120)), "inline-bg": (10, 10, (0, 160, 160)),
              "tile": (10, 10, (160, 0, 160)), "icon": (16, 16, (255, 128, 0))}
    for name, (w, h, rgb) in images.items():
        with open(os.path.join(out, "img", name + ".png"), "wb") as f:
            f.write(png(w, h, rgb))
    os.makedirs(os.path.join(out, "fonts"), exist_ok=True)
    font = small_font()
    target = os.path.join(out, "fonts", "zfont.ttf")
    if font:
        shutil.copyfile(font, target)
    else:  # Any bytes still test that the url() was archived and is served.
        with open(target, "wb") as f:
            f.write(b"not a real font\n")
    print("real" if font else "dummy")


if __name__ == "__main__":
    main(sys.argv[1])
