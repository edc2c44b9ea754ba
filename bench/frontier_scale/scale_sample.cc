#include "bench/frontier_scale/scale_sample.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

namespace zcrawl::bench {

SampleRates RatesBetween(const ScaleSample& before, const ScaleSample& now) {
  SampleRates row;
  const double dt = std::max(now.elapsed_s - before.elapsed_s, 1e-3);
  auto rate = [&](std::string_view name) { return (now.Get(name) - before.Get(name)) / dt; };
  row.elapsed_s = now.elapsed_s;
  row.interval_s = dt;
  row.known_urls = now.Get(kSeenUrls);
  row.links_per_s = rate(kLinksReported);
  row.seen_checks_per_s = now.Has(kSeenChecks) ? rate(kSeenChecks) : row.links_per_s;
  row.new_urls_per_s = rate(kSeenUrls);
  row.leases_per_s = rate(kUrlsDone) + rate(kUrlsFailed);
  row.disk_lookups_per_s = rate(kSeenDiskLookups);
  row.seen_cache_hits_per_s = rate(kSeenCacheHits);
  row.cpu_cores = (now.cpu_s - before.cpu_s) / dt;
  const double links = now.Get(kLinksReported) - before.Get(kLinksReported);
  if (links > 0) {
    if (now.Has(kLinksDuplicate)) {
      row.duplicate_share = (now.Get(kLinksDuplicate) - before.Get(kLinksDuplicate)) / links;
    } else {
      const double scoped = links - (now.Get(kLinksInvalid) - before.Get(kLinksInvalid)) -
                            (now.Get(kLinksOutOfScope) - before.Get(kLinksOutOfScope));
      row.duplicate_share = scoped > 0 ? 1.0 - (now.Get(kSeenUrls) - before.Get(kSeenUrls)) / scoped : 0;
    }
  }
  return row;
}

void WriteCsvHeader(FILE* csv) {
  fprintf(csv,
          "elapsed_s,known_urls,seen_checks_per_s,new_urls_per_s,leases_per_s,rss_mb,hwm_mb,disk_bytes,"
          "disk_bytes_per_url,cpu_s,rss_bytes_per_url,links_reported_per_s,duplicate_share,waiting,leased,"
          "origins,frontier_cores,seen_disk_lookups_per_s,store_disk_bytes,bench_cpu_s,filter_mb,"
          "known_cache_mb,known_cache_max_mb,store_memory_mb,queued_in_ram,queue_head_mb,origin_state_mb,"
          "heap_allocated_mb,heap_resident_mb,seen_cache_hits_per_s,origins_parked\n");
}

void WriteCsvRow(FILE* csv, const SampleRates& row, const ScaleSample& s) {
  const double known = std::max(row.known_urls, 1.0);
  fprintf(
      csv,
      "%.1f,%.0f,%.0f,%.0f,%.0f,%.1f,%.1f,%llu,%.2f,%.2f,%.1f,%.0f,%.4f,%.0f,%.0f,%.0f,%.2f,%.0f,%.0f,%.2f,"
      "%.1f,%.1f,%.1f,%.1f,%.0f,%.1f,%.1f,%.1f,%.1f,%.0f,%.0f\n",
      row.elapsed_s, row.known_urls, row.seen_checks_per_s, row.new_urls_per_s, row.leases_per_s,
      s.memory.rss_bytes / 1048576.0, s.memory.hwm_bytes / 1048576.0,
      static_cast<unsigned long long>(s.disk_bytes), s.disk_bytes / known, s.cpu_s,
      s.memory.rss_bytes / known, row.links_per_s, row.duplicate_share, s.Get("zcrawl_frontier_urls_waiting"),
      s.Get("zcrawl_frontier_urls_leased"), s.Get("zcrawl_frontier_origins"), row.cpu_cores,
      row.disk_lookups_per_s, s.Get("zcrawl_frontier_store_disk_bytes"), s.bench_cpu_s,
      s.Get("zcrawl_frontier_seen_filter_bytes") / 1048576.0, s.Get("zcrawl_frontier_known_cache_bytes") / 1048576.0,
      s.Get("zcrawl_frontier_known_cache_max_bytes") / 1048576.0,
      s.Get("zcrawl_frontier_store_memory_bytes") / 1048576.0, s.Get("zcrawl_frontier_queued_in_ram"),
      s.Get("zcrawl_frontier_queue_head_bytes") / 1048576.0, s.Get("zcrawl_frontier_origin_state_bytes") / 1048576.0,
      s.Get("zcrawl_frontier_heap_allocated_bytes") / 1048576.0, s.Get("zcrawl_frontier_heap_resident_bytes") / 1048576.0,
      row.seen_cache_hits_per_s, s.Get("zcrawl_frontier_origins_parked"));
  fflush(csv);
}

void PrintSampleLine(const SampleRates& row, const ScaleSample& s) {
  const double known = std::max(row.known_urls, 1.0);
  printf(
      "%7.1f s  known %13s  checks %9s  new %9s  leases %9s  dup %5.1f%%  RSS %6.0f MB (peak %.0f) "
      "%5.0f B/URL  disk %7.1f MB %5.1f B/URL  cpu %.2f cores\n",
      row.elapsed_s, Grouped(row.known_urls).c_str(), Rate(row.seen_checks_per_s).c_str(),
      Rate(row.new_urls_per_s).c_str(), Rate(row.leases_per_s).c_str(), 100 * row.duplicate_share,
      s.memory.rss_bytes / 1048576.0, s.memory.hwm_bytes / 1048576.0, s.memory.rss_bytes / known,
      s.disk_bytes / 1048576.0, s.disk_bytes / known, row.cpu_cores);
  fflush(stdout);
}

uint64_t FolderDiskBytes(const std::string& dir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(
           dir, std::filesystem::directory_options::skip_permission_denied, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st {};
    if (lstat(it->path().c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      bytes += static_cast<uint64_t>(st.st_blocks) * 512;
    }
  }
  return bytes;
}

std::string Grouped(double value) {
  std::string digits = std::to_string(static_cast<uint64_t>(std::max(value, 0.0)));
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3)
    digits.insert(static_cast<size_t>(at), ",");
  return digits;
}

std::string Rate(double per_s) {
  char text[32];
  if (per_s >= 1e6) {
    snprintf(text, sizeof text, "%.2fM/s", per_s / 1e6);
  } else if (per_s >= 1e3) {
    snprintf(text, sizeof text, "%.1fk/s", per_s / 1e3);
  } else {
    snprintf(text, sizeof text, "%.0f/s", per_s);
  }
  return text;
}

}  // namespace zcrawl::bench
