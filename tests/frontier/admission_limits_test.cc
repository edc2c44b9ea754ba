#include "frontier/admission/admission_limits.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace zcrawl::frontier {
namespace {

// AdmissionLimits with the scheduler's part played here: the URLs each
// origin admitted (CrawlScheduler::Admitted), counted when one is.
class CountedLimits {
 public:
  explicit CountedLimits(AdmissionLimitsOptions options) : limits_(options) {}
  std::string_view Admit(std::string_view url, std::string_view origin) {
    const std::string key(origin);
    const std::string_view why = limits_.Admit(url, origin, [&] {
      ++origin_counts_asked_;
      return per_origin_[key];
    });
    if (why.empty()) ++per_origin_[key];
    return why;
  }
  void RestoreOrigin(std::string_view origin, uint64_t admitted) {
    per_origin_[std::string(origin)] += admitted;
    limits_.RestoreOrigin(origin, admitted);
  }
  uint64_t admitted() const { return limits_.admitted(); }
  uint64_t tracked_paths() const { return limits_.tracked_paths(); }
  uint64_t tracked_domains() const { return limits_.tracked_domains(); }
  uint64_t memory_bytes() const { return limits_.memory_bytes(); }
  uint64_t origin_counts_asked() const { return origin_counts_asked_; }

 private:
  AdmissionLimits limits_;
  std::map<std::string, uint64_t> per_origin_;
  uint64_t origin_counts_asked_ = 0;
};

AdmissionLimitsOptions Caps(uint64_t pages, uint64_t per_host, uint32_t variants) {
  AdmissionLimitsOptions options;
  options.max_pages = pages;
  options.max_pages_per_host = per_host;
  options.max_query_variants = variants;
  return options;
}

TEST(AdmissionLimitsTest, WithoutCapsEveryUrlIsAdmitted) {
  CountedLimits limits(Caps(0, 0, 0));
  for (int i = 0; i < 5000; ++i) {
    ASSERT_EQ(limits.Admit("http://h/p?i=" + std::to_string(i), "http://h"), "");
  }
  EXPECT_EQ(limits.admitted(), 5000u);
  EXPECT_EQ(limits.origin_counts_asked(), 0u) << "no per-host cap: no origin is looked up";
  EXPECT_EQ(limits.tracked_paths(), 0u);
}

TEST(AdmissionLimitsTest, MaxPagesCapsTheTotal) {
  CountedLimits limits(Caps(3, 0, 0));
  EXPECT_EQ(limits.Admit("http://a/1", "http://a"), "");
  EXPECT_EQ(limits.Admit("http://b/2", "http://b"), "");
  EXPECT_EQ(limits.Admit("http://c/3", "http://c"), "");
  EXPECT_EQ(limits.Admit("http://d/4", "http://d"), "max_pages");
  EXPECT_EQ(limits.admitted(), 3u);
}

TEST(AdmissionLimitsTest, MaxPagesPerHostCountsEachOriginSeparately) {
  CountedLimits limits(Caps(0, 2, 0));
  EXPECT_EQ(limits.Admit("http://a/1", "http://a"), "");
  EXPECT_EQ(limits.Admit("http://a/2", "http://a"), "");
  EXPECT_EQ(limits.Admit("http://a/3", "http://a"), "max_pages_per_host");
  EXPECT_EQ(limits.Admit("http://b/1", "http://b"), "");
  // Another scheme or port is another origin (another politeness slot).
  EXPECT_EQ(limits.Admit("https://a/1", "https://a"), "");
  EXPECT_EQ(limits.Admit("http://a:8080/1", "http://a:8080"), "");
  EXPECT_EQ(limits.origin_counts_asked(), 6u);
}

TEST(AdmissionLimitsTest, QueryVariantsAreCappedPerOriginAndPath) {
  CountedLimits limits(Caps(0, 0, 3));
  for (int month = 1; month <= 3; ++month) {
    EXPECT_EQ(limits.Admit("http://h/cal?m=" + std::to_string(month), "http://h"), "");
  }
  EXPECT_EQ(limits.Admit("http://h/cal?m=4", "http://h"), "query_variants");
  EXPECT_EQ(limits.Admit("http://h/cal?", "http://h"), "query_variants");  // empty query counts
  EXPECT_EQ(limits.Admit("http://h/cal", "http://h"), "");         // the bare path is not a variant
  EXPECT_EQ(limits.Admit("http://h/cal/x?m=4", "http://h"), "");   // another path
  EXPECT_EQ(limits.Admit("http://g/cal?m=4", "http://g"), "");     // another host
  EXPECT_EQ(limits.Admit("https://h/cal?m=4", "https://h"), "");   // another origin
  EXPECT_EQ(limits.tracked_paths(), 4u);
}

TEST(AdmissionLimitsTest, ARefusedUrlCountsAgainstNoCap) {
  CountedLimits limits(Caps(3, 2, 1));
  EXPECT_EQ(limits.Admit("http://h/a?x=1", "http://h"), "");
  EXPECT_EQ(limits.Admit("http://h/a?x=2", "http://h"), "query_variants");
  // The refused variant did not use up the host's second page...
  EXPECT_EQ(limits.Admit("http://h/b", "http://h"), "");
  EXPECT_EQ(limits.Admit("http://h/c", "http://h"), "max_pages_per_host");
  // ...nor the total: the refusals above left one page for another host.
  EXPECT_EQ(limits.Admit("http://g/a", "http://g"), "");
  EXPECT_EQ(limits.Admit("http://f/a", "http://f"), "max_pages");
  EXPECT_EQ(limits.admitted(), 3u);
}

TEST(AdmissionLimitsTest, RestoredOriginsCountAgainstTheCapsOfTheResumedCrawl) {
  CountedLimits limits(Caps(4, 2, 1));
  limits.RestoreOrigin("http://h", 3);  // over the host cap: restored anyway
  EXPECT_EQ(limits.admitted(), 3u);
  // The per-host count is the origin's own (restored with it).
  EXPECT_EQ(limits.Admit("http://h/d", "http://h"), "max_pages_per_host");
  EXPECT_EQ(limits.Admit("http://g/a?x=2", "http://g"), "");
  EXPECT_EQ(limits.Admit("http://g/z", "http://g"), "max_pages");
}

TEST(AdmissionLimitsTest, QueryCapAboveTheCounterWidthIsClampedAndCountsSaturate) {
  CountedLimits limits(Caps(0, 0, 100000));
  for (uint32_t i = 0; i < AdmissionLimits::kMaxQueryVariants; ++i) {
    ASSERT_EQ(limits.Admit("http://h/p?i=" + std::to_string(i), "http://h"), "") << i;
  }
  EXPECT_EQ(limits.Admit("http://h/p?i=last", "http://h"), "query_variants");
}

TEST(AdmissionLimitsTest, CountersSurviveGrowthAndStayCompact) {
  constexpr int kPaths = 300000;
  CountedLimits limits(Caps(0, 0, 1));
  for (int i = 0; i < kPaths; ++i) {
    ASSERT_EQ(limits.Admit("http://h/p" + std::to_string(i) + "?a", "http://h"), "");
  }
  EXPECT_EQ(limits.tracked_paths(), static_cast<uint64_t>(kPaths));
  int refused = 0;
  for (int i = 0; i < kPaths; ++i) {
    refused += limits.Admit("http://h/p" + std::to_string(i) + "?b", "http://h") == "query_variants";
  }
  EXPECT_EQ(refused, kPaths);
  const double bytes_per_path = static_cast<double>(limits.memory_bytes()) / kPaths;
  EXPECT_LE(bytes_per_path, 21.4);
}

}  // namespace
}  // namespace zcrawl::frontier

namespace zcrawl::frontier {
namespace {

TEST(AdmissionLimitsTest, TheDomainBudgetIsSharedBySubdomainsOfOneRegistrableDomain) {
  AdmissionLimitsOptions options;
  options.max_pages_per_domain = 3;
  CountedLimits limits(options);
  // example.co.uk: co.uk is a public suffix, so both hosts are one site.
  EXPECT_EQ(limits.Admit("http://a.example.co.uk/1", "http://a.example.co.uk"), "");
  EXPECT_EQ(limits.Admit("https://b.example.co.uk/1", "https://b.example.co.uk"), "");
  EXPECT_EQ(limits.Admit("http://example.co.uk:8080/", "http://example.co.uk:8080"), "");
  EXPECT_EQ(limits.Admit("http://c.example.co.uk/1", "http://c.example.co.uk"), "max_pages_per_domain");
  // other.co.uk is another registrant; github.io is a public suffix, so its
  // users' sites are separate domains too.
  EXPECT_EQ(limits.Admit("http://other.co.uk/", "http://other.co.uk"), "");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(limits.Admit("https://alice.github.io/" + std::to_string(i), "https://alice.github.io"), "");
  }
  EXPECT_EQ(limits.Admit("https://bob.github.io/", "https://bob.github.io"), "");
  EXPECT_EQ(limits.Admit("https://alice.github.io/x", "https://alice.github.io"), "max_pages_per_domain");
  // An IP address is its own domain.
  EXPECT_EQ(limits.Admit("http://127.0.0.1:81/", "http://127.0.0.1:81"), "");
  EXPECT_EQ(limits.tracked_domains(), 5u);
}

TEST(AdmissionLimitsTest, RestoredOriginsCountAgainstTheirDomain) {
  AdmissionLimitsOptions options;
  options.max_pages_per_domain = 5;
  CountedLimits limits(options);
  limits.RestoreOrigin("http://a.example.org", 3);
  limits.RestoreOrigin("http://b.example.org", 2);
  EXPECT_EQ(limits.Admit("http://c.example.org/", "http://c.example.org"), "max_pages_per_domain");
  EXPECT_EQ(limits.Admit("http://example.net/", "http://example.net"), "");
}

}  // namespace
}  // namespace zcrawl::frontier
