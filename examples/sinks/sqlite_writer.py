#!/usr/bin/python3
"""A zcrawl writer in Python that stores pages in SQLite.

A stand-in for zcrawl-writer, written only against docs/PROTOCOL.md, to
show that the writer is replaceable: fetchers send it Page messages over
ZeroMQ, it stores each page in OUT/pages.sqlite and answers PageAck once the
page is committed. Run it where you would run zcrawl-writer:

    /usr/bin/python3 examples/sinks/sqlite_writer.py \
        --bind tcp://127.0.0.1:5571 --frontier tcp://127.0.0.1:5570 --out crawl-out

Needs pyzmq and protobuf (Debian: python3-zmq, python3-protobuf) and protoc
(protobuf-compiler): the Python module for proto/zcrawl.proto is generated
into a temporary folder at start-up, so nothing generated is kept.

Table: pages(url PRIMARY KEY, final_url, status, content_type, fetched_at_ms,
depth, title, text, body BLOB, links JSON), one row per leased URL.

Guarantees, as the protocol asks:
  * a page is acknowledged as stored only after the COMMIT that holds it
    (WAL journal, synchronous=FULL: committed means on disk);
  * pages are written in groups (up to --max-batch-pages per transaction)
    and acknowledged together after one COMMIT;
  * a page whose dedup_key (or URL) is already stored, in this run or an
    earlier one, is acknowledged stored+duplicate and not written again;
  * when a write or the COMMIT fails, every page of that transaction is
    acknowledged stored=false with the error, so its fetcher reports
    WRITER_FAILED and the frontier retries the URL;
  * every Ready and Heartbeat from a fetcher is answered with a Heartbeat,
    and a StatusRequest (from a control tool) with its counters. The
    Heartbeat leaves writer_wants out: fetchers then send every page whole,
    body included, and compress nothing for us (docs/PROTOCOL.md 3.2).

With --frontier it says Ready(role=WRITER) to the frontier, heartbeats it,
and exits 0 after the frontier's Shutdown (saying Goodbye first). Without it,
it runs until SIGINT/SIGTERM, which also end it cleanly with exit 0.
"""

import argparse
import importlib
import json
import logging
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

import zmq

PROTOCOL_VERSION = 1
MAX_ENVELOPE_BYTES = 64 << 20
DB_FILE_NAME = "pages.sqlite"
DEFAULT_PROTO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "proto",
                             "zcrawl.proto")

log = logging.getLogger("sqlite-writer")


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="zcrawl writer storing pages in SQLite (a replacement for zcrawl-writer)")
    p.add_argument("--bind", default="tcp://127.0.0.1:5571", help="endpoint to bind for fetchers")
    p.add_argument("--frontier", default="",
                   help="frontier endpoint, to learn when the crawl ends (optional)")
    p.add_argument("--out", default="crawl-out", help="output folder; the database is OUT/pages.sqlite")
    p.add_argument("--max-batch-pages", type=int, default=512, help="pages per transaction")
    p.add_argument("--heartbeat-ms", type=int, default=1000, help="heartbeat interval")
    p.add_argument("--liveness", type=int, default=5,
                   help="heartbeat intervals of frontier silence before warning")
    p.add_argument("--proto", default=DEFAULT_PROTO, help="path of zcrawl.proto")
    p.add_argument("--protoc", default="protoc", help="protoc program")
    p.add_argument("--log-level", default="info", choices=["debug", "info", "warn", "error"])
    args = p.parse_args(argv)
    if args.max_batch_pages < 1:
        p.error("--max-batch-pages must be at least 1")
    if args.heartbeat_ms < 10:
        p.error("--heartbeat-ms must be at least 10")
    return args


def load_proto_module(proto_path, protoc, tmp_dir):
    """Runs protoc on zcrawl.proto into tmp_dir and imports zcrawl_pb2."""
    proto_path = os.path.abspath(proto_path)
    if not os.path.isfile(proto_path):
        raise RuntimeError("proto file not found: %s (use --proto)" % proto_path)
    cmd = [protoc, "--proto_path=" + os.path.dirname(proto_path), "--python_out=" + tmp_dir, proto_path]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        raise RuntimeError("protoc not found (install protobuf-compiler or use --protoc)")
    if done.returncode != 0:
        raise RuntimeError("protoc failed: %s" % done.stderr.strip())
    sys.path.insert(0, tmp_dir)
    module_name = os.path.splitext(os.path.basename(proto_path))[0] + "_pb2"
    return importlib.import_module(module_name)


class Store:
    """pages.sqlite: one row per stored page; commits are durable."""

    SCHEMA = """
        CREATE TABLE IF NOT EXISTS pages (
          url TEXT PRIMARY KEY,
          final_url TEXT,
          status INTEGER,
          content_type TEXT,
          fetched_at_ms INTEGER,
          depth INTEGER,
          title TEXT,
          text TEXT,
          body BLOB,
          links TEXT  -- JSON array of {"url": ..., "nofollow": bool}
        )"""

    def __init__(self, path):
        self.path = path
        # Autocommit mode: transactions are opened and committed explicitly.
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute(self.SCHEMA)

    def stored_urls(self):
        return {row[0] for row in self.db.execute("SELECT url FROM pages")}

    def insert(self, page):
        """Adds one page to the open transaction; False if its URL is there already."""
        if not self.db.in_transaction:
            self.db.execute("BEGIN")
        links = json.dumps([{"url": l.url, "nofollow": l.nofollow} for l in page.links],
                           ensure_ascii=False)
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO pages (url, final_url, status, content_type, fetched_at_ms,"
            " depth, title, text, body, links) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (page.url, page.final_url, page.http_status, page.content_type, page.fetched_at_ms,
             page.depth, page.title, page.text, page.body, links))
        return cursor.rowcount == 1

    def commit(self):
        if self.db.in_transaction:
            self.db.execute("COMMIT")

    def rollback(self):
        # SQLite's own view: a failed COMMIT may leave the transaction open,
        # and some errors (disk full) end it by themselves.
        if self.db.in_transaction:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    def close(self):
        self.rollback()
        self.db.close()


class Writer:
    def __init__(self, args, pb, store):
        self.args = args
        self.pb = pb
        self.store = store
        # Unique per run: fetchers resend unacknowledged pages when it changes.
        self.sender_id = "writer-py-%s-%d-%s" % (socket.gethostname(), os.getpid(),
                                                os.urandom(4).hex())
        self.sequence = 0
        self.ctx = zmq.Context()
        self.router = self._socket(zmq.ROUTER)
        self.router.setsockopt(zmq.ROUTER_MANDATORY, 1)  # unknown peer: error, not silent drop
        self.router.setsockopt(zmq.ROUTER_HANDOVER, 1)   # a reconnecting fetcher keeps its id
        self.router.bind(args.bind)
        self.frontier = None
        if args.frontier:
            self.frontier = self._socket(zmq.DEALER)
            self.frontier.setsockopt(zmq.ROUTING_ID, self.sender_id.encode())
            self.frontier.connect(args.frontier)
        self.stored_keys = store.stored_urls()  # durable; fetchers use the URL as dedup_key
        self.batch_keys = set()                 # written in the open transaction
        self.pending = []                       # (identity, page_id, key, duplicate, body bytes)
        self.shutdown_reason = None
        self.frontier_last_seen = time.monotonic()
        self.frontier_last_sent = 0.0
        self.frontier_silence_logged = False
        self.counts = {"stored": 0, "bytes": 0, "duplicates": 0, "failed": 0, "malformed": 0,
                       "commits": 0}
        self.started = time.monotonic()

    def _socket(self, kind):
        s = self.ctx.socket(kind)
        s.setsockopt(zmq.LINGER, 500)
        s.setsockopt(zmq.SNDHWM, 10000)
        s.setsockopt(zmq.RCVHWM, 10000)
        s.setsockopt(zmq.MAXMSGSIZE, MAX_ENVELOPE_BYTES)
        return s

    # --- envelopes ---------------------------------------------------------

    def encode(self, envelope):
        self.sequence += 1
        envelope.protocol_version = PROTOCOL_VERSION
        envelope.sender_id = self.sender_id
        envelope.sequence = self.sequence
        return envelope.SerializeToString()

    def decode(self, data):
        envelope = self.pb.Envelope()
        try:
            envelope.ParseFromString(data)
        except Exception as e:  # protobuf raises DecodeError
            raise ValueError("not an envelope: %s" % e)
        if envelope.protocol_version != PROTOCOL_VERSION:
            raise ValueError("unsupported protocol version %d" % envelope.protocol_version)
        if envelope.WhichOneof("payload") is None:
            raise ValueError("envelope without payload")
        return envelope

    def send_to_fetcher(self, identity, envelope):
        try:
            self.router.send_multipart([identity, self.encode(envelope)], flags=zmq.NOBLOCK)
        except zmq.ZMQError as e:
            # The fetcher is gone (EHOSTUNREACH) or its queue is full: it
            # resends unacknowledged pages when it hears nothing from us.
            log.debug("reply not delivered peer=%r error=%s", identity, e)

    def send_to_frontier(self, envelope):
        try:
            self.frontier.send(self.encode(envelope), flags=zmq.NOBLOCK)
            self.frontier_last_sent = time.monotonic()
        except zmq.ZMQError as e:
            log.debug("frontier message not sent: %s", e)

    def say_ready_to_frontier(self):
        envelope = self.pb.Envelope()
        envelope.ready.role = self.pb.PEER_ROLE_WRITER
        envelope.ready.hostname = socket.gethostname()
        envelope.ready.pid = os.getpid()
        self.send_to_frontier(envelope)

    def ack(self, identity, page_id, stored, duplicate, error=""):
        envelope = self.pb.Envelope()
        envelope.page_ack.page_id = page_id
        envelope.page_ack.stored = stored
        envelope.page_ack.duplicate = duplicate
        envelope.page_ack.error = error
        self.send_to_fetcher(identity, envelope)

    # --- fetchers ----------------------------------------------------------

    def handle_fetcher(self, identity, data):
        try:
            envelope = self.decode(data)
        except ValueError as e:
            self.counts["malformed"] += 1
            log.warning("dropped malformed message bytes=%d error=%s", len(data), e)
            return
        kind = envelope.WhichOneof("payload")
        if kind == "page":
            self.handle_page(identity, envelope.page)
        elif kind in ("ready", "heartbeat"):
            if kind == "ready":
                log.info("fetcher joined id=%s host=%s pid=%d", envelope.sender_id,
                         envelope.ready.hostname, envelope.ready.pid)
            reply = self.pb.Envelope()
            reply.heartbeat.SetInParent()
            self.send_to_fetcher(identity, reply)
        elif kind == "goodbye":
            log.info("fetcher left id=%s reason=%s", envelope.sender_id, envelope.goodbye.reason)
        elif kind == "status_request":  # from a control tool
            reply = self.pb.Envelope()
            reply.status_reply.pages_stored = self.counts["stored"]
            reply.status_reply.bytes_stored = self.counts["bytes"]
            reply.status_reply.duplicates = self.counts["duplicates"]
            reply.status_reply.uptime_ms = int((time.monotonic() - self.started) * 1000)
            self.send_to_fetcher(identity, reply)
        else:
            self.counts["malformed"] += 1
            log.warning("unexpected message type=%s from=%s", kind, envelope.sender_id)

    def handle_page(self, identity, page):
        key = page.dedup_key or page.url
        if key in self.stored_keys:
            self.counts["duplicates"] += 1
            log.debug("duplicate page url=%s", page.url)
            self.ack(identity, page.page_id, True, True)
            return
        if key in self.batch_keys:
            # Written by this transaction: durable when it commits.
            self.pending.append((identity, page.page_id, key, True, 0))
            return
        try:
            inserted = self.store.insert(page)
        except sqlite3.Error as e:
            # The transaction may be gone: fail the whole batch.
            log.error("cannot write url=%s: %s", page.url, e)
            self.pending.append((identity, page.page_id, key, False, 0))
            self.fail_batch(str(e))
            return
        # Not inserted: the URL is in the table under another dedup_key,
        # maybe in this very transaction, so the ack waits for the COMMIT.
        self.batch_keys.add(key)
        self.pending.append((identity, page.page_id, key, not inserted, len(page.body)))

    def fail_batch(self, error):
        self.store.rollback()
        for identity, page_id, _, _, _ in self.pending:
            self.counts["failed"] += 1
            self.ack(identity, page_id, False, False, error)
        self.pending = []
        self.batch_keys.clear()

    def commit_and_acknowledge(self):
        """Group commit: one COMMIT, then every ack of the batch."""
        if not self.pending:
            return
        try:
            self.store.commit()
        except sqlite3.Error as e:
            log.error("commit failed, %d pages not acknowledged as stored: %s", len(self.pending), e)
            self.fail_batch("commit failed: %s" % e)
            return
        self.counts["commits"] += 1
        for identity, page_id, key, duplicate, body_bytes in self.pending:
            self.stored_keys.add(key)
            self.counts["duplicates" if duplicate else "stored"] += 1
            self.counts["bytes"] += body_bytes
            self.ack(identity, page_id, True, duplicate)
        self.pending = []
        self.batch_keys.clear()

    # --- frontier ----------------------------------------------------------

    def handle_frontier(self, data):
        try:
            envelope = self.decode(data)
        except ValueError as e:
            self.counts["malformed"] += 1
            log.warning("dropped malformed message from frontier: %s", e)
            return
        self.frontier_last_seen = time.monotonic()
        self.frontier_silence_logged = False
        kind = envelope.WhichOneof("payload")
        if kind == "shutdown":
            log.info("frontier says shutdown reason=%s", envelope.shutdown.reason)
            self.shutdown_reason = "crawl finished"
        elif kind == "reject":
            # The frontier does not know us (it restarted): introduce ourselves again.
            log.info("frontier asked us to re-register: %s", envelope.reject.reason)
            self.say_ready_to_frontier()
        elif kind != "heartbeat":
            log.warning("unexpected message from frontier type=%s", kind)

    def maintain_frontier(self):
        now = time.monotonic()
        interval = self.args.heartbeat_ms / 1000.0
        if now - self.frontier_last_sent >= interval:
            envelope = self.pb.Envelope()
            envelope.heartbeat.SetInParent()
            self.send_to_frontier(envelope)
        silent = now - self.frontier_last_seen
        if silent > interval * self.args.liveness and not self.frontier_silence_logged:
            # ZeroMQ reconnects by itself; a restarted frontier answers our
            # next heartbeat with Reject and we say Ready again.
            log.warning("frontier silent for %d ms", silent * 1000)
            self.frontier_silence_logged = True

    # --- loop --------------------------------------------------------------

    def receive(self, sock):
        try:
            return sock.recv_multipart(flags=zmq.NOBLOCK)
        except zmq.Again:
            return None

    def run(self):
        if self.frontier is not None:
            self.say_ready_to_frontier()
        log.info("writer listening endpoint=%s db=%s stored_before=%d", self.args.bind,
                 self.store.path, len(self.stored_keys))
        poller = zmq.Poller()
        poller.register(self.router, zmq.POLLIN)
        if self.frontier is not None:
            poller.register(self.frontier, zmq.POLLIN)
        timeout_ms = max(1, self.args.heartbeat_ms // 2)
        while self.shutdown_reason is None:
            poller.poll(timeout_ms)
            # Take what is waiting, up to one batch, then commit it at once.
            for _ in range(self.args.max_batch_pages * 2):
                frames = self.receive(self.router)
                if frames is None:
                    break
                if len(frames) != 2:
                    self.counts["malformed"] += 1
                    log.warning("dropped message of %d frames", len(frames))
                    continue
                self.handle_fetcher(frames[0], frames[1])
                if len(self.pending) >= self.args.max_batch_pages:
                    break
            self.commit_and_acknowledge()
            if self.frontier is not None:
                while True:
                    frames = self.receive(self.frontier)
                    if frames is None:
                        break
                    if len(frames) != 1:
                        self.counts["malformed"] += 1
                        continue
                    self.handle_frontier(frames[0])
                self.maintain_frontier()
        self.finish()

    def finish(self):
        self.commit_and_acknowledge()
        if self.frontier is not None:
            envelope = self.pb.Envelope()
            envelope.goodbye.reason = self.shutdown_reason
            self.send_to_frontier(envelope)
        log.info("writer done stored=%d duplicates=%d failed=%d commits=%d malformed=%d",
                 self.counts["stored"], self.counts["duplicates"], self.counts["failed"],
                 self.counts["commits"], self.counts["malformed"])

    def close(self):
        self.router.close()
        if self.frontier is not None:
            self.frontier.close()  # linger lets the Goodbye go out
        self.ctx.term()


def main(argv):
    args = parse_args(argv)
    level = {"debug": logging.DEBUG, "info": logging.INFO, "warn": logging.WARNING,
             "error": logging.ERROR}[args.log_level]
    logging.basicConfig(level=level, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    tmp_dir = tempfile.mkdtemp(prefix="zcrawl-proto-")
    try:
        try:
            pb = load_proto_module(args.proto, args.protoc, tmp_dir)
            os.makedirs(args.out, exist_ok=True)
            store = Store(os.path.join(args.out, DB_FILE_NAME))
            writer = Writer(args, pb, store)
        except (RuntimeError, OSError, sqlite3.Error, zmq.ZMQError) as e:
            log.error("cannot start: %s", e)
            return 2

        def on_signal(signo, _frame):
            if writer.shutdown_reason is None:
                log.info("stopping on signal %d", signo)
                writer.shutdown_reason = "stopped by signal"

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        try:
            writer.run()
        finally:
            writer.close()
            store.close()
        return 0
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
