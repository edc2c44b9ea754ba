// HtmlParserPool: lends HtmlParsers to fetch workers, one parse at a time.
//
// A worker waits on the network for most of a fetch and parses for a
// fraction of a millisecond, so few parsers are busy at once even with
// hundreds of workers. Lending them keeps as many parsers as ever parsed at
// the same moment (about one per core) instead of one per worker. That is
// memory: a MyHTML parser keeps ~0.4 MB of tree arenas between pages, and a
// fetcher with 256 workers held ~90 MB of them (bench/RESULTS.md).
//
// Acquire never blocks: with no parser idle it makes a new one, so a slow or
// abandoned worker (the ThreadPool watchdog) costs one parser, never a wait.
// A lease keeps the pool's state alive, so a parser may come back even after
// the pool object is gone; it is then freed.
//
// Thread-safety: Acquire, the accessors and a Lease's destruction may run on
// any thread at once. One Lease is for the thread that holds it.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "common/mutex.h"
#include "fetcher/html_parser.h"

namespace zcrawl::fetcher {

class HtmlParserPool {
 public:
  using Factory = std::function<std::unique_ptr<HtmlParser>()>;

  // `make` builds a parser (e.g. MakeHtmlParser with the fetcher's options);
  // it must not return null.
  explicit HtmlParserPool(Factory make);
  HtmlParserPool(const HtmlParserPool&) = delete;
  HtmlParserPool& operator=(const HtmlParserPool&) = delete;

 private:
  struct State {
    Mutex mu;
    std::vector<std::unique_ptr<HtmlParser>> idle GUARDED_BY(mu);
    size_t created GUARDED_BY(mu) = 0;
    Factory make;
  };

 public:
  // A parser on loan; it goes back to the pool when the lease ends.
  class Lease {
   public:
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

    HtmlParser& operator*() const { return *parser_; }
    HtmlParser* operator->() const { return parser_.get(); }

   private:
    friend class HtmlParserPool;
    Lease(std::shared_ptr<State> state, std::unique_ptr<HtmlParser> parser)
        : state_(std::move(state)), parser_(std::move(parser)) {}

    std::shared_ptr<State> state_;
    std::unique_ptr<HtmlParser> parser_;
  };

  // An idle parser, or a new one.
  Lease Acquire();

  // Parsers made so far (the most ever on loan at once).
  size_t created() const;
  // Parsers waiting for a worker.
  size_t idle() const;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace zcrawl::fetcher
