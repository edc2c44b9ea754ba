// NetnsLan: a private IPv4 network of Linux network namespaces, so a test
// can run each process of a crawl on its own "machine". Every host is a
// namespace of its own with loopback up and one veth link (eth0) to a hub
// namespace, where a bridge joins them: each host reaches the others by
// address and nothing else, and nothing outside can reach in. The
// addresses (SUBNET.N/24) exist only inside these namespaces.
//
// Namespaces are named "zc-<pid>-<n>-<host>" and deleted by the destructor
// (with their /etc/netns/ files);
// their veth pairs and the bridge go with them. Processes still running
// inside keep a namespace alive, so stop them first. RemoveStale() deletes
// namespaces left behind by a test process that no longer exists.
//
// Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN) and iproute2's `ip`; Create()
// says Unavailable where that is missing. Not thread-safe: one test thread
// drives it. Entered switches only the calling thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace zcrawl::testing {

class NetnsLan {
 public:
  // While alive, the thread that called Enter() is inside a host's network
  // namespace: sockets it creates belong to that host (and keep working
  // after the thread leaves). The destructor moves the thread back.
  class Entered {
   public:
    ~Entered();
    Entered(const Entered&) = delete;
    Entered& operator=(const Entered&) = delete;

   private:
    friend class NetnsLan;
    explicit Entered(int original_fd) : original_fd_(original_fd) {}
    int original_fd_;
  };

  // Makes the hub namespace and its bridge. `subnet` is the first three
  // octets ("10.213.0"); `work_dir` (created if missing) holds the logs of
  // the `ip` commands.
  // Unavailable: namespaces or bridges cannot be created here (the message
  // says why); other codes are failures.
  static Result<std::unique_ptr<NetnsLan>> Create(const std::string& subnet,
                                                  const std::string& work_dir);
  ~NetnsLan();
  NetnsLan(const NetnsLan&) = delete;
  NetnsLan& operator=(const NetnsLan&) = delete;

  // A new host `name` with address SUBNET.`octet`; returns the address.
  // Unavailable if veth links cannot be created here.
  Result<std::string> AddHost(const std::string& name, int octet);
  // One more address SUBNET.`octet` on host `name`; returns it.
  Result<std::string> AddAddress(const std::string& name, int octet);

  // The argv that runs `argv` inside host `name` (`ip netns exec`, which
  // execs the program in place: its pid is the pid of the started process).
  std::vector<std::string> Exec(const std::string& name, const std::vector<std::string>& argv) const;
  // Gives host `name` its own /etc/resolv.conf: `ip netns exec` mounts
  // /etc/netns/NAMESPACE/resolv.conf over it for the programs it runs
  // (threads that only Enter() keep the machine's). Removed with the LAN.
  Status SetResolvConf(const std::string& name, const std::string& contents);
  // Moves the calling thread into host `name` until the result is destroyed.
  Result<std::unique_ptr<Entered>> Enter(const std::string& name) const;

  // Deletes namespaces named zc-<pid>-... whose process is gone.
  static void RemoveStale();

 private:
  NetnsLan(std::string subnet, std::string work_dir, std::string prefix);
  std::string NamespaceOf(const std::string& name) const { return prefix_ + name; }
  // Runs `ip ARGS...`; the error carries ip's own message.
  Status Ip(const std::vector<std::string>& args);

  const std::string subnet_;
  const std::string work_dir_;
  const std::string prefix_;            // "zc-<pid>-<n>-"
  std::vector<std::string> namespaces_;  // created, hub first
  std::vector<std::string> etc_dirs_;    // /etc/netns/NAMESPACE made for them
  int commands_run_ = 0;
};

}  // namespace zcrawl::testing
