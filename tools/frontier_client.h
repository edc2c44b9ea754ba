// How a command-line tool reaches a running crawl's frontier: found by the
// crawl's output folder (its beacon, common/crawl_beacon.h) or given, then
// asked one StatusRequest (a status, or an operator's control) and its
// StatusReply awaited (docs/PROTOCOL.md 3.4). Used by `./run status` and
// `./run control`. Single-threaded.
#pragma once

#include <string>

#include "common/status.h"
#include "net/socket_security.h"
#include "zcrawl.pb.h"

namespace zcrawl {

// Where `./run frontier` listens unless told otherwise (FrontierOptions::bind).
inline constexpr const char* kDefaultFrontierEndpoint = "tcp://127.0.0.1:5570";

// The frontier of the crawl writing to `out`, from OUT/.zcrawl's beacon; an
// error saying why when no crawl runs there. With no beacon in a folder
// the user did not name (`out_given` false), the default endpoint: a
// frontier started alone (`./run frontier`, no --state).
Result<std::string> FindFrontier(const std::string& out, bool out_given);
// `*endpoint` as given, or, when empty, FindFrontier's.
Status ResolveFrontier(const std::string& out, bool out_given, std::string* endpoint);

struct FrontierAddress {
  std::string endpoint;
  SecurityOptions security;  // CURVE towards a secured frontier
  // Long enough for a busy frontier's broker loop, short enough that a
  // script polling a dead frontier does not hang.
  int timeout_ms = 3000;
};

// Sends `request`, returns the frontier's StatusReply; an error on a
// Reject, or no reply within the timeout.
Result<v1::StatusReply> AskFrontier(const FrontierAddress& address, const v1::StatusRequest& request);

}  // namespace zcrawl
