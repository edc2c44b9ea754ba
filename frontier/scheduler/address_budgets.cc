#include "frontier/scheduler/address_budgets.h"

#include <algorithm>
#include <climits>

namespace zcrawl::frontier {

uint32_t AddressBudgets::KeyOf(std::string_view address) {
  if (address.empty()) return 0;
  uint32_t hash = 2166136261u;  // FNV-1a
  for (unsigned char c : address) hash = (hash ^ c) * 16777619u;
  return hash == 0 ? 1 : hash;
}

int64_t AddressBudgets::ReadyMs(uint32_t key, int64_t now_ms) const {
  if (key == 0 || !enabled()) return now_ms;
  auto it = budgets_.find(key);
  if (it == budgets_.end()) return now_ms;
  if (it->second.in_flight >= options_.per_ip) return INT64_MAX;
  return std::max(now_ms, it->second.next_start_ms);
}

void AddressBudgets::Leased(uint32_t key, int64_t now_ms) {
  if (key == 0 || !enabled()) return;
  Budget& b = budgets_[key];
  if (b.address.empty()) {
    if (auto name = names_.find(key); name != names_.end()) b.address = name->second;
  }
  ++b.in_flight;
  b.next_start_ms = now_ms + options_.ip_delay_ms;
}

void AddressBudgets::Wait(uint32_t key, uint32_t origin_id) {
  ++waits_;
  budgets_[key].waiting.push_back(origin_id);
}

std::vector<uint32_t> AddressBudgets::Returned(uint32_t key, int64_t now_ms) {
  std::vector<uint32_t> woken;
  if (key == 0) return woken;
  auto it = budgets_.find(key);
  if (it == budgets_.end()) return woken;
  Budget& b = it->second;
  if (b.in_flight > 0) --b.in_flight;
  // All of them: each is scheduled again, leases what room allows, and
  // the rest wait again (a handful per address; fair by the ready heap).
  woken.swap(b.waiting);
  if (Idle(b, now_ms)) budgets_.erase(it);
  return woken;
}

void AddressBudgets::Name(uint32_t key, std::string_view address) {
  if (key == 0) return;
  auto it = budgets_.find(key);
  if (it != budgets_.end() && it->second.address.empty()) it->second.address = address;
}

void AddressBudgets::Learn(uint32_t key, std::string_view address) {
  if (key == 0 || !enabled()) return;
  if (names_.size() >= kMaxNames) names_.clear();
  names_.emplace(key, address);
}

std::vector<AddressBudgets::Row> AddressBudgets::Busiest(size_t limit, int64_t now_ms) const {
  std::vector<Row> rows;
  rows.reserve(budgets_.size());
  for (const auto& [key, b] : budgets_) {
    rows.push_back({b.address, b.in_flight, static_cast<uint32_t>(b.waiting.size()),
                    std::max<int64_t>(b.next_start_ms - now_ms, 0)});
  }
  auto busier = [](const Row& a, const Row& b) {
    return a.in_flight + a.origins_waiting != b.in_flight + b.origins_waiting
               ? a.in_flight + a.origins_waiting > b.in_flight + b.origins_waiting
               : a.address < b.address;
  };
  if (rows.size() > limit) {
    std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(limit), rows.end(), busier);
    rows.resize(limit);
  } else {
    std::sort(rows.begin(), rows.end(), busier);
  }
  return rows;
}

void AddressBudgets::Sweep(int64_t now_ms) {
  std::erase_if(budgets_, [&](const auto& entry) { return Idle(entry.second, now_ms); });
}

}  // namespace zcrawl::frontier
