"""A slow site on two hosts for the console's browser test: on 127.0.0.1
and 127.0.0.2 (same PORT), 400 pages each, each linking the next three on
its own host and the next one on the other; every answer held 50 ms, every
request logged to LOG as "MS HOST:PORT PATH" (wall ms, the Host header),
so the test judges what each host saw.
    python3 slow_site.py PORT LOG"""
import http.server
import sys
import threading
import time

PAGES = 400
LOCK = threading.Lock()
PORT = int(sys.argv[1])
HOSTS = ["127.0.0.1", "127.0.0.2"]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        host = self.headers.get("Host", "?")
        with LOCK, open(sys.argv[2], "a") as log:
            log.write(f"{int(time.time() * 1000)} {host} {self.path}\n")
        time.sleep(0.05)
        if self.path == "/robots.txt":
            self.send_response(404)
            self.end_headers()
            return
        n = int(self.path.strip("/").split("/")[-1] or 0) if self.path.startswith("/p/") else 0
        here = self.server.server_address[0]
        other = HOSTS[1] if here == HOSTS[0] else HOSTS[0]
        links = "".join(f'<a href="/p/{m}">{m}</a> ' for m in range(n + 1, min(n + 4, PAGES)))
        if n + 1 < PAGES:
            links += f'<a href="http://{other}:{PORT}/p/{n + 1}">there</a>'
        body = f"<html><body><h1>page {n} on {here}</h1>{links}</body></html>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


servers = [http.server.ThreadingHTTPServer((h, PORT), Handler) for h in HOSTS]
for s in servers[1:]:
    threading.Thread(target=s.serve_forever, daemon=True).start()
servers[0].serve_forever()
