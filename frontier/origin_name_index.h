// OriginNameIndex: finds an origin's slot by its name, without a second
// copy of the name. A hash set of slot indices whose hash and equality
// read the name kept in the slot itself; looked up by string_view
// (C++20 heterogeneous lookup), so a lookup allocates nothing. A map from
// name to index held each name twice: ~70 bytes more an origin.
//
// Not thread-safe (CrawlScheduler's broker thread). The slots must outlive
// the index and a slot's name never changes once indexed.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string_view>
#include <unordered_set>

#include "frontier/host_slot.h"

namespace zcrawl::frontier {

class OriginNameIndex {
 public:
  explicit OriginNameIndex(const std::deque<HostSlot>& slots) : set_(0, Hash{&slots}, Equal{&slots}) {}
  OriginNameIndex(const OriginNameIndex&) = delete;
  OriginNameIndex& operator=(const OriginNameIndex&) = delete;

  std::optional<uint32_t> Find(std::string_view origin) const {
    auto it = set_.find(origin);
    if (it == set_.end()) return std::nullopt;
    return *it;
  }
  // `index`'s slot holds its name already.
  void Insert(uint32_t index) { set_.insert(index); }

  // RAM an entry costs: a node (next pointer, index, cached hash) at its
  // allocator size class, and a bucket pointer.
  static constexpr uint64_t kEntryBytes = 32 + sizeof(void*);

 private:
  struct Hash {
    using is_transparent = void;
    const std::deque<HostSlot>* slots;
    size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
    size_t operator()(uint32_t index) const { return (*this)(std::string_view((*slots)[index].origin)); }
  };
  struct Equal {
    using is_transparent = void;
    const std::deque<HostSlot>* slots;
    bool operator()(uint32_t a, uint32_t b) const { return a == b; }
    bool operator()(std::string_view name, uint32_t index) const { return name == (*slots)[index].origin; }
    bool operator()(uint32_t index, std::string_view name) const { return name == (*slots)[index].origin; }
  };
  std::unordered_set<uint32_t, Hash, Equal> set_;
};

}  // namespace zcrawl::frontier
