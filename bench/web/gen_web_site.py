#!/usr/bin/env python3
"""Generates the web-like benchmark site (issue 51): many hosts of skewed
sizes, heavy-tailed page sizes, robots.txt on most hosts, some links that
end in 404s and some behind redirects. Deterministic: the same arguments
always give the same bytes.

    gen_web_site.py OUT_DIR PORT [--hosts N] [--pages N] [--seed S]

Host h (0-based) is https://ADDRESS(h):PORT/ with ADDRESS(h) =
127.1.(h // 250).(h % 250 + 1) (web_address below; a loopback address per
host, as the real web has an address per site, and certificates name IPs).
Writes
  OUT_DIR/ADDRESS/...       each host's document root: index.html and
                            pages /sK/pI.html, each also as .html.gz (nginx
                            gzip_static serves those, so the server spends
                            no CPU compressing);
  OUT_DIR/hosts.tsv         ADDRESS, pages, robots (1/0), http2 (1/0);
  OUT_DIR/expected.txt      the pages a complete polite crawl stores: every
                            page (robots.txt disallows only /private/, which
                            no page exists under).

Sizes: host h has pages in proportion to 1/(h+1) (Zipf, s = 1: the largest
host has ~13% of the pages, half the hosts have fewer than ten). Page sizes
are log-normal, median 30 KB, sigma 0.9 (mean ~45 KB), cut to 2-500 KB.
Links of each page: ~20 to pages of its own host, the next page of its
host (so every page is reachable from its root), 2 to pages of other hosts,
and on some pages one to /private/ (disallowed by robots.txt), one to a
page that does not exist (404) and one to /moved/PATH, which the server
redirects (301) to PATH. Every 5th host speaks HTTP/1.1 only, the others
HTTP/2 too; every 10th host has no robots.txt (404).
"""
import argparse
import gzip
import math
import os
import random

WORDS = ("crawler frontier fetcher writer queue politeness latency request "
         "response header body archive record index link anchor document "
         "parser token stream buffer socket thread process memory cache "
         "schedule lease report host origin scope visited filter bloom table "
         "hash digest compress deflate member segment offset length window "
         "network loopback server client protocol message envelope batch "
         "harbour meadow lantern granite orchard velvet compass thunder "
         "willow saffron marble quiver ember tundra falcon cobalt juniper").split()


def web_address(h):
    return "127.1.%d.%d" % (h // 250, h % 250 + 1)


def host_sizes(hosts, pages):
    weights = [1.0 / (h + 1) for h in range(hosts)]
    total = sum(weights)
    sizes = [max(1, int(pages * w / total)) for w in weights]
    sizes[0] += pages - sum(sizes)  # the remainder to the largest host
    return sizes


def page_path(i):
    return "/" if i == 0 else "/s%d/p%d.html" % (i // 100, i)


def page_file(i):
    return "index.html" if i == 0 else "s%d/p%d.html" % (i // 100, i)


def page_bytes(rng):
    size = int(30000 * math.exp(rng.gauss(0, 0.9)))
    return min(max(size, 2000), 500000)


def paragraph(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("port", type=int)
    ap.add_argument("--hosts", type=int, default=1000)
    ap.add_argument("--pages", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=51)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    sizes = host_sizes(args.hosts, args.pages)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "hosts.tsv"), "w") as hosts_tsv:
        for h, n in enumerate(sizes):
            hosts_tsv.write("%s\t%d\t%d\t%d\n" % (web_address(h), n, int(h % 10 != 9), int(h % 5 != 4)))
    for h, n in enumerate(sizes):
        root = os.path.join(args.out, web_address(h))
        os.makedirs(root, exist_ok=True)
        if h % 10 != 9:
            with open(os.path.join(root, "robots.txt"), "w") as robots:
                robots.write("User-agent: *\nDisallow: /private/\n")
        for i in range(n):
            links = set(rng.randrange(n) for _ in range(min(20, n)))
            links.add((i + 1) % n)
            hrefs = [page_path(j) for j in sorted(links)]
            for _ in range(2):
                other = rng.randrange(args.hosts)
                hrefs.append("https://%s:%d%s" % (web_address(other), args.port,
                                                   page_path(rng.randrange(sizes[other]))))
            if i % 7 == 3:
                hrefs.append("/private/p%d.html" % i)
            if i % 11 == 5:
                hrefs.append("/s%d/missing%d.html" % (i // 100, i))
            if i % 13 == 6 and n > 1:
                hrefs.append("/moved" + page_path(rng.randrange(1, n)))
            target = page_bytes(rng)
            parts = ["<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                     "<title>%s page %d</title></head><body><h1>Page %d of %s</h1><nav><ul>"
                     % (web_address(h), i, i, web_address(h))]
            parts += ["<li><a href=\"%s\">%s</a></li>" % (href, paragraph(rng, 2)) for href in hrefs]
            parts.append("</ul></nav><article>")
            length = sum(len(p) for p in parts)
            while length < target:
                p = "<p>%s</p>\n" % paragraph(rng, 60)
                parts.append(p)
                length += len(p)
            parts.append("</article></body></html>\n")
            body = "".join(parts).encode()
            path = os.path.join(root, page_file(i))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(body)
            with open(path + ".gz", "wb") as f:
                f.write(gzip.compress(body, compresslevel=6, mtime=0))
    with open(os.path.join(args.out, "expected.txt"), "w") as expected:
        expected.write("%d\n" % sum(sizes))


if __name__ == "__main__":
    main()
