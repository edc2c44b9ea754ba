#!/usr/bin/env python3
"""Generates the benchmark site: a deterministic multi-host web site.

    gen_site.py OUT_DIR PORT [--hosts N] [--pages-per-host N] [--bytes N]

writes OUT_DIR/127.0.0.H/... for H = 2 .. N+1 (one document root per host,
served by nginx on 127.0.0.H:PORT) and OUT_DIR/urls-127.0.0.2.txt (every
page path of the first host, for wrk). The same arguments always give the
same bytes.

Every host has `pages-per-host` pages: page 0 is the root "/" (index.html),
page i >= 1 is /sN/tM/pI.html (10 sections x 10 folders x 50 pages for the
default 5,000). Each page is about `bytes` long and holds about 30 links of
every kind a crawler has to resolve:
  - same folder relative ("p12.html", "./p12.html", "p12.html#s2"),
  - one and two levels up ("../t3/p140.html", "../../s4/t0/p2001.html"),
  - the root as a folder ("../../"),
  - root-relative ("/s4/t0/p2001.html", "/"),
  - absolute on the same host ("http://127.0.0.2:PORT/s1/t1/p561.html"),
  - absolute and scheme-relative to the other hosts ("//127.0.0.4:PORT/..."),
  - links no crawler follows (mailto:, javascript:).
Every link points at an existing page, and page i links to page i+1 of its
host, so every page is reachable from every root and a complete crawl
stores exactly hosts x pages-per-host pages.
"""
import argparse
import os
import random

WORDS = ("crawler frontier fetcher writer queue politeness latency request "
         "response header body archive record index link anchor document "
         "parser token stream buffer socket thread process memory cache "
         "schedule lease report host origin scope visited filter bloom table "
         "hash digest compress deflate member segment offset length window "
         "network loopback server client protocol message envelope batch").split()

STYLE = """
body { font-family: sans-serif; margin: 0 auto; max-width: 60em; line-height: 1.5; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 1em; }
article p { text-align: justify; hyphens: auto; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: .2em .5em; }
footer { font-size: small; color: #555; border-top: 1px solid #ddd; margin-top: 2em; }
.note { background: #f6f6f0; border-left: 4px solid #cc9; padding: .5em 1em; }
"""


def page_path(i):
  """URL path of page i of a host."""
  if i == 0:
    return "/"
  n = i - 1
  return "/s%d/t%d/p%d.html" % (n // 500, (n // 50) % 10, i)


def page_dir(i):
  return page_path(i).rsplit("/", 1)[0] + "/"


def file_path(i):
  p = page_path(i)
  return p + "index.html" if p.endswith("/") else p


def relative(from_i, to_i):
  """href from page from_i to page to_i of the same host, as a relative path."""
  start = page_dir(from_i)
  target = page_path(to_i)
  rel = os.path.relpath(target, start)
  if target.endswith("/"):
    rel = rel.rstrip("/") + "/" if rel != "." else "./"
  return rel


class Site:
  def __init__(self, port, hosts, pages, size):
    self.port = port
    self.hosts = ["127.0.0.%d" % (2 + h) for h in range(hosts)]
    self.pages = pages
    self.size = size

  def same_folder(self, rng, i):
    """A page in the folder of page i (i >= 1)."""
    first = ((i - 1) // 50) * 50 + 1
    return min(self.pages - 1, first + rng.randrange(50))

  def same_section(self, rng, i):
    first = ((i - 1) // 500) * 500 + 1
    return min(self.pages - 1, first + rng.randrange(500))

  def any_page(self, rng):
    return 1 + rng.randrange(self.pages - 1)

  def links(self, h, i):
    """(href, text) pairs of page i on host h, deterministic."""
    rng = random.Random(h * 1_000_003 + i)
    host = self.hosts[h]
    base = "http://%s:%d" % (host, self.port)
    out = []
    nxt = (i + 1) % self.pages
    out.append((relative(i, nxt), "next"))
    if i >= 1:
      for _ in range(4):
        out.append((relative(i, self.same_folder(rng, i)), "nearby"))
      out.append(("./" + relative(i, self.same_folder(rng, i)), "here"))
      out.append((relative(i, self.same_folder(rng, i)) + "#s2", "section"))
      for _ in range(3):
        out.append((relative(i, self.same_section(rng, i)), "sibling"))
      out.append(("../../", "home"))
    else:
      for _ in range(10):
        out.append((relative(i, self.any_page(rng)), "chapter"))
    for _ in range(3):
      out.append((relative(i, self.any_page(rng)), "elsewhere"))
    for _ in range(5):
      out.append((page_path(self.any_page(rng)), "rooted"))
    out.append(("/", "root"))
    for _ in range(4):
      out.append((base + page_path(self.any_page(rng)), "absolute"))
    others = [o for o in range(len(self.hosts)) if o != h]
    for k in range(6):
      o = others[rng.randrange(len(others))] if others else h
      j = rng.randrange(self.pages)
      href = "http://%s:%d%s" % (self.hosts[o], self.port, page_path(j))
      if k == 5:
        href = href[len("http:"):]  # scheme-relative
      out.append((href, "mirror"))
    out.append(("mailto:bench@example.invalid", "mail"))
    out.append(("javascript:void(0)", "script"))
    return out

  def words(self, rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))

  def page(self, h, i):
    rng = random.Random(7 * h * 1_000_003 + i)
    links = self.links(h, i)
    title = "Page %d of %s" % (i, self.hosts[h])
    head = ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<title>%s</title>\n<meta name="viewport" content="width=device-width">\n'
            '<style>%s</style>\n<script>var page = %d; function noop() { return page > 0 && 1 < 2; }</script>\n'
            '</head>\n<body>\n' % (title, STYLE, i))
    nav = "<nav><ul>\n" + "".join(
        '<li><a href="%s">%s</a></li>\n' % (href, text) for href, text in links[:6]) + "</ul></nav>\n"
    body_links = links[6:]
    parts = ['<article>\n<h1>%s</h1>\n' % title]
    # Paragraphs with links spread through them, a table and a list, then
    # filler paragraphs until the page reaches its size.
    for k, (href, text) in enumerate(body_links):
      parts.append('<p>%s <a href="%s" class="l%d">%s %d</a> %s.</p>\n' %
                   (self.words(rng, 25), href, k % 3, text, k, self.words(rng, 20)))
      if k == 8:
        rows = "".join("<tr><td>%d</td><td>%s</td><td>%d</td></tr>\n" %
                       (r, self.words(rng, 3), rng.randrange(10000)) for r in range(8))
        parts.append("<table>\n<tr><th>n</th><th>term</th><th>value</th></tr>\n%s</table>\n" % rows)
      if k == 16:
        parts.append('<div class="note"><ul>\n%s</ul></div>\n' %
                     "".join("<li>%s &amp; %s</li>\n" % (self.words(rng, 4), self.words(rng, 3))
                             for _ in range(6)))
    tail = ('</article>\n<footer><p>Generated benchmark page %d &middot; host %s &middot; '
            '<a href="/">top</a></p></footer>\n</body>\n</html>\n' % (i, self.hosts[h]))
    text = head + nav + "".join(parts)
    while len(text) + len(tail) < self.size - 200:
      text += "<p>%s</p>\n" % self.words(rng, 25)
    return text + tail


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("out_dir")
  ap.add_argument("port", type=int)
  ap.add_argument("--hosts", type=int, default=4)
  ap.add_argument("--pages-per-host", type=int, default=5000)
  ap.add_argument("--bytes", type=int, default=18000)
  args = ap.parse_args()
  site = Site(args.port, args.hosts, args.pages_per_host, args.bytes)
  total = 0
  for h, host in enumerate(site.hosts):
    root = os.path.join(args.out_dir, host)
    for i in range(site.pages):
      path = os.path.join(root, file_path(i).lstrip("/"))
      os.makedirs(os.path.dirname(path), exist_ok=True)
      data = site.page(h, i).encode()
      total += len(data)
      with open(path, "wb") as f:
        f.write(data)
  with open(os.path.join(args.out_dir, "urls-%s.txt" % site.hosts[0]), "w") as f:
    for i in range(site.pages):
      f.write(page_path(i) + "\n")
  print("%d pages, %d bytes" % (len(site.hosts) * site.pages, total))


if __name__ == "__main__":
  main()
