#include "common/crawl_beacon.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <cstring>

#include "common/comma_list.h"

namespace zcrawl {
namespace {

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

Status FileError(const char* what, const std::string& path, int err) {
  return InternalError(std::string(what) + " " + path + ": " + std::strerror(err));
}

bool ParseInt(const std::string& text, int64_t* out) {
  if (text.empty() || text.size() > 19) return false;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *out = value;
  return true;
}

}  // namespace

std::string BeaconPath(const std::string& state_dir) { return state_dir + "/frontier.beacon"; }

std::vector<std::string> ReachableEndpoints(const std::string& bind_list) {
  std::vector<std::string> out;
  for (const std::string& endpoint : SplitCommaList(bind_list)) {
    if (!endpoint.starts_with("tcp://")) continue;
    std::string address = endpoint.substr(6);
    for (const char* wildcard : {"*:", "0.0.0.0:"}) {
      if (address.starts_with(wildcard)) address = "127.0.0.1:" + address.substr(std::string(wildcard).size());
    }
    out.push_back("tcp://" + address);
  }
  return out;
}

Status WriteCrawlBeacon(const std::string& state_dir, const CrawlBeacon& beacon) {
  std::ostringstream text;
  for (const auto& endpoint : beacon.endpoints) text << "endpoint " << endpoint << "\n";
  if (!beacon.metrics.empty()) text << "metrics " << beacon.metrics << "\n";
  if (!beacon.console.empty()) text << "console " << beacon.console << "\n";
  text << "pid " << beacon.pid << "\nhost " << (beacon.host.empty() ? HostName() : beacon.host) << "\n"
       << "started_ms " << beacon.started_ms << "\nalive_ms " << beacon.alive_ms << "\n"
       << "stopped_ms " << beacon.stopped_ms << "\n";
  const std::string path = BeaconPath(state_dir);
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << text.str();
    if (!out.flush()) return FileError("write", temp, errno);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) return FileError("rename", temp, errno);
  return Status::Ok();
}

Result<CrawlBeacon> ReadCrawlBeacon(const std::string& state_dir) {
  const std::string path = BeaconPath(state_dir);
  std::ifstream in(path);
  if (!in) return NotFoundError(path + ": no such file (no crawl has run there, or an older build's)");
  CrawlBeacon beacon;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const size_t space = line.find(' ');
    const std::string key = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    bool ok = true;
    if (key == "endpoint") {
      ok = !value.empty();
      beacon.endpoints.push_back(value);
    } else if (key == "metrics") {
      beacon.metrics = value;
    } else if (key == "console") {
      beacon.console = value;
    } else if (key == "host") {
      beacon.host = value;
    } else if (key == "pid") {
      ok = ParseInt(value, &beacon.pid);
    } else if (key == "started_ms") {
      ok = ParseInt(value, &beacon.started_ms);
    } else if (key == "alive_ms") {
      ok = ParseInt(value, &beacon.alive_ms);
    } else if (key == "stopped_ms") {
      ok = ParseInt(value, &beacon.stopped_ms);
    }  // a key of a later build: ignored
    if (!ok) return DataLossError(path + ":" + std::to_string(number) + ": cannot read \"" + line + "\"");
  }
  if (beacon.endpoints.empty() || beacon.pid <= 0) {
    return DataLossError(path + ": no endpoint or no pid in it");
  }
  return beacon;
}

BeaconState CrawlBeaconState(const CrawlBeacon& beacon, int64_t now_wall_ms) {
  if (beacon.stopped_ms != 0) return BeaconState::kStopped;
  if (now_wall_ms - beacon.alive_ms > kBeaconStaleMs) return BeaconState::kSilent;
  // On this machine the process itself can be asked (a pid reused since
  // is caught by the freshness above).
  if (beacon.host == HostName() && kill(static_cast<pid_t>(beacon.pid), 0) != 0 && errno == ESRCH) {
    return BeaconState::kSilent;
  }
  return BeaconState::kRunning;
}

std::string FormatUtc(int64_t wall_ms) {
  const time_t seconds = static_cast<time_t>(wall_ms / 1000);
  struct tm utc {};
  gmtime_r(&seconds, &utc);
  char text[64];
  strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &utc);
  return text;
}

}  // namespace zcrawl
