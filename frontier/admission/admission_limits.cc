#include "frontier/admission/admission_limits.h"

#include <algorithm>
#include <vector>

#include "common/hash_mix.h"
#include "common/url.h"
#include "frontier/admission/registrable_domain.h"
#include "frontier/store/url_fingerprint.h"

namespace zcrawl::frontier {
namespace {

constexpr uint64_t kCountBits = 16;
constexpr uint64_t kCountMask = (1ULL << kCountBits) - 1;

// The key of a path counter: the high 48 bits of its hash, never 0 (0
// marks an empty slot). The slot index derives from the tag alone, so the
// table can be rehashed from the slots.
uint64_t Tag(uint64_t hash) {
  const uint64_t tag = hash >> kCountBits;
  return tag == 0 ? 1 : tag;
}

}  // namespace

// Open addressing with linear probing, no deletion; a slot is
// (tag << 16) | count. Grows by doubling past 3/4 load.
class AdmissionLimits::PathCounters {
 public:
  PathCounters() : slots_(kInitialSlots, 0), mask_(kInitialSlots - 1) {}

  uint32_t Count(uint64_t hash) const {
    const uint64_t tag = Tag(hash);
    for (uint64_t i = Index(tag);; i = (i + 1) & mask_) {
      const uint64_t slot = slots_[i];
      if (slot == 0) return 0;
      if ((slot >> kCountBits) == tag) return static_cast<uint32_t>(slot & kCountMask);
    }
  }

  void Increment(uint64_t hash) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
    const uint64_t tag = Tag(hash);
    for (uint64_t i = Index(tag);; i = (i + 1) & mask_) {
      uint64_t& slot = slots_[i];
      if (slot == 0) {
        slot = (tag << kCountBits) | 1;
        ++size_;
        return;
      }
      if ((slot >> kCountBits) == tag) {
        if ((slot & kCountMask) != kCountMask) ++slot;  // saturates
        return;
      }
    }
  }

  uint64_t size() const { return size_; }
  uint64_t memory_bytes() const { return slots_.size() * sizeof(uint64_t); }

 private:
  static constexpr uint64_t kInitialSlots = 1024;

  // Mixed, so that tags spread over the slot indexes.
  uint64_t Index(uint64_t tag) const { return MixBits(tag) & mask_; }

  void Grow() {
    std::vector<uint64_t> old(slots_.size() * 2, 0);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (uint64_t slot : old) {
      if (slot == 0) continue;
      uint64_t i = Index(slot >> kCountBits);
      while (slots_[i] != 0) i = (i + 1) & mask_;
      slots_[i] = slot;
    }
  }

  std::vector<uint64_t> slots_;
  uint64_t mask_;
  uint64_t size_ = 0;
};

AdmissionLimits::AdmissionLimits(AdmissionLimitsOptions options) : options_(options) {
  options_.max_query_variants = std::min(options_.max_query_variants, kMaxQueryVariants);
  if (options_.max_query_variants > 0) per_path_ = std::make_unique<PathCounters>();
}

AdmissionLimits::~AdmissionLimits() = default;

uint64_t* AdmissionLimits::DomainCounter(std::string_view origin) {
  if (options_.max_pages_per_domain == 0) return nullptr;
  return &per_domain_[UrlFingerprint(RegistrableDomain(HostOfOrigin(origin)))];
}

uint64_t AdmissionLimits::PathHash(std::string_view url) const {
  const size_t query = url.find('?');
  if (!per_path_ || query == std::string_view::npos) return 0;
  return UrlFingerprint(url.substr(0, query));  // never 0
}

std::string_view AdmissionLimits::Admit(std::string_view url, std::string_view origin,
                                        const std::function<uint64_t()>& origin_admitted) {
  if (options_.max_pages > 0 && admitted_ >= options_.max_pages) return "max_pages";
  if (options_.max_pages_per_host > 0 && origin_admitted() >= options_.max_pages_per_host) {
    return "max_pages_per_host";
  }
  uint64_t* domain_count = DomainCounter(origin);
  if (domain_count && *domain_count >= options_.max_pages_per_domain) return "max_pages_per_domain";
  const uint64_t path_hash = PathHash(url);
  if (path_hash != 0 && per_path_->Count(path_hash) >= options_.max_query_variants) {
    return kQueryVariants;
  }
  ++admitted_;
  if (domain_count) ++*domain_count;
  if (path_hash != 0) per_path_->Increment(path_hash);
  return {};
}

void AdmissionLimits::RestoreOrigin(std::string_view origin, uint64_t admitted) {
  admitted_ += admitted;
  if (uint64_t* domain_count = DomainCounter(origin)) *domain_count += admitted;
}

uint64_t AdmissionLimits::tracked_paths() const { return per_path_ ? per_path_->size() : 0; }

uint64_t AdmissionLimits::memory_bytes() const {
  // unordered_map: a node (next pointer, key, value: 24 bytes, 32 with
  // malloc overhead) per element plus a bucket pointer per bucket.
  const uint64_t domains = per_domain_.size() * 32 + per_domain_.bucket_count() * sizeof(void*);
  return domains + (per_path_ ? per_path_->memory_bytes() : 0);
}

}  // namespace zcrawl::frontier
