#!/usr/bin/python3
"""What html5lib's tree says a page links to: the oracle of the scan parser's
html5lib agreement test (tests/fetcher/html5lib_agreement_test.cc).

Reads file paths, one per line, on stdin; writes one JSON object per file,
in the same order, with what fetcher/html_parser.h's ParsedHtml holds
without text, read off html5lib's tree by the same rules as
fetcher/parsed_html_builder.cc:
  links          [kind, href, nofollow] of a[href], area[href], frame[src],
                 iframe[src] in the HTML namespace, document order, nothing
                 inside <template>
  base_href      href of the first <base> that has one
  title          the first HTML <title>'s text, ASCII whitespace collapsed
  meta_noindex, meta_nofollow   <meta name=robots content=...>
Pages are read as UTF-8 with invalid bytes replaced (what the fetcher hands
its parsers). Runs on Debian's /usr/bin/python3 with python3-html5lib.
"""
import json
import sys
from multiprocessing import Pool

import html5lib

HTML = "{http://www.w3.org/1999/xhtml}"
ASCII_SPACE = "\t\n\f\r "
LINK_ATTRIBUTE = {"a": "href", "area": "href", "frame": "src", "iframe": "src"}


def tokens(value, also=""):
    for separator in also:
        value = value.replace(separator, " ")
    return [t for t in value.translate({ord(c): " " for c in ASCII_SPACE}).split(" ") if t]


def collapse(text):
    return " ".join(tokens(text))


def ascii_lower(s):
    return "".join(c.lower() if "A" <= c <= "Z" else c for c in s)


def read(path):
    with open(path, "rb") as f:
        html = f.read().decode("utf-8", errors="replace").replace("\0", "\ufffd")
    root = html5lib.parse(html, treebuilder="etree", namespaceHTMLElements=True)
    out = {"path": path, "links": [], "base_href": "", "title": "", "meta_noindex": False,
           "meta_nofollow": False}
    seen_base = False
    seen_title = False

    def walk(element):
        nonlocal seen_base, seen_title
        tag = element.tag
        if isinstance(tag, str) and tag.startswith(HTML):
            name = tag[len(HTML):]
            if name == "template":
                return
            attributes = element.attrib
            if name in LINK_ATTRIBUTE and LINK_ATTRIBUTE[name] in attributes:
                nofollow = name in ("a", "area") and any(
                    ascii_lower(t) == "nofollow" for t in tokens(attributes.get("rel", "")))
                out["links"].append([name, attributes[LINK_ATTRIBUTE[name]], nofollow])
            elif name == "base" and not seen_base and "href" in attributes:
                seen_base = True
                out["base_href"] = attributes["href"]
            elif name == "title" and not seen_title:
                seen_title = True
                out["title"] = collapse("".join(element.itertext()))
            elif name == "meta" and "content" in attributes and \
                    ascii_lower(attributes.get("name", "").strip(ASCII_SPACE)) == "robots":
                for t in tokens(attributes["content"], also=","):
                    t = ascii_lower(t)
                    if t in ("none", "noindex"):
                        out["meta_noindex"] = True
                    if t in ("none", "nofollow"):
                        out["meta_nofollow"] = True
        for child in element:
            walk(child)

    walk(root)
    return out


def main():
    paths = [line.rstrip("\n") for line in sys.stdin if line.strip()]
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    with Pool(workers) as pool:
        for result in pool.imap(read, paths, chunksize=8):
            sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    sys.setrecursionlimit(100000)
    main()
