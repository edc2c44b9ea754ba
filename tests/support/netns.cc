#include "tests/support/netns.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr int kIpTimeoutMs = 10000;
constexpr char kHubName[] = "hub";
constexpr char kBridge[] = "br0";
constexpr char kNetnsDir[] = "/run/netns";
constexpr char kNetnsEtcDir[] = "/etc/netns";  // per-namespace /etc files of `ip netns exec`

// iproute2's binary: /usr/sbin/ip on merged-/usr Debian, /sbin/ip or
// /bin/ip elsewhere. "" if none.
std::string IpBinary() {
  for (const char* path : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"}) {
    if (access(path, X_OK) == 0) return path;
  }
  return "";
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Runs `ip ARGS...` with its output in `log`; "" on success, else why not.
std::string RunIp(const std::vector<std::string>& args, const std::string& log) {
  const std::string ip = IpBinary();
  if (ip.empty()) return "iproute2's ip not found";
  std::vector<std::string> argv{ip};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string line;
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + a;
  std::filesystem::remove(log);
  TestProcess process;
  process.Start(argv, log);
  const auto code = process.Wait(kIpTimeoutMs);
  if (!code) return "`" + line + "` did not finish in time";
  if (*code != 0) return "`" + line + "` exited " + std::to_string(*code) + ": " + Trim(ReadFile(log));
  return "";
}

}  // namespace

NetnsLan::Entered::~Entered() {
  if (setns(original_fd_, CLONE_NEWNET) != 0) {
    ADD_FAILURE() << "cannot return to the original network namespace: " << std::strerror(errno);
  }
  close(original_fd_);
}

NetnsLan::NetnsLan(std::string subnet, std::string work_dir, std::string prefix)
    : subnet_(std::move(subnet)), work_dir_(std::move(work_dir)), prefix_(std::move(prefix)) {}

Result<std::unique_ptr<NetnsLan>> NetnsLan::Create(const std::string& subnet,
                                                   const std::string& work_dir) {
  static std::atomic<int> next_lan{0};
  const std::string prefix =
      "zc-" + std::to_string(getpid()) + "-" + std::to_string(next_lan++) + "-";
  std::error_code ec;
  std::filesystem::create_directories(work_dir, ec);
  std::unique_ptr<NetnsLan> lan(new NetnsLan(subnet, work_dir, prefix));
  const std::string hub = lan->NamespaceOf(kHubName);
  if (Status s = lan->Ip({"netns", "add", hub}); !s.ok()) {
    return UnavailableError("cannot create a network namespace (needs root or CAP_SYS_ADMIN, "
                            "and iproute2): " + s.message());
  }
  lan->namespaces_.push_back(hub);
  if (Status s = lan->Ip({"-n", hub, "link", "add", kBridge, "type", "bridge"}); !s.ok()) {
    return UnavailableError("cannot create a bridge in a network namespace: " + s.message());
  }
  if (Status s = lan->Ip({"-n", hub, "link", "set", kBridge, "up"}); !s.ok()) return s;
  return lan;
}

NetnsLan::~NetnsLan() {
  // Hosts first, the hub last: deleting a host takes its veth pair along.
  for (auto it = namespaces_.rbegin(); it != namespaces_.rend(); ++it) {
    if (Status s = Ip({"netns", "del", *it}); !s.ok()) {
      ADD_FAILURE() << "cannot delete network namespace " << *it << ": " << s.message();
    }
  }
  std::error_code ec;
  for (const std::string& dir : etc_dirs_) std::filesystem::remove_all(dir, ec);
  if (!etc_dirs_.empty()) std::filesystem::remove(kNetnsEtcDir, ec);  // only if empty
}

Status NetnsLan::SetResolvConf(const std::string& name, const std::string& contents) {
  const std::string dir = std::string(kNetnsEtcDir) + "/" + NamespaceOf(name);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return InternalError("cannot create " + dir + ": " + ec.message());
  etc_dirs_.push_back(dir);
  std::ofstream out(dir + "/resolv.conf", std::ios::trunc);
  out << contents;
  out.close();
  if (!out) return InternalError("cannot write " + dir + "/resolv.conf");
  return Status::Ok();
}

Status NetnsLan::Ip(const std::vector<std::string>& args) {
  const std::string log = work_dir_ + "/ip-" + std::to_string(commands_run_++) + ".log";
  const std::string error = RunIp(args, log);
  if (!error.empty()) return InternalError(error);
  return Status::Ok();
}

Result<std::string> NetnsLan::AddHost(const std::string& name, int octet) {
  const std::string ns = NamespaceOf(name);
  const std::string hub = NamespaceOf(kHubName);
  // Names live per namespace: "eth0" in every host, "v-NAME" in the hub
  // (interface names have at most 15 characters).
  const std::string hub_end = ("v-" + name).substr(0, 15);
  if (Status s = Ip({"netns", "add", ns}); !s.ok()) return s;
  namespaces_.push_back(ns);
  if (Status s = Ip({"-n", hub, "link", "add", hub_end, "type", "veth", "peer", "name", "eth0", "netns", ns});
      !s.ok()) {
    return UnavailableError("cannot create a veth pair: " + s.message());
  }
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"-n", hub, "link", "set", hub_end, "master", kBridge, "up"},
           {"-n", ns, "link", "set", "lo", "up"},
           {"-n", ns, "link", "set", "eth0", "up"},
       }) {
    if (Status s = Ip(args); !s.ok()) return s;
  }
  return AddAddress(name, octet);
}

Result<std::string> NetnsLan::AddAddress(const std::string& name, int octet) {
  const std::string address = subnet_ + "." + std::to_string(octet);
  if (Status s = Ip({"-n", NamespaceOf(name), "addr", "add", address + "/24", "dev", "eth0"}); !s.ok()) {
    return s;
  }
  return address;
}

std::vector<std::string> NetnsLan::Exec(const std::string& name,
                                        const std::vector<std::string>& argv) const {
  std::vector<std::string> out{IpBinary(), "netns", "exec", NamespaceOf(name)};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

Result<std::unique_ptr<NetnsLan::Entered>> NetnsLan::Enter(const std::string& name) const {
  const int original = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (original < 0) return InternalError(std::string("open own namespace: ") + std::strerror(errno));
  const std::string path = std::string(kNetnsDir) + "/" + NamespaceOf(name);
  const int target = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (target < 0) {
    const int err = errno;
    close(original);
    return InternalError("open " + path + ": " + std::strerror(err));
  }
  const int rc = setns(target, CLONE_NEWNET);
  const int err = errno;
  close(target);
  if (rc != 0) {
    close(original);
    return InternalError("setns " + path + ": " + std::strerror(err));
  }
  return std::unique_ptr<Entered>(new Entered(original));
}

void NetnsLan::RemoveStale() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(kNetnsDir, ec)) {
    const std::string name = entry.path().filename();
    // zc-<pid>-<n>-<host>
    if (!name.starts_with("zc-")) continue;
    const size_t dash = name.find('-', 3);
    if (dash == std::string::npos || dash == 3) continue;
    const std::string pid_text = name.substr(3, dash - 3);
    if (pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(pid_text));
    if (pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH) continue;
    const std::string log = std::filesystem::temp_directory_path() / ("zc-stale-" + name + ".log");
    RunIp({"netns", "del", name}, log);
    std::filesystem::remove(log, ec);
    std::filesystem::remove_all(std::string(kNetnsEtcDir) + "/" + name, ec);
  }
}

}  // namespace zcrawl::testing
