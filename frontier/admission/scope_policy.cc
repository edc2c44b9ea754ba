#include "frontier/admission/scope_policy.h"

#include <regex.h>

#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>

#include "common/ascii.h"
#include "frontier/admission/url_traps.h"

namespace zcrawl::frontier {
namespace {

constexpr int kRegexFlags = REG_EXTENDED | REG_NOSUB;

// A small integer per thread, handed out in order of first use, so the
// link threads land on different compiled copies.
uint32_t ThreadSlot() {
  static std::atomic<uint32_t> next{0};
  thread_local const uint32_t slot = next.fetch_add(1, std::memory_order_relaxed);
  return slot;
}

// True if `pattern` may contain a back-reference (\1..\9), whose group
// number would change once the pattern is wrapped in an alternation.
bool MayHaveBackReference(const std::string& pattern) {
  for (size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      if (pattern[i + 1] >= '1' && pattern[i + 1] <= '9') return true;
      ++i;  // skip the escaped character
    }
  }
  return false;
}

}  // namespace

// The compiled form of one pattern list: usually one alternation
// "(p1)|(p2)|...", else (back-references, or the alternation would not
// compile) one regex per pattern. `copies` identical copies of that, each
// used by its own subset of threads.
class ScopePolicy::PatternSet {
 public:
  PatternSet() = default;
  ~PatternSet() {
    for (uint32_t i = 0; i < compiled_count_; ++i) regfree(&regexes_[i]);
  }
  PatternSet(const PatternSet&) = delete;
  PatternSet& operator=(const PatternSet&) = delete;

  Status Compile(const std::vector<std::string>& patterns, uint32_t copies, const char* flag) {
    // Each pattern alone first, so an error names the pattern at fault.
    for (const auto& pattern : patterns) {
      if (pattern.empty()) return InvalidArgumentError(std::string(flag) + ": empty pattern");
      regex_t probe;
      const int rc = regcomp(&probe, pattern.c_str(), kRegexFlags);
      if (rc != 0) {
        char message[256];
        regerror(rc, &probe, message, sizeof message);
        return InvalidArgumentError(std::string(flag) + " '" + pattern +
                                    "' is not a valid POSIX extended regex: " + message);
      }
      regfree(&probe);
    }
    std::vector<std::string> sources;
    bool combine = patterns.size() > 1;
    for (const auto& pattern : patterns) combine = combine && !MayHaveBackReference(pattern);
    if (combine) {
      std::string alternation;
      for (const auto& pattern : patterns) {
        if (!alternation.empty()) alternation += '|';
        alternation += '(' + pattern + ')';
      }
      regex_t probe;
      if (regcomp(&probe, alternation.c_str(), kRegexFlags) == 0) {
        regfree(&probe);
        sources.push_back(std::move(alternation));
      }
    }
    if (sources.empty()) sources = patterns;

    per_copy_ = static_cast<uint32_t>(sources.size());
    copies_ = copies == 0 ? 1 : copies;
    regexes_ = std::make_unique<regex_t[]>(static_cast<size_t>(per_copy_) * copies_);
    for (uint32_t c = 0; c < copies_; ++c) {
      for (const auto& source : sources) {
        if (regcomp(&regexes_[compiled_count_], source.c_str(), kRegexFlags) != 0) {
          return InternalError(std::string(flag) + ": pattern compiled once, then failed");
        }
        ++compiled_count_;
      }
    }
    return Status::Ok();
  }

  bool Matches(const std::string& url) const {
    const regex_t* copy = &regexes_[static_cast<size_t>(ThreadSlot() % copies_) * per_copy_];
    for (uint32_t i = 0; i < per_copy_; ++i) {
      if (regexec(&copy[i], url.c_str(), 0, nullptr, 0) == 0) return true;
    }
    return false;
  }

 private:
  std::unique_ptr<regex_t[]> regexes_;  // copies_ blocks of per_copy_ regexes
  uint32_t per_copy_ = 0;
  uint32_t copies_ = 1;
  uint32_t compiled_count_ = 0;  // how many regexes_ entries need regfree
};

Result<ScopePolicy> ScopePolicy::Create(ScopeOptions options) {
  ScopePolicy policy;
  if (Status s = policy.Init(std::move(options)); !s.ok()) return s;
  return policy;
}

struct ScopePolicy::AddedHosts {
  std::atomic<bool> any{false};  // read first: no lock until a host was added
  mutable std::shared_mutex mutex;
  std::unordered_set<std::string> hosts;
};

void ScopePolicy::AddHosts(const std::vector<std::string>& hosts) {
  std::unique_lock lock(added_->mutex);
  for (const auto& host : hosts) added_->hosts.insert(AsciiLower(host));
  added_->any.store(!added_->hosts.empty(), std::memory_order_release);
}

ScopePolicy::ScopePolicy(ScopeOptions options) {
  if (Status s = Init(std::move(options)); !s.ok()) throw std::invalid_argument(s.message());
}

ScopePolicy::~ScopePolicy() = default;
ScopePolicy::ScopePolicy(ScopePolicy&&) noexcept = default;
ScopePolicy& ScopePolicy::operator=(ScopePolicy&&) noexcept = default;

Status ScopePolicy::Init(ScopeOptions options) {
  options_ = std::move(options);
  added_ = std::make_unique<AddedHosts>();
  for (const auto& host : options_.seed_hosts) hosts_.insert(AsciiLower(host));
  for (auto& domain : options_.rules.allow_domains) {
    domain = AsciiLower(domain);
    while (!domain.empty() && domain.front() == '.') domain.erase(0, 1);
  }
  if (!options_.rules.allow_patterns.empty()) {
    allow_ = std::make_unique<PatternSet>();
    if (Status s = allow_->Compile(options_.rules.allow_patterns, options_.regex_copies, "--allow");
        !s.ok()) {
      return s;
    }
  }
  if (!options_.rules.deny_patterns.empty()) {
    deny_ = std::make_unique<PatternSet>();
    if (Status s = deny_->Compile(options_.rules.deny_patterns, options_.regex_copies, "--deny");
        !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

bool ScopePolicy::HostAllowed(std::string_view host) const {
  if (options_.any_host) return !host.empty();
  if (hosts_.count(std::string(host))) return true;
  if (added_ && added_->any.load(std::memory_order_acquire)) {
    std::shared_lock lock(added_->mutex);
    if (added_->hosts.count(std::string(host))) return true;
  }
  for (const auto& domain : options_.rules.allow_domains) {
    if (host == domain) return true;
    if (host.size() > domain.size() && host.ends_with(domain) &&
        host[host.size() - domain.size() - 1] == '.') {
      return true;
    }
  }
  return false;
}

std::string_view ScopePolicy::Trap(const Url& url) const {
  if (url.href().size() > options_.rules.max_url_length) return kUrlLength;
  if (options_.rules.max_path_repeat > 0 && PathRepeats(url.pathname(), options_.rules.max_path_repeat)) {
    return kPathRepeat;
  }
  if (options_.rules.max_query_params > 0 && QueryParamCount(url.search()) > options_.rules.max_query_params) {
    return kQueryParams;
  }
  return {};
}

std::string_view ScopePolicy::Reject(const Url& url, uint32_t depth) const {
  const auto scheme = url.scheme();
  if (scheme != "http" && scheme != "https") return "scheme";
  if (std::string_view trap = Trap(url); !trap.empty()) return trap;
  if (options_.rules.max_depth >= 0 && depth > static_cast<uint32_t>(options_.rules.max_depth)) return "depth";
  if (!HostAllowed(url.hostname())) return "host";
  if (deny_ && deny_->Matches(url.href())) return "deny";
  if (allow_ && !allow_->Matches(url.href())) return "allow";
  return {};
}

std::string_view ScopePolicy::RejectEmbed(const Url& url, uint32_t parent_embed_hops, uint32_t* embed_hops) const {
  *embed_hops = 0;
  const auto scheme = url.scheme();
  if (scheme != "http" && scheme != "https") return "scheme";
  if (std::string_view trap = Trap(url); !trap.empty()) return trap;
  if (deny_ && deny_->Matches(url.href())) return "deny";
  const bool in_scope = HostAllowed(url.hostname()) && (!allow_ || allow_->Matches(url.href()));
  if (in_scope) return {};
  if (parent_embed_hops >= options_.rules.max_embed_hops) return "embed_hops";
  *embed_hops = parent_embed_hops + 1;
  return {};
}

}  // namespace zcrawl::frontier
