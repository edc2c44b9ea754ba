// The request-head reader of our small HTTP servers, and the metrics
// endpoint's answers built on it.
#include "common/http_request_head.h"

#include <gtest/gtest.h>

#include <string>

#include "common/metrics_server.h"

namespace zcrawl {
namespace {

using Verdict = HttpRequestHead::Verdict;

HttpRequestHead Parse(std::string_view bytes, size_t max = 8192) { return ParseHttpRequestHead(bytes, max); }

TEST(HttpRequestHeadTest, AScrapersRequestIsComplete) {
  const std::string request = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9100\r\nAccept: */*\r\n\r\n";
  const std::string received = request + "trailing body";  // the head's views point into it
  const HttpRequestHead head = Parse(received);
  ASSERT_EQ(head.verdict, Verdict::kComplete);
  EXPECT_EQ(head.method, "GET");
  EXPECT_EQ(head.target, "/metrics");
  EXPECT_EQ(head.version_major, 1);
  EXPECT_EQ(head.version_minor, 1);
  EXPECT_EQ(head.head_size, request.size());
}

TEST(HttpRequestHeadTest, BareLineFeedsAndLeadingEmptyLinesAreAccepted) {
  const HttpRequestHead head = Parse("\r\n\nHEAD / HTTP/1.0\nX:y\n\n");
  ASSERT_EQ(head.verdict, Verdict::kComplete);
  EXPECT_EQ(head.method, "HEAD");
  EXPECT_EQ(head.version_minor, 0);
}

TEST(HttpRequestHeadTest, EveryStrictPrefixOfAHeadIsIncomplete) {
  const std::string request = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  for (size_t cut = 0; cut < request.size(); ++cut) {
    EXPECT_EQ(Parse(request.substr(0, cut)).verdict, Verdict::kIncomplete) << cut;
  }
}

TEST(HttpRequestHeadTest, WhatSmugglesOrBreaksTheGrammarIsMalformed) {
  for (const char* bad : {
           "GET  / HTTP/1.1\r\n\r\n",         // two spaces
           "GET / HTTP/1.1 \r\n\r\n",         // trailing space
           "GE(T / HTTP/1.1\r\n\r\n",         // not a token
           "GET /a b HTTP/1.1\r\n\r\n",       // space in the target
           "GET / HTTP/11\r\n\r\n",           // version
           "GET / http/1.1\r\n\r\n",          // version is case-sensitive
           "GET / HTTP/1.1\r\nHost : x\r\n\r\n",  // whitespace before the colon
           "GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n",  // obsolete line folding
           "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
           "GET / HTTP/1.1\r\nX: a\rb\r\n\r\n",     // a CR alone
           "GET /\x7f HTTP/1.1\r\n\r\n",
       }) {
    EXPECT_EQ(Parse(bad).verdict, Verdict::kMalformed) << bad;
  }
  static constexpr char kNul[] = "GET / HTTP/1.1\r\nX: a\0b\r\n\r\n";
  EXPECT_EQ(Parse(std::string(kNul, sizeof kNul - 1)).verdict, Verdict::kMalformed);
}

TEST(HttpRequestHeadTest, AHeadLongerThanTheLimitIsTooLargeButOnlyOnceTheLimitIsPassed) {
  const std::string request = "GET / HTTP/1.1\r\nX: " + std::string(100, 'a') + "\r\n\r\n";
  EXPECT_EQ(Parse(request, request.size()).verdict, Verdict::kComplete);
  EXPECT_EQ(Parse(request, request.size() - 1).verdict, Verdict::kTooLarge);
  EXPECT_EQ(Parse(request.substr(0, 50), 50).verdict, Verdict::kIncomplete);
  EXPECT_EQ(Parse(request.substr(0, 51), 50).verdict, Verdict::kTooLarge);
}

TEST(MetricsAnswerTest, EachRequestGetsItsStatus) {
  auto status = [](std::string_view request) {
    const std::string answer = AnswerMetricsRequest(request, "m 1\n");
    return answer.substr(0, answer.find("\r\n"));
  };
  EXPECT_EQ(status("GET /metrics HTTP/1.1\r\n\r\n"), "HTTP/1.1 200 OK");
  EXPECT_EQ(status("POST /metrics HTTP/1.1\r\n\r\n"), "HTTP/1.1 405 Method Not Allowed");
  EXPECT_EQ(status("GET / HTTP/2.0\r\n\r\n"), "HTTP/1.1 505 HTTP Version Not Supported");
  EXPECT_EQ(status("GET / HTTP/1.1\r\n"), "HTTP/1.1 400 Bad Request");  // cut off
  EXPECT_EQ(status("\x16\x03\x01\x02"), "HTTP/1.1 400 Bad Request");   // TLS to a plain port
  EXPECT_EQ(status("GET / HTTP/1.1\r\nX: " + std::string(kMaxRequestHeadBytes, 'a') + "\r\n\r\n"),
            "HTTP/1.1 431 Request Header Fields Too Large");
}

TEST(MetricsAnswerTest, GetCarriesTheTextAndHeadOnlyItsLength) {
  const std::string get = AnswerMetricsRequest("GET / HTTP/1.1\r\n\r\n", "zcrawl_x 1\n");
  EXPECT_NE(get.find("Content-Length: 11\r\n"), std::string::npos) << get;
  EXPECT_EQ(get.substr(get.size() - 11), "zcrawl_x 1\n");
  const std::string head = AnswerMetricsRequest("HEAD / HTTP/1.1\r\n\r\n", "zcrawl_x 1\n");
  EXPECT_NE(head.find("Content-Length: 11\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.find("zcrawl_x"), std::string::npos) << head;
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");
}

}  // namespace
}  // namespace zcrawl
