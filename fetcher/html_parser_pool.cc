#include "fetcher/html_parser_pool.h"

#include <utility>

namespace zcrawl::fetcher {

HtmlParserPool::HtmlParserPool(Factory make) : state_(std::make_shared<State>()) {
  state_->make = std::move(make);
}

HtmlParserPool::Lease HtmlParserPool::Acquire() {
  {
    MutexLock lock(state_->mu);
    if (!state_->idle.empty()) {
      std::unique_ptr<HtmlParser> parser = std::move(state_->idle.back());
      state_->idle.pop_back();
      return Lease(state_, std::move(parser));
    }
    ++state_->created;
  }
  // Made outside the lock: a MyHTML parser takes a while to set up.
  return Lease(state_, state_->make());
}

HtmlParserPool::Lease::~Lease() {
  if (!parser_ || !state_) return;  // moved from
  MutexLock lock(state_->mu);
  state_->idle.push_back(std::move(parser_));
}

size_t HtmlParserPool::created() const {
  MutexLock lock(state_->mu);
  return state_->created;
}

size_t HtmlParserPool::idle() const {
  MutexLock lock(state_->mu);
  return state_->idle.size();
}

}  // namespace zcrawl::fetcher
