// The WARC writer's payload-digest index (writer/payload_digest_index.h) on
// a large crawl, alone: does its memory stay within --dedup-memory-mb as the
// payloads it knows grow, and what does a page's lookup cost? It stores
// --payloads pages in windows of --window (the WARC sink's flush windows:
// AddPending, Seal, CommitSealed), a --repeat-percent share of them repeats
// of an earlier payload (each a Find that hits), the rest new (a Find that
// misses, then AddPending). Every --sample-every pages it prints payloads
// known, the process's RSS and peak RSS (VmRSS, VmHWM: the index is all
// this process holds besides a few KB), the store's disk bytes per payload,
// and lookups per second since the last sample. `./run bench --only
// digest-index` runs it (bench/RESULTS.md has the figures).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <CLI/CLI.hpp>

#include "common/encoding.h"
#include "common/sha1.h"
#include "writer/payload_digest_index.h"

namespace {

// kB of a /proc/self/status field ("VmRSS", "VmHWM").
uint64_t StatusKb(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1));
  }
  return 0;
}

uint64_t DiskBytes(const std::string& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec)) total += entry.file_size(ec);
  }
  return total;
}

// The WARC-Payload-Digest form (base32 SHA-1) of page number `n`'s body.
std::string DigestOf(uint64_t n) { return zcrawl::Base32Encode(zcrawl::Sha1(std::to_string(n))); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("payload-digest index at scale");
  uint64_t payloads = 10'000'000, sample_every = 1'000'000;
  uint32_t memory_mb = 64, window = 256, repeat_percent = 20;
  std::string dir = "/tmp/digest-index-bench";
  app.add_option("--payloads", payloads, "pages stored (new and repeated)")->capture_default_str();
  app.add_option("--memory-mb", memory_mb, "the index's bound (the writer's --dedup-memory-mb)")->capture_default_str();
  app.add_option("--window", window, "pages per flush window")->capture_default_str();
  app.add_option("--repeat-percent", repeat_percent, "share of pages whose payload was stored before")
      ->capture_default_str()->check(CLI::Range(0u, 99u));
  app.add_option("--sample-every", sample_every, "pages between samples")->capture_default_str();
  app.add_option("--dir", dir, "the store's folder (deleted first)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/digests";
  auto index = zcrawl::writer::PayloadDigestIndex::Open(path, uint64_t{memory_mb} << 20);
  if (!index.ok()) {
    std::fprintf(stderr, "%s\n", index.status().message().c_str());
    return 1;
  }
  std::printf("payloads_known,pages,rss_mb,peak_rss_mb,disk_bytes_per_payload,lookups_per_s,hits\n");
  std::mt19937_64 random(42);
  uint64_t known = 0, hits = 0, in_window = 0;
  auto since = std::chrono::steady_clock::now();
  uint64_t pages_at_sample = 0;
  for (uint64_t page = 1; page <= payloads; ++page) {
    const bool repeat = known > 0 && random() % 100 < repeat_percent;
    const std::string digest = DigestOf(repeat ? random() % known : known);
    auto found = (*index)->Find(digest);
    if (!found.ok()) {
      std::fprintf(stderr, "%s\n", found.status().message().c_str());
      return 1;
    }
    if (found->has_value()) {
      ++hits;
    } else {
      (*index)->AddPending(digest, {"http://example.test/page/" + std::to_string(known), "2026-12-03T12:00:00.000Z",
                                    "<urn:uuid:00000000-0000-4000-8000-000000000000>"});
      ++known;
    }
    if (++in_window == window) {
      (*index)->Seal();
      if (zcrawl::Status s = (*index)->CommitSealed(); !s.ok()) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        return 1;
      }
      in_window = 0;
    }
    if (page % sample_every == 0 || page == payloads) {
      const auto now = std::chrono::steady_clock::now();
      const double seconds = std::chrono::duration<double>(now - since).count();
      std::printf("%lu,%lu,%.1f,%.1f,%.1f,%.0f,%lu\n", known, page, StatusKb("VmRSS") / 1024.0,
                  StatusKb("VmHWM") / 1024.0, static_cast<double>(DiskBytes(path)) / static_cast<double>(known),
                  static_cast<double>(page - pages_at_sample) / seconds, hits);
      std::fflush(stdout);
      since = now;
      pages_at_sample = page;
    }
  }
  return 0;
}
