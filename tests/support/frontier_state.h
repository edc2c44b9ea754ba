// Reading a stopped frontier's state back for assertions: what its store
// (STATE/frontier.db, opened read-only) recorded for each URL: the state of
// each, and the reason of each that failed for good (the record an operator
// lists failures from).
//
// Call only once the frontier has exited (it holds the store's lock while
// it runs). Stateless; safe from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace zcrawl::testing {

// url -> failure reason ("redirect_limit", "robots_unavailable: dns_not_found")
// of every failed URL in the store under `state_dir`. Fails the test
// (ADD_FAILURE) if the store cannot be read.
std::map<std::string, std::string> FailedUrls(const std::string& state_dir);

// fingerprint -> state (frontier::SeenState as a number) of every URL the
// store under `state_dir` has seen; returns "" or why it could not be read.
std::string ReadUrlStates(const std::string& state_dir, std::map<uint64_t, int>* states);

}  // namespace zcrawl::testing
