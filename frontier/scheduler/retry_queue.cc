#include "frontier/scheduler/retry_queue.h"

#include <climits>

namespace zcrawl::frontier {

void RetryQueue::Push(UrlRecord record, int64_t ready_ms) {
  const uint64_t sequence = next_sequence_++;
  heap_.push({ready_ms, sequence});
  records_.emplace(sequence, std::move(record));
}

std::optional<UrlRecord> RetryQueue::PopDue(int64_t now_ms) {
  if (heap_.empty() || heap_.top().ready_ms > now_ms) return std::nullopt;
  const uint64_t sequence = heap_.top().sequence;
  heap_.pop();
  auto node = records_.extract(sequence);
  return std::move(node.mapped());
}

int64_t RetryQueue::NextReadyMs() const { return heap_.empty() ? INT64_MAX : heap_.top().ready_ms; }

}  // namespace zcrawl::frontier
