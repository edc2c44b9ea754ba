#include "frontier/broker/heap_governor.h"

#include <algorithm>

namespace zcrawl::frontier {

HeapGovernor::HeapGovernor(uint64_t budget_bytes, uint64_t max_withheld_bytes)
    : budget_(budget_bytes), max_withheld_(max_withheld_bytes) {}

uint64_t HeapGovernor::Update(uint64_t resident_bytes) {
  if (resident_bytes > budget_) {
    withheld_ = std::min(withheld_ + (resident_bytes - budget_), max_withheld_);
  } else if (budget_ - resident_bytes > slack()) {
    // Half a step: what a withheld byte frees is more than a byte (the
    // cache's charge is below its allocation), so a full step would swing.
    const uint64_t room = budget_ - resident_bytes - slack();
    withheld_ -= std::min(withheld_, std::max<uint64_t>(room / 2, 1));
  }
  return withheld_;
}

}  // namespace zcrawl::frontier
