// Fault injection, pages and servers.
// Over 500 lines on purpose: one crawl (three processes, the slow part) serves
// every bad URL, and each needs its server handler and its expected outcome.
// The real frontier, writer and fetcher processes crawl loopback sites where
// each URL misbehaves in one way (malformed or 100k-deep HTML, empty and
// 50 MiB bodies, a gzip bomb, invalid UTF-8 and NUL bytes, lying
// Content-Length, headers of megabytes (one line, or many), endless chunked
// streams, a slow drip, a reset mid-body, 10,000 links, 100 KB links,
// redirect loops, redirects to other schemes and out-of-scope loopback
// hosts, 5xx storms, huge, binary and endless robots.txt).
//
// Each bad URL must end in a counted outcome: a failure reason in the
// frontier's summary (with a "failed url=... reason=..." log line), or a
// record in index.jsonl. The good pages must all be stored, nothing out of
// scope contacted, and all three processes must stay up to the end and exit 0.
#include <gtest/gtest.h>
#include <zlib.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/faults/fault_support.h"
#include "tests/support/frontier_state.h"
#include "tests/support/crawl_output.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr size_t kHugeBodyBytes = 50u << 20;       // over the 10 MiB default limit
constexpr size_t kBombInflatedBytes = 100u << 20;  // what the gzip bomb expands to
constexpr int kManyLinks = 10000;
constexpr int kManyLinksInScopeEvery = 50;         // 1 in 50 stays on the site
constexpr size_t kLongLinkBytes = 100 * 1024;
constexpr int kStormPages = 20;
constexpr char kBlockedRule[] = "User-agent: *\nDisallow: /blocked/\n";

// gzip of `bytes` zero bytes, built once (about 100 KB for 100 MiB).
std::string GzipOfZeros(size_t bytes) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + 15, 9, Z_DEFAULT_STRATEGY);
  const std::string zeros(1 << 20, '\0');
  std::string out;
  char buffer[1 << 16];
  for (size_t fed = 0; fed < bytes; fed += zeros.size()) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zeros.data()));
    z.avail_in = static_cast<uInt>(zeros.size());
    const int flush = fed + zeros.size() >= bytes ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof buffer;
      deflate(&z, flush);
      out.append(buffer, sizeof buffer - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  return out;
}

// A string literal with its embedded NULs, without the terminating one.
template <size_t N>
std::string Bytes(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

std::string OkPage(const std::string& name) {
  return "<!DOCTYPE html><html><head><title>" + name + "</title></head><body><p>good page " +
         name + "</p></body></html>";
}

TestResponse Html(std::string body) {
  TestResponse r;
  r.body = std::move(body);
  return r;
}

TestResponse Redirect(const std::string& location, int status = 302) {
  TestResponse r;
  r.status = status;
  r.headers.push_back({"Location", location});
  r.body = "<html><body>moved</body></html>";
  return r;
}

// What must become of one URL.
struct Expectation {
  bool stored = false;  // else failed
  int http_status = 200;            // stored: status in index.jsonl
  int64_t bytes = -1;               // stored: body size, if it matters
  std::string reason;               // failed: the summary's failure reason
};

class BadPagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("bad-pages");
    huge_body_ = std::make_shared<const std::string>(
        "<html><body>" + std::string(kHugeBodyBytes, 'a') + "</body></html>");
    gzip_bomb_ = std::make_shared<const std::string>(GzipOfZeros(kBombInflatedBytes));

    foreign_ = std::make_unique<TestHttpServer>("127.0.0.2", [](const TestRequest&) {
      return Html(OkPage("foreign"));
    });
    foreign_->Start();
    main_ = std::make_unique<TestHttpServer>("127.0.0.1",
                                             [this](const TestRequest& r) { return ServeMain(r); });
    main_->Start();
    auto robots_site = [](TestResponse robots) {
      auto server = std::make_unique<TestHttpServer>(
          "127.0.0.1", [robots](const TestRequest& r) { return ServeRobotsSite(r, robots); });
      server->Start();
      return server;
    };
    robots_huge_ = robots_site(HugeRobots());
    robots_binary_ = robots_site(BinaryRobots());
    robots_endless_ = robots_site(EndlessRobots(/*trickle=*/false));
    robots_trickle_ = robots_site(EndlessRobots(/*trickle=*/true));
    storm_ = std::make_unique<TestHttpServer>("127.0.0.1", [](const TestRequest&) {
      TestResponse r;
      r.status = 503;
      r.body = "<html><body>overloaded</body></html>";
      return r;
    });
    storm_->Start();
    BuildExpectations();
  }

  std::string Main(const std::string& path) const { return main_->origin() + path; }

  // The main site: a home page linking every case.
  TestResponse ServeMain(const TestRequest& request) {
    const std::string& t = request.target;
    const std::string host = request.headers.count("host") ? request.headers.at("host") : "";
    if (host != "127.0.0.1:" + std::to_string(main_->port())) {
      std::lock_guard<std::mutex> lock(mutex_);
      wrong_hosts_.insert(host + t);
    }
    if (t == "/robots.txt") {
      TestResponse r;
      r.headers.push_back({"Content-Type", "text/plain"});
      r.body = "User-agent: *\nDisallow: /private/\n";
      return r;
    }
    if (t == "/") {
      std::string h = "<html><head><title>Faults</title></head><body>";
      for (const auto& path : linked_from_home_) h += "<a href=\"" + path + "\">case</a>\n";
      return Html(h + "</body></html>");
    }
    if (t.starts_with("/ok/") || t.starts_with("/many/")) return Html(OkPage(t));
    if (t == "/malformed.html") {
      return Html(
          "<html><head><title>unclosed <b><i></title><body><div <p>><a href=/ok/from-malformed.html"
          ">x</a <table><tr><td></div></span></html></html><<<>>>&&&#xZZZZZZZZ;&#0;&#x110000;"
          "<!-- unterminated comment <a href=\"/ok/in-comment.html\">no</a> --!>"
          "<a href='/ok/from-malformed-2.html'>y<form><form><select><option><table><frameset>"
          "<svg><math><script>document.write('<a href=/script.html>')</scr");
    }
    if (t == "/nested.html") {
      std::string h = "<html><body><a href=\"/ok/from-nested.html\">before</a>";
      for (int i = 0; i < 100000; ++i) h += "<div>";
      h += "deep";
      for (int i = 0; i < 100000; ++i) h += "</div>";
      return Html(h + "</body></html>");
    }
    if (t == "/empty.html") return Html("");
    if (t == "/huge.html") {
      TestResponse r;
      r.shared_body = huge_body_;
      return r;
    }
    if (t == "/gzip-bomb.html") {
      TestResponse r;
      r.headers.push_back({"Content-Encoding", "gzip"});
      r.shared_body = gzip_bomb_;
      return r;
    }
    if (t == "/invalid-utf8.html") {
      std::string h = "<html><head><title>bad \xff\xfe\xc3\x28 title</title></head><body>";
      h += Bytes("NUL\0bytes\0\0 and \xa0\xa1\xe2\x28\xa1\xf0\x28\x8c\xbc\xed\xa0\x80");
      h += "<a href=\"/ok/from-utf8.html\">after the bad bytes</a>";
      h += Bytes("<a href=\"/ok/x\xff\0y.html\">bad href</a></body></html>");
      return Html(h);
    }
    if (t == "/bad-header.html") {
      TestResponse r = Html(OkPage("bad header"));
      r.headers.push_back({"Content-Type", "text/html; charset=no-such-charset-\xff"});
      r.headers.push_back({"X-Junk", "\xff\xfe\x80 not utf-8"});
      return r;
    }
    if (t == "/content-length-long.html") {
      TestResponse r = Html(OkPage("long"));
      r.content_length_lies = true;
      return r;
    }
    if (t == "/content-length-short.html") {
      TestResponse r = Html(std::string(1000, 'x'));
      r.content_length_short = true;
      return r;
    }
    if (t == "/endless-chunked.html") {
      TestResponse r;
      r.endless_chunk_bytes = 64 * 1024;
      return r;
    }
    if (t == "/endless-slow.html") {
      TestResponse r;
      r.endless_chunk_bytes = 1000;
      r.endless_chunk_interval_ms = 100;
      return r;
    }
    if (t == "/slow-drip.html") {
      TestResponse r = Html(std::string(2000, 'd'));
      r.drip_bytes_per_second = 20;
      return r;
    }
    if (t == "/reset.html") {
      TestResponse r = Html(std::string(200000, 'r'));
      r.reset_mid_body = true;
      return r;
    }
    if (t == "/close-mid-body.html") {
      TestResponse r = Html(std::string(200000, 'c'));
      r.close_mid_body = true;
      return r;
    }
    if (t == "/giant-header.html") {  // one header line of 2 MiB
      TestResponse r = Html(OkPage("giant-header"));
      r.headers.push_back({"X-Giant", std::string(2u << 20, 'g')});
      return r;
    }
    if (t == "/many-headers.html") {  // 2 MiB of small header lines
      TestResponse r = Html(OkPage("many-headers"));
      for (int i = 0; i < 32768; ++i) r.headers.push_back({"X-Many-" + std::to_string(i), std::string(48, 'm')});
      return r;
    }
    if (t == "/not-http.html") {
      TestResponse r;
      r.raw = Bytes("\x00\x01\x02 this is not HTTP at all\r\n\r\n");
      return r;
    }
    if (t == "/bad-status-line.html") {
      TestResponse r;
      r.raw = "HTTP/1.1 two hundred OK\r\nContent-Length: 2\r\n\r\nhi";
      return r;
    }
    if (t == "/many-links.html") {
      std::string h = "<html><body>";
      for (int i = 0; i < kManyLinks; ++i) {
        const std::string path = "/many/" + std::to_string(i) + ".html";
        h += "<a href=\"" + (i % kManyLinksInScopeEvery == 0 ? path : foreign_->origin() + path) +
             "\">" + std::to_string(i) + "</a>\n";
      }
      return Html(h + "</body></html>");
    }
    if (t == "/long-links.html") {
      std::string h = "<html><body>";
      for (char c : {'a', 'b', 'c'}) {
        h += "<a href=\"/long/" + std::string(kLongLinkBytes, c) + ".html\">long</a>";
      }
      h += "<a href=\"/ok/from-long.html\">short</a>";
      return Html(h + "</body></html>");
    }
    if (t == "/loop/a") return Redirect("/loop/b");
    if (t == "/loop/b") return Redirect(Main("/loop/a"), 301);
    if (t == "/loop/self") return Redirect("/loop/self");
    if (t == "/moved/ok/3.html") return Redirect("/ok/3.html", 301);
    if (t == "/redirect/ftp") return Redirect("ftp://127.0.0.1:" + std::to_string(main_->port()) + "/x");
    if (t == "/redirect/file") return Redirect("file:///etc/passwd");
    if (t == "/redirect/javascript") return Redirect("javascript:alert(1)");
    if (t == "/redirect/foreign") return Redirect(foreign_->origin() + "/secret.html");
    if (t == "/redirect/localhost") {
      return Redirect("http://localhost:" + std::to_string(main_->port()) + "/via-localhost.html");
    }
    if (t.starts_with("/storm/")) {
      static const int kCodes[] = {500, 502, 503, 504};
      TestResponse r;
      r.status = kCodes[std::stoi(t.substr(7)) % 4];
      r.body = "<html><body>storm</body></html>";
      return r;
    }
    if (t == "/too-many-requests.html") {
      TestResponse r;
      r.status = 429;
      r.headers.push_back({"Retry-After", "1"});
      return r;
    }
    TestResponse r;
    r.status = 404;
    r.body = "<html><body>not found</body></html>";
    return r;
  }

  // A site whose robots.txt is `robots`; its home links /blocked/x.html
  // (disallowed by the rule each robots.txt below starts with, if it is
  // read) and /fine.html.
  static TestResponse ServeRobotsSite(const TestRequest& request, const TestResponse& robots) {
    if (request.target == "/robots.txt") return robots;
    if (request.target == "/") {
      return Html("<html><body><a href=\"/blocked/x.html\">no</a><a href=\"/fine.html\">yes</a></body></html>");
    }
    // Served like any page: a robots.txt not obeyed shows as it stored.
    if (request.target == "/fine.html" || request.target == "/blocked/x.html") {
      return Html(OkPage(request.target));
    }
    TestResponse r;
    r.status = 404;
    return r;
  }

  static TestResponse PlainText(std::string body) {
    TestResponse r;
    r.headers.push_back({"Content-Type", "text/plain"});
    r.body = std::move(body);
    return r;
  }

  // robots.txt of 5 MiB: a real rule first, then padding rules.
  static TestResponse HugeRobots() {
    TestResponse r = PlainText(kBlockedRule);
    for (int i = 0; r.body.size() < (5u << 20); ++i) {
      r.body += "Disallow: /padding/" + std::to_string(i) + "/\n";
    }
    return r;
  }

  // robots.txt of random bytes, NULs included: no rule can be read.
  static TestResponse BinaryRobots() {
    TestResponse r;
    r.headers.push_back({"Content-Type", "application/octet-stream"});
    std::mt19937 random(42);
    r.body.resize(64 * 1024);
    for (char& c : r.body) c = static_cast<char>(random() & 0xFF);
    return r;
  }

  // robots.txt that never ends: the rule repeated in 64 KiB chunks, at full
  // speed, or (trickle) 1000 bytes every 100 ms.
  static TestResponse EndlessRobots(bool trickle) {
    TestResponse r = PlainText(kBlockedRule);
    r.endless_chunk_bytes = trickle ? 1000 : 64 * 1024;
    r.endless_chunk_interval_ms = trickle ? 100 : 0;
    return r;
  }

  void Stored(const std::string& url, int status = 200, int64_t bytes = -1) {
    expect_[url] = Expectation{true, status, bytes, ""};
  }
  void Failed(const std::string& url, const std::string& reason) {
    expect_[url] = Expectation{false, 0, -1, reason};
  }

  void BuildExpectations() {
    linked_from_home_ = {
        "/malformed.html", "/nested.html", "/empty.html", "/huge.html", "/gzip-bomb.html",
        "/invalid-utf8.html", "/bad-header.html", "/content-length-long.html",
        "/content-length-short.html", "/endless-chunked.html", "/endless-slow.html",
        "/slow-drip.html", "/reset.html", "/close-mid-body.html", "/not-http.html",
        "/giant-header.html", "/many-headers.html",
        "/bad-status-line.html",
        "/many-links.html", "/long-links.html", "/loop/a", "/loop/self", "/moved/ok/3.html", "/redirect/ftp",
        "/redirect/file", "/redirect/javascript", "/redirect/foreign", "/redirect/localhost",
        "/too-many-requests.html", "/private/x.html"};
    for (int i = 0; i < 10; ++i) linked_from_home_.push_back("/ok/" + std::to_string(i) + ".html");
    for (int i = 0; i < kStormPages; ++i) linked_from_home_.push_back("/storm/" + std::to_string(i));

    Stored(Main("/"));
    for (int i = 0; i < 10; ++i) Stored(Main("/ok/" + std::to_string(i) + ".html"));
    Stored(Main("/malformed.html"));
    Stored(Main("/ok/from-malformed.html"));
    Stored(Main("/ok/from-malformed-2.html"));
    Stored(Main("/nested.html"));
    Stored(Main("/ok/from-nested.html"));
    Stored(Main("/empty.html"), 200, 0);
    Failed(Main("/huge.html"), "too_large");
    Failed(Main("/gzip-bomb.html"), "too_large");
    Stored(Main("/invalid-utf8.html"));
    Stored(Main("/ok/from-utf8.html"));
    // The href's invalid byte and NUL each become U+FFFD, percent-encoded.
    Stored(Main("/ok/x%EF%BF%BD%EF%BF%BDy.html"));
    Stored(Main("/bad-header.html"));
    // Failures are counted by the fetcher's cause (fetcher/failure_cause.h).
    Failed(Main("/content-length-long.html"), "truncated_response");
    Stored(Main("/content-length-short.html"), 200, 500);
    Failed(Main("/endless-chunked.html"), "too_large");
    Failed(Main("/endless-slow.html"), "timeout");
    Failed(Main("/slow-drip.html"), "timeout");
    Failed(Main("/reset.html"), "connection_reset");
    Failed(Main("/close-mid-body.html"), "truncated_response");
    Failed(Main("/not-http.html"), "bad_response");
    Failed(Main("/giant-header.html"), "headers_too_large");
    Failed(Main("/many-headers.html"), "headers_too_large");
    Failed(Main("/bad-status-line.html"), "bad_response");
    Stored(Main("/many-links.html"));
    for (int i = 0; i < kManyLinks; i += kManyLinksInScopeEvery) {
      Stored(Main("/many/" + std::to_string(i) + ".html"));
    }
    Stored(Main("/long-links.html"));
    Stored(Main("/ok/from-long.html"));
    // A redirect is stored as the 3xx it is and its target is a link: a
    // loop ends when it comes back to a URL already seen, each URL fetched
    // once (checked against the server below).
    Stored(Main("/loop/a"), 302);
    Stored(Main("/loop/b"), 301);
    Stored(Main("/loop/self"), 302);
    // A redirect to a page also linked directly: the page is fetched once.
    Stored(Main("/moved/ok/3.html"), 301);
    for (const char* to : {"ftp", "file", "javascript", "foreign", "localhost"}) {
      Stored(Main(std::string("/redirect/") + to), 302);
    }
    for (int i = 0; i < kStormPages; ++i) {
      static const char* kReasons[] = {"http_500", "http_502", "http_503", "http_504"};
      Failed(Main("/storm/" + std::to_string(i)), kReasons[i % 4]);
    }
    Failed(Main("/too-many-requests.html"), "http_429");
    Failed(Main("/private/x.html"), "robots_disallowed");

    Stored(robots_huge_->origin() + "/");
    Stored(robots_huge_->origin() + "/fine.html");
    Failed(robots_huge_->origin() + "/blocked/x.html", "robots_disallowed");
    Stored(robots_binary_->origin() + "/");
    Stored(robots_binary_->origin() + "/fine.html");
    Stored(robots_binary_->origin() + "/blocked/x.html");
    // An endless robots.txt is cut at the robots size limit and read up to
    // there; one that trickles for ever times out like a server that never
    // answers, and its origin's URLs fail with that reason.
    Stored(robots_endless_->origin() + "/");
    Stored(robots_endless_->origin() + "/fine.html");
    Failed(robots_endless_->origin() + "/blocked/x.html", "robots_disallowed");
    Failed(robots_trickle_->origin() + "/", "robots_unavailable: timeout");
    Failed(storm_->origin() + "/", "robots_unavailable: http_503");
  }

  std::string dir_;
  std::shared_ptr<const std::string> huge_body_;
  std::shared_ptr<const std::string> gzip_bomb_;
  std::unique_ptr<TestHttpServer> foreign_, main_, robots_huge_, robots_binary_, robots_endless_,
      robots_trickle_, storm_;
  std::vector<std::string> linked_from_home_;
  std::map<std::string, Expectation> expect_;  // absolute URL -> outcome
  std::mutex mutex_;
  std::set<std::string> wrong_hosts_;  // guarded by mutex_
};

TEST_F(BadPagesTest, EveryBadPageEndsInACountedOutcomeAndEveryProcessSurvives) {
  const std::string frontier_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string writer_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string summary = dir_ + "/summary.json";
  const std::vector<std::string> heartbeat = {"--heartbeat-ms", "200"};
  TestProcess frontier, writer, fetcher;
  frontier.Start({BinDir() + "/zcrawl-frontier", "--bind", frontier_ep, "--delay-ms", "0",
                  "--per-host", "8", "--retries", "1", "--retry-base-ms", "100",
                  // The bad pages would push their origin back (5xx,
                  // resets, timeouts) for minutes; this test is about what
                  // each page ends as (origin_backoff_test tests the
                  // back-off).
                  "--backoff-max-ms", "0", "--heartbeat-ms", "200", "--liveness", "25", "--summary-file", summary,
                  "--state", dir_ + "/state",
                  "--log-level", "debug", main_->origin() + "/", robots_huge_->origin() + "/",
                  robots_binary_->origin() + "/", robots_endless_->origin() + "/",
                  robots_trickle_->origin() + "/", storm_->origin() + "/"},
                 dir_ + "/frontier.log");
  writer.Start({BinDir() + "/zcrawl-writer", "--bind", writer_ep, "--frontier", frontier_ep,
                "--out", dir_ + "/out", "--heartbeat-ms", "200"},
               dir_ + "/writer.log");
  fetcher.Start({BinDir() + "/zcrawl-fetcher", "--frontier", frontier_ep, "--writer", writer_ep,
                 "--threads", "8", "--timeout-ms", "6000", "--low-speed-bytes", "100",
                 "--low-speed-ms", "2000", "--heartbeat-ms", "200", "--liveness", "25"},
                dir_ + "/fetcher.log");

  // All three stay up until the frontier declares the crawl finished; then
  // each exits 0 on its own.
  const auto frontier_code = frontier.Wait(100000);
  ASSERT_TRUE(frontier_code.has_value()) << "crawl did not finish\n" << ReadFile(dir_ + "/fetcher.log");
  EXPECT_EQ(*frontier_code, 0) << ReadFile(dir_ + "/frontier.log");
  EXPECT_EQ(fetcher.Wait(15000).value_or(-1), 0) << ReadFile(dir_ + "/fetcher.log");
  EXPECT_EQ(writer.Wait(15000).value_or(-1), 0) << ReadFile(dir_ + "/writer.log");

  const auto json = nlohmann::json::parse(ReadFile(summary), nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(json.is_discarded()) << "no summary at " << summary;
  EXPECT_TRUE(json["finished"].get<bool>());

  // Per URL: the expected outcome, and for failures the reason the
  // frontier recorded for it.
  auto index = ReadIndex(dir_ + "/out");
  const std::map<std::string, std::string> failed = FailedUrls(dir_ + "/state");
  std::map<std::string, uint64_t> expected_reasons;
  size_t expected_stored = 0;
  for (const auto& [url, want] : expect_) {
    SCOPED_TRACE(url);
    auto it = index.find(url);
    if (want.stored) {
      ++expected_stored;
      if (it == index.end()) {
        ADD_FAILURE() << "not stored";
        continue;
      }
      EXPECT_EQ(it->second.size(), 1u) << "stored more than once";
      EXPECT_EQ(it->second[0].status, want.http_status);
      if (want.bytes >= 0) {
        EXPECT_EQ(it->second[0].bytes, static_cast<uint64_t>(want.bytes));
      }
    } else {
      ++expected_reasons[want.reason];
      EXPECT_EQ(it, index.end()) << "a failed URL was stored";
      const auto reason = failed.find(url);
      EXPECT_EQ(reason == failed.end() ? "(not failed)" : reason->second, want.reason);
    }
  }
  // Nothing else stored, nothing else failed: the counts match exactly.
  EXPECT_EQ(index.size(), expected_stored);
  std::map<std::string, uint64_t> reasons;
  for (const auto& [name, n] : json["failure_reasons"].items()) reasons[name] = n.get<uint64_t>();
  EXPECT_EQ(reasons, expected_reasons);
  EXPECT_EQ(json["done"].get<uint64_t>(), expected_stored);
  EXPECT_EQ(json["failed"].get<uint64_t>(), expect_.size() - expected_stored);

  // Links that must never be followed: 9,800 foreign ones, three of 100 KB,
  // non-http redirect targets, out-of-scope loopback redirects.
  EXPECT_GE(json["links"]["out_of_scope"].get<uint64_t>(),
            static_cast<uint64_t>(kManyLinks - kManyLinks / kManyLinksInScopeEvery + 3 + 2));
  EXPECT_EQ(foreign_->total_requests(), 0u) << "contacted a host outside the scope";
  {
    std::lock_guard<std::mutex> lock(mutex_);
    EXPECT_TRUE(wrong_hosts_.empty()) << "requested via another host name: " << *wrong_hosts_.begin();
  }
  for (const char* once : {"/loop/a", "/loop/b", "/loop/self", "/moved/ok/3.html", "/ok/3.html"}) {
    EXPECT_EQ(main_->requests_for(once), 1u) << once;
  }
  for (const auto& [target, count] : main_->request_counts()) {
    EXPECT_LT(target.size(), 2048u) << "fetched a 100 KB link";
    EXPECT_FALSE(target.starts_with("/private/")) << "ignored robots.txt";
    EXPECT_NE(target, "/ok/in-comment.html") << "followed a link inside a comment";
  }
  EXPECT_EQ(robots_huge_->requests_for("/blocked/x.html"), 0u) << "ignored the huge robots.txt";
  EXPECT_EQ(storm_->requests_for("/"), 0u) << "fetched a page whose robots.txt never answered";
  EXPECT_EQ(robots_endless_->requests_for("/blocked/x.html"), 0u) << "ignored the endless robots.txt";
  EXPECT_EQ(robots_trickle_->requests_for("/"), 0u) << "fetched a page whose robots.txt never ended";
  EXPECT_GE(robots_trickle_->requests_for("/robots.txt"), 1u);
  // The robots.txt of the 5xx storm was asked again before giving up (its
  // URL's recorded reason, robots_unavailable: http_503, is checked above).
  EXPECT_EQ(storm_->requests_for("/robots.txt"), 2u);
  EXPECT_EQ(json["malformed_messages"].get<uint64_t>(), 0u);
  // No page crashed a worker: no attempt failed for that reason, final or
  // retried (the frontier's counts, not the fetcher's log).
  EXPECT_FALSE(json["failure_reasons"].contains("worker_failed")) << json.dump(2);
  ASSERT_TRUE(json.contains("retry_reasons")) << json.dump(2);
  EXPECT_FALSE(json["retry_reasons"].contains("worker_failed")) << json.dump(2);
}

}  // namespace
}  // namespace zcrawl::testing
