#include "frontier/store/queue_change_index.h"

#include "frontier/store/url_store_records.h"

namespace zcrawl::frontier {

using namespace store_records;

void QueueChangeIndex::CatchUp(const std::vector<StagedChange>& changes) {
  if (changes.size() < indexed_) Clear();  // not the batch indexed: start over
  next_.resize(changes.size(), kEnd);
  for (size_t at = indexed_; at < changes.size(); ++at) {
    const StagedChange& change = changes[at];
    if (change.family != kQueue || change.key.size() != 12) continue;
    Chain& chain = chains_[static_cast<uint32_t>(GetBigEndian(change.key, 0, 4))];
    if (chain.last == kEnd) {
      chain.first = static_cast<uint32_t>(at);
    } else {
      next_[chain.last] = static_cast<uint32_t>(at);
    }
    chain.last = static_cast<uint32_t>(at);
  }
  indexed_ = changes.size();
}

void QueueChangeIndex::Clear() {
  chains_.clear();
  next_.clear();
  indexed_ = 0;
}

}  // namespace zcrawl::frontier
