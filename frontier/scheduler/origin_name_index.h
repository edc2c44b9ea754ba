// OriginNameIndex: finds the slot of an origin in RAM by its name, without
// a second copy of the name. A hash set of slot pointers whose hash and
// equality read the name kept in the slot itself; looked up by string_view
// (C++20 heterogeneous lookup), so a lookup allocates nothing. A map from
// name to index held each name twice: ~70 bytes more an origin.
//
// Not thread-safe (CrawlScheduler's broker thread). A slot must stay where
// it is while indexed (CrawlScheduler keeps them in a node-based map) and
// its name must not change.
#pragma once

#include <functional>
#include <string_view>
#include <unordered_set>

#include "frontier/scheduler/host_slot.h"

namespace zcrawl::frontier {

class OriginNameIndex {
 public:
  OriginNameIndex() = default;
  OriginNameIndex(const OriginNameIndex&) = delete;
  OriginNameIndex& operator=(const OriginNameIndex&) = delete;

  HostSlot* Find(std::string_view origin) const {
    auto it = set_.find(origin);
    return it == set_.end() ? nullptr : *it;
  }
  // `slot` holds its name already.
  void Insert(HostSlot* slot) { set_.insert(slot); }
  void Erase(HostSlot* slot) { set_.erase(slot); }

  // RAM an entry costs: a node (next pointer, slot pointer, cached hash) at
  // its allocator size class, and a bucket pointer.
  static constexpr uint64_t kEntryBytes = 32 + sizeof(void*);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
    size_t operator()(const HostSlot* slot) const { return (*this)(std::string_view(slot->origin)); }
  };
  struct Equal {
    using is_transparent = void;
    bool operator()(const HostSlot* a, const HostSlot* b) const { return a == b; }
    bool operator()(std::string_view name, const HostSlot* slot) const { return name == slot->origin; }
    bool operator()(const HostSlot* slot, std::string_view name) const { return name == slot->origin; }
  };
  std::unordered_set<HostSlot*, Hash, Equal> set_;
};

}  // namespace zcrawl::frontier
