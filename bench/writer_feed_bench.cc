// writer_feed_bench: the writer PROCESS's throughput, the way fetchers feed
// it. sink_throughput_bench measures a sink inside one process; this starts
// the real zcrawl-writer on a loopback port and has FEEDERS fake fetchers
// (one thread and one DEALER each, the protocol of docs/PROTOCOL.md 3.2)
// send it distinct ~18 KB pages: the bench site's pages as our fetchers
// send them, with body_sha1, with the compressed WARC record blocks and
// without the body when the writer asks for that in its answer to Ready; digests and blocks are made before the clock starts, being the
// fetchers' work. Each keeps up to WINDOW pages unacknowledged, as a
// fetcher holds its URLs until the writer's ack. What it measures therefore
// includes ZeroMQ, decoding, the group commit and the acks.
//
//   writer_feed_bench WRITER_BIN OUT_DIR [--pages N] [--feeders K]
//                     [--window W] [-- WRITER_FLAGS...]
//
// Prints one JSON object: pages acknowledged as stored, wall seconds from
// the first page sent to the last ack, MB/s and pages/s of page bodies, the
// writer's CPU seconds (from /proc) and the feeders' own, and the bytes the
// writer left in OUT_DIR per body byte. Exits 1 if the writer refused a page
// or did not acknowledge everything within a minute of silence.
// "fetcher_warc_blocks" says whether the pages carried compressed blocks.
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "bench/synthetic_page.h"
#include "common/sha1.h"
#include "net/envelope_codec.h"
#include "net/loopback_port.h"
#include "net/zmq_io.h"
#include "warc/compressed_warc_blocks.h"

namespace {

using namespace zcrawl;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kTemplates = 512;  // distinct bodies, as the sink bench

struct Options {
  std::string writer_bin;
  std::string out_dir;
  uint64_t pages = 100000;
  int feeders = 2;
  uint64_t window = 1024;
  std::vector<std::string> writer_flags;
};

struct FeederResult {
  uint64_t stored = 0;
  uint64_t refused = 0;
  uint64_t body_bytes = 0;
  uint64_t warc_blocks = 0;  // templates that carry the writer's block
  bool timed_out = false;
};

// utime + stime of `pid`, in seconds.
double ProcessCpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), {});
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::vector<std::string> fields;
  std::string field;
  for (char c : stat.substr(close + 2)) {
    if (c == ' ') {
      fields.push_back(field);
      field.clear();
    } else {
      field.push_back(c);
    }
  }
  // Fields after "(comm)": state is index 0, utime 11, stime 12.
  if (fields.size() < 13) return 0;
  return (std::stod(fields[11]) + std::stod(fields[12])) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double OwnCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Counts the stored acks in one envelope from the writer.
void CountAcks(const v1::Envelope& envelope, FeederResult& result, uint64_t& acked) {
  auto count = [&](const v1::PageAck& ack) {
    ++acked;
    if (ack.stored()) {
      ++result.stored;
    } else {
      ++result.refused;
      std::fprintf(stderr, "writer refused %s: %s\n", ack.page_id().c_str(), ack.error().c_str());
    }
  };
  if (envelope.has_page_ack()) count(envelope.page_ack());
  if (envelope.has_page_acks()) {
    for (const v1::PageAck& ack : envelope.page_acks().acks()) count(ack);
  }
}

// Joins, then waits for `start` and feeds `quota` pages.
FeederResult Feed(zmq::context_t& context, const std::string& endpoint, int index, uint64_t quota,
                  uint64_t window, std::atomic<bool>& start, std::atomic<int>& ready) {
  FeederResult result;
  const std::string id = "feed-" + std::to_string(index);
  SocketSettings settings;
  settings.identity = id;
  auto socket = MakeSocket(context, zmq::socket_type::dealer, settings);
  if (!socket.ok() || !Connect(*socket, endpoint).ok()) {
    result.timed_out = true;
    return result;
  }
  EnvelopeCodec codec(id);
  // Join: Ready until the writer answers (it may still be starting).
  v1::WriterWants wants;  // what the writer asks for with each page
  for (int attempt = 0;; ++attempt) {
    v1::Envelope hello;
    hello.mutable_ready()->set_role(v1::PEER_ROLE_FETCHER);
    hello.mutable_ready()->set_pid(static_cast<uint32_t>(getpid()));
    (void)SendFrame(*socket, codec.Encode(hello));
    zmq::pollitem_t item{socket->handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(500));
    InboundMessage message;
    if (ReceiveMessage(*socket, false, &message).ok()) {
      auto answer = EnvelopeCodec::Decode(message.payload);
      if (answer.ok()) wants = answer->heartbeat().writer_wants();
      break;
    }
    if (attempt == 40) {
      result.timed_out = true;
      ready.fetch_add(1);
      return result;
    }
  }
  // Page templates: the site's bodies, built before the clock starts.
  std::vector<v1::Envelope> templates(kTemplates);
  for (uint32_t n = 0; n < kTemplates; ++n) {
    v1::Page* page = templates[n].mutable_page();
    page->set_http_status(200);
    page->set_content_type("text/html");
    page->set_title("Page " + std::to_string(n));
    page->set_body(bench::SyntheticPage(n));
    page->set_body_length(page->body().size());
    page->set_body_sha1(Sha1(page->body()));
    for (const auto& href : bench::SyntheticPageHrefs(n)) page->add_links()->set_url(href);
  }
  // As PageProcessor does: blocks if asked for, then the body left out if
  // the writer reads none (with blocks asked for, only beside a block).
  GzipMemberCompressor compressor(static_cast<int>(std::max<uint32_t>(wants.warc_block_level(), 1)));
  for (v1::Envelope& envelope : templates) {
    v1::Page& page = *envelope.mutable_page();
    if (wants.warc_block_level() > 0) {
      if (!AddWarcBlocks(page, compressor).ok()) continue;
      ++result.warc_blocks;
    }
    if (wants.omit_body()) page.clear_body();
  }
  ready.fetch_add(1);
  while (!start.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));

  uint64_t sent = 0, acked = 0;
  auto last_ack = Clock::now();
  while (acked < quota) {
    while (sent < quota && sent - acked < window) {
      v1::Envelope& envelope = templates[sent % kTemplates];
      v1::Page* page = envelope.mutable_page();
      const std::string url = bench::SyntheticPageUrl(static_cast<uint32_t>(sent % kTemplates)) + "?f=" +
                              std::to_string(index) + "&n=" + std::to_string(sent);
      page->set_page_id(id + "/" + std::to_string(sent));
      page->set_url(url);
      page->set_final_url(url);
      page->set_dedup_key(url);
      page->set_fetched_at_ms(1'780'000'000'000 + static_cast<int64_t>(sent));
      if (!SendFrame(*socket, codec.EncodeMessage(envelope)).ok()) break;  // HWM: wait for acks
      result.body_bytes += page->body_length();
      ++sent;
    }
    zmq::pollitem_t item{socket->handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(100));
    InboundMessage message;
    while (ReceiveMessage(*socket, false, &message).ok()) {
      auto envelope = EnvelopeCodec::Decode(message.payload);
      if (!envelope.ok()) continue;
      const uint64_t before = acked;
      CountAcks(*envelope, result, acked);
      if (acked != before) last_ack = Clock::now();
    }
    if (Clock::now() - last_ack > std::chrono::minutes(1)) {
      result.timed_out = true;
      break;
    }
  }
  v1::Envelope bye;
  bye.mutable_goodbye();
  (void)SendFrame(*socket, codec.Encode(bye));
  return result;
}

uint64_t FolderBytes(const std::string& dir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec)) bytes += entry.file_size(ec);
  }
  return bytes;
}

bool ParseArgs(int argc, char** argv, Options& o) {
  if (argc < 3) return false;
  o.writer_bin = argv[1];
  o.out_dir = argv[2];
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      for (++i; i < argc; ++i) o.writer_flags.push_back(argv[i]);
      break;
    }
    if (i + 1 >= argc) return false;
    const uint64_t value = std::strtoull(argv[++i], nullptr, 10);
    if (value == 0) return false;
    if (arg == "--pages") {
      o.pages = value;
    } else if (arg == "--feeders") {
      o.feeders = static_cast<int>(value);
    } else if (arg == "--window") {
      o.window = value;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: %s WRITER_BIN OUT_DIR [--pages N] [--feeders K] [--window W] [-- WRITER_FLAGS...]\n",
                 argv[0]);
    return 2;
  }
  std::filesystem::remove_all(o.out_dir);
  const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  std::vector<std::string> args = {o.writer_bin, "--bind", endpoint, "--out", o.out_dir, "--log-level", "warn"};
  args.insert(args.end(), o.writer_flags.begin(), o.writer_flags.end());
  std::vector<char*> argv_writer;
  for (auto& a : args) argv_writer.push_back(a.data());
  argv_writer.push_back(nullptr);
  pid_t writer = 0;
  if (posix_spawn(&writer, o.writer_bin.c_str(), nullptr, nullptr, argv_writer.data(), environ) != 0) {
    std::perror("posix_spawn");
    return 1;
  }

  zmq::context_t context(1);
  std::atomic<bool> start{false};
  std::atomic<int> ready{0};
  std::vector<FeederResult> results(static_cast<size_t>(o.feeders));
  std::vector<std::thread> feeders;
  for (int k = 0; k < o.feeders; ++k) {
    const uint64_t quota = o.pages / static_cast<uint64_t>(o.feeders) +
                           (static_cast<uint64_t>(k) < o.pages % static_cast<uint64_t>(o.feeders) ? 1 : 0);
    feeders.emplace_back([&, k, quota] {
      results[static_cast<size_t>(k)] = Feed(context, endpoint, k, quota, o.window, start, ready);
    });
  }
  while (ready.load() < o.feeders) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const double writer_cpu0 = ProcessCpuSeconds(writer);
  const double own_cpu0 = OwnCpuSeconds();
  const auto t0 = Clock::now();
  start.store(true);
  for (auto& t : feeders) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const double writer_cpu = ProcessCpuSeconds(writer) - writer_cpu0;
  const double own_cpu = OwnCpuSeconds() - own_cpu0;
  kill(writer, SIGTERM);
  int status = 0;
  waitpid(writer, &status, 0);

  FeederResult total;
  for (const auto& r : results) {
    total.stored += r.stored;
    total.refused += r.refused;
    total.body_bytes += r.body_bytes;
    total.timed_out |= r.timed_out;
    total.warc_blocks += r.warc_blocks;
  }
  const uint64_t on_disk = FolderBytes(o.out_dir);
  std::string flags;
  for (const auto& f : o.writer_flags) flags += (flags.empty() ? "" : " ") + f;
  std::printf(
      "{\"writer_flags\": \"%s\", \"pages\": %llu, \"stored\": %llu, \"refused\": %llu, \"seconds\": %.3f, "
      "\"mb_per_s\": %.1f, \"pages_per_s\": %.0f, \"writer_cpu_s\": %.2f, \"feeders_cpu_s\": %.2f, "
      "\"output_ratio\": %.3f, \"fetcher_warc_blocks\": %s, \"complete\": %s}\n",
      flags.c_str(), static_cast<unsigned long long>(o.pages), static_cast<unsigned long long>(total.stored),
      static_cast<unsigned long long>(total.refused), seconds, total.body_bytes / seconds / 1e6,
      total.stored / seconds, writer_cpu, own_cpu,
      total.body_bytes ? static_cast<double>(on_disk) / static_cast<double>(total.body_bytes) : 0.0,
      total.warc_blocks > 0 ? "true" : "false", total.stored == o.pages && !total.timed_out ? "true" : "false");
  std::filesystem::remove_all(o.out_dir);
  return total.stored == o.pages && total.refused == 0 && !total.timed_out ? 0 : 1;
}
