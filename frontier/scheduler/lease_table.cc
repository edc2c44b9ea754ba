#include "frontier/scheduler/lease_table.h"

#include <algorithm>
#include <climits>
#include <random>

namespace zcrawl::frontier {
namespace {

uint64_t RandomLeaseEpoch() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) & 0xFFFFFF) << 40;
}

}  // namespace

LeaseTable::LeaseTable() : epoch_(RandomLeaseEpoch() + 1), next_id_(epoch_) {}

uint64_t LeaseTable::Add(ActiveLease lease) {
  const uint64_t id = next_id_++;
  deadlines_.push({lease.deadline_ms, id});
  ++count_of_[lease.fetcher];
  leases_.emplace(id, std::move(lease));
  return id;
}

std::optional<ActiveLease> LeaseTable::TakeMatching(uint64_t id, const std::string& url,
                                                    const std::string& fetcher) {
  auto it = leases_.find(id);
  if (it == leases_.end() || it->second.record.url != url || it->second.fetcher != fetcher) {
    return std::nullopt;
  }
  return Take(id);
}

std::optional<ActiveLease> LeaseTable::Take(uint64_t id) {
  auto node = leases_.extract(id);
  if (node.empty()) return std::nullopt;
  if (auto count = count_of_.find(node.mapped().fetcher); count != count_of_.end() && --count->second == 0) {
    count_of_.erase(count);
  }
  return std::move(node.mapped());
}

std::optional<uint64_t> LeaseTable::NextExpired(int64_t now_ms) {
  while (!deadlines_.empty() && deadlines_.top().first <= now_ms) {
    const uint64_t id = deadlines_.top().second;
    deadlines_.pop();
    if (leases_.count(id) == 0) continue;  // taken long ago (ExtendAll rebuilds the heap)
    return id;
  }
  return std::nullopt;
}

void LeaseTable::ExtendAll(int64_t deadline_ms) {
  decltype(deadlines_) renewed;
  for (auto& [id, lease] : leases_) {
    lease.deadline_ms = std::max(lease.deadline_ms, deadline_ms);
    renewed.push({lease.deadline_ms, id});
  }
  deadlines_.swap(renewed);
}

std::vector<uint64_t> LeaseTable::IdsOf(const std::string& fetcher,
                                        const std::unordered_set<uint64_t>* except) const {
  std::vector<uint64_t> ids;
  for (const auto& [id, lease] : leases_) {
    if (lease.fetcher == fetcher && !(except && except->count(id))) ids.push_back(id);
  }
  return ids;
}

uint64_t LeaseTable::CountOf(const std::string& fetcher) const {
  auto it = count_of_.find(fetcher);
  return it == count_of_.end() ? 0 : it->second;
}

int64_t LeaseTable::NextDeadlineMs() const { return deadlines_.empty() ? INT64_MAX : deadlines_.top().first; }

const ActiveLease* LeaseTable::Find(uint64_t id) const {
  auto it = leases_.find(id);
  return it == leases_.end() ? nullptr : &it->second;
}

}  // namespace zcrawl::frontier
