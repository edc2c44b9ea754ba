// OriginMemory: the RAM the origins in RAM hold outside their queue heads
// (which QueueHeads counts): each slot's node in the origin map, and the
// heap blocks of its name, name-index entry, robots rules, trouble (last
// failure, back-off)
// and requisites loaded ahead. Every change of those parts goes through
// Change(), which keeps the total exact; memory_budget.h withholds what
// is past the origins' share from the known-URL cache.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "frontier/scheduler/host_slot.h"
#include "frontier/scheduler/origin_name_index.h"

namespace zcrawl::frontier {

// The block jemalloc hands out for `bytes`: 16-byte steps to 128, then four
// size classes per doubling.
constexpr uint64_t AllocatorSizeClass(uint64_t bytes) {
  if (bytes <= 128) return (bytes + 15) / 16 * 16;
  uint64_t base = 128;
  while (base * 2 < bytes) base *= 2;
  return (bytes + base / 4 - 1) / (base / 4) * (base / 4);
}
static_assert(AllocatorSizeClass(240) == 256 && AllocatorSizeClass(264) == 320 && AllocatorSizeClass(100) == 112);

class OriginMemory {
 public:
  // A slot in the map: a node (next pointer, id, slot; std::hash of an
  // integer is not cached) at jemalloc's size class, and a bucket pointer.
  static constexpr uint64_t kSlotBytes =
      AllocatorSizeClass(sizeof(void*) + sizeof(std::pair<const uint32_t, HostSlot>)) + sizeof(void*);

  // Heap bytes of a slot outside the map node.
  static uint64_t SlotHeapBytes(const HostSlot& slot) {
    return HeapBytes(slot.origin) + OriginNameIndex::kEntryBytes +
           (slot.trouble ? sizeof(OriginTrouble) + HeapBytes(slot.trouble->last_failure) : 0) +
           slot.requisites_loaded_ahead.capacity() * sizeof(uint64_t) +
           (slot.robots ? sizeof(RobotsRules) + slot.robots->memory_bytes() : 0);
  }

  void Added(const HostSlot& slot) { heap_bytes_ += SlotHeapBytes(slot); }
  void Removed(const HostSlot& slot) { heap_bytes_ -= SlotHeapBytes(slot); }
  template <typename Mutation>
  void Change(HostSlot& slot, Mutation&& change) {
    const uint64_t before = SlotHeapBytes(slot);
    change();
    heap_bytes_ = heap_bytes_ - before + SlotHeapBytes(slot);
  }
  uint64_t heap_bytes() const { return heap_bytes_; }

 private:
  // A string's heap block: its capacity and terminator, none when it fits
  // the object itself (libstdc++'s 15 bytes).
  static uint64_t HeapBytes(const std::string& text) { return text.capacity() > 15 ? text.capacity() + 1 : 0; }

  uint64_t heap_bytes_ = 0;
};

}  // namespace zcrawl::frontier
