// LinkAdmitter: what a report's links become (parsed, normalised, scoped,
// dropped when the shared cache or the store knows them), the parent passed
// through, and its threads: every submitted job answered once, Stop
// finishing the queue.
#include "frontier/admission/link_admitter.h"

#include <poll.h>

#include <set>

#include <gtest/gtest.h>

#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

const UrlCanonicalizer kCanonical;  // the default keys: session ids left out

ScopeOptions SeedHostA() {
  ScopeOptions options;
  options.seed_hosts = {"a.test"};
  options.rules.max_depth = 3;
  return options;
}

// Requisites skip the depth limit and may leave the scope for
// --embed-hops embeds in a row; links may not.
TEST(LinkAdmitterTest, RequisitesLeaveTheScopeForAFewEmbedsAndIgnoreDepth) {
  ScopeOptions options = SeedHostA();
  options.rules.max_embed_hops = 2;
  ScopePolicy scope(options);
  KnownUrlCache known(1 << 20);
  LinkAdmitter admitter(scope, kCanonical, known, nullptr, 1);
  AdmissionJob job;
  job.depth = 9;  // past max_depth 3
  job.links = {
      ReportedLink("http://a.test/deep-page"),
      ReportedLink("http://a.test/s.css", 0, /*is_embed=*/true),
      ReportedLink("http://cdn.test/s.css", 0, /*is_embed=*/true),
      ReportedLink("ftp://cdn.test/x", 0, /*is_embed=*/true),
  };
  AdmissionResult result = admitter.Admit(job);
  ASSERT_EQ(result.candidates.size(), 2u);
  EXPECT_EQ(result.out_of_scope, 2u) << "the deep link and the ftp requisite";
  EXPECT_EQ(result.candidates[0].url, "http://a.test/s.css");
  EXPECT_EQ(result.candidates[0].embed_hops, 0u);
  EXPECT_TRUE(result.candidates[0].embed);
  EXPECT_EQ(result.candidates[1].url, "http://cdn.test/s.css");
  EXPECT_EQ(result.candidates[1].embed_hops, 1u);

  // What the CDN's stylesheet references: one hop more, then no further.
  job.links = {ReportedLink("http://cdn.test/font.woff2", 0, true), ReportedLink("http://a.test/back.png", 0, true)};
  job.parent_embed_hops = 1;
  result = admitter.Admit(job);
  ASSERT_EQ(result.candidates.size(), 2u);
  EXPECT_EQ(result.candidates[0].embed_hops, 2u);
  EXPECT_EQ(result.candidates[1].embed_hops, 0u) << "back in scope";
  job.parent_embed_hops = 2;
  result = admitter.Admit(job);
  ASSERT_EQ(result.candidates.size(), 1u);
  EXPECT_EQ(result.candidates[0].url, "http://a.test/back.png");
  EXPECT_EQ(result.out_of_scope, 1u);
}

TEST(LinkAdmitterTest, SortsEachLinkIntoCandidateInvalidOutOfScopeOrKnown) {
  ScopePolicy scope(SeedHostA());
  KnownUrlCache known(1 << 20);
  known.Insert({kCanonical.KeyOf("http://a.test/known").fingerprint});
  LinkAdmitter admitter(scope, kCanonical, known, nullptr, 1);
  AdmissionJob job;
  job.depth = 2;
  job.links = {
      "HTTP://A.test:80/x/../new#part",  // normalised, fragment dropped
      "http://a.test/known#elsewhere",   // known once its fragment is gone
      "http://b.test/other-host",
      "http://[::1",  // does not parse
      "mailto:someone@a.test",
  };
  ParentOutcome parent;
  parent.url = "http://a.test/";
  parent.seq = 42;
  job.parent = parent;
  const AdmissionResult result = admitter.Admit(job);
  ASSERT_EQ(result.candidates.size(), 1u);
  const CandidateUrl& candidate = result.candidates[0];
  EXPECT_EQ(candidate.url, "http://a.test/new");
  EXPECT_EQ(candidate.depth, 2u);
  EXPECT_EQ(candidate.key.fingerprint, kCanonical.KeyOf("http://a.test/new").fingerprint);
  EXPECT_EQ(candidate.key.site, kCanonical.KeyOf("http://a.test/new").site);
  EXPECT_EQ(candidate.origin, Url::Parse("http://a.test/new")->origin_key());
  EXPECT_EQ(result.duplicates, 1u);
  EXPECT_TRUE(result.refresh.empty()) << "found in the current generation: nothing to refresh";
  EXPECT_EQ(result.out_of_scope, 2u) << "another host and a mailto: link";
  EXPECT_EQ(result.invalid, 1u);
  ASSERT_TRUE(result.parent.has_value());
  EXPECT_EQ(result.parent->seq, 42u);
}

// A link keyed without its session id is the URL already known; the URL a
// candidate carries is the one found. Trap refusals are counted by reason.
TEST(LinkAdmitterTest, KeysLeaveSessionIdsOutAndTrapsAreCountedByReason) {
  ScopeOptions options = SeedHostA();
  options.rules.max_path_repeat = 2;
  options.rules.max_query_params = 2;
  options.rules.max_url_length = 60;
  ScopePolicy scope(options);
  KnownUrlCache known(1 << 20);
  known.Insert({kCanonical.KeyOf("http://a.test/known").fingerprint});
  LinkAdmitter admitter(scope, kCanonical, known, nullptr, 1);
  AdmissionJob job;
  job.links = {"http://a.test/known;jsessionid=0AF3", "http://a.test/known?PHPSESSID=77ab",
               "http://a.test/new?sid=0123456789abcdef0123", "http://a.test/x/x/x", "http://a.test/?a&b&c",
               "http://a.test/" + std::string(60, 'l')};
  const AdmissionResult result = admitter.Admit(job);
  EXPECT_EQ(result.duplicates, 2u);
  ASSERT_EQ(result.candidates.size(), 1u);
  EXPECT_EQ(result.candidates[0].url, "http://a.test/new?sid=0123456789abcdef0123");
  EXPECT_EQ(result.candidates[0].key.fingerprint, kCanonical.KeyOf("http://a.test/new").fingerprint);
  EXPECT_EQ(result.out_of_scope, 3u);
  EXPECT_EQ(result.path_repeat, 1u);
  EXPECT_EQ(result.query_params, 1u);
  EXPECT_EQ(result.url_length, 1u);
  EXPECT_EQ(result.canonicalized, 3u) << "the three session ids, counted as found";
}

TEST(LinkAdmitterTest, LinksPastTheDepthLimitAreOutOfScope) {
  ScopePolicy scope(SeedHostA());
  KnownUrlCache known(1 << 20);
  LinkAdmitter admitter(scope, kCanonical, known, nullptr, 1);
  AdmissionJob job;
  job.depth = 4;
  job.links = {"http://a.test/deep"};
  const AdmissionResult result = admitter.Admit(job);
  EXPECT_TRUE(result.candidates.empty());
  EXPECT_EQ(result.out_of_scope, 1u);
}

TEST(LinkAdmitterTest, AKnownUrlFoundOnlyInTheCachesOlderGenerationIsListedForRefresh) {
  ScopePolicy scope(SeedHostA());
  KnownUrlCache known(64 << 10);
  const uint64_t popular = kCanonical.KeyOf("http://a.test/popular").fingerprint;
  known.Insert({popular});
  // Fill the cache until it rotates once: `popular` is then in the older
  // generation, still known.
  for (uint64_t i = 1; known.rotations() == 0 && i < 10'000'000; ++i) known.Insert({i * 0x9e3779b97f4a7c15ull});
  ASSERT_EQ(known.rotations(), 1u);
  LinkAdmitter admitter(scope, kCanonical, known, nullptr, 1);
  AdmissionJob job;
  job.links = {"http://a.test/popular"};
  const AdmissionResult result = admitter.Admit(job);
  EXPECT_EQ(result.duplicates, 1u);
  EXPECT_EQ(result.cache_hits, 1u);
  ASSERT_EQ(result.refresh.size(), 1u);
  EXPECT_EQ(result.refresh[0], popular);
}

// With a SeenSet, a link the cache does not hold is looked up in the store:
// written there, it is a duplicate (and goes back to the cache); staged but
// not written, or new, it is a candidate whose "not stored" is dated by the
// settled batches, and the broker's claim then decides it exactly.
TEST(LinkAdmitterTest, ALinkTheStoreHoldsIsDroppedAndTheRestAreDatedCandidates) {
  UrlStoreOptions options;
  options.dir = zcrawl::testing::MakeTempDir("link_admitter_store");
  auto store = UrlStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().message();
  KnownUrlCache known(64 << 10);
  SeenSet seen(**store, known, 1 << 20, /*resumed=*/false);
  std::vector<bool> is_new;
  seen.ClaimNew({kCanonical.KeyOf("http://a.test/written")}, &is_new);
  ASSERT_TRUE((*store)->Flush().ok());
  seen.ClaimNew({kCanonical.KeyOf("http://a.test/staged")}, &is_new);
  ASSERT_EQ(is_new, std::vector<bool>{true});
  // Neither is in the cache (it takes URLs found known, not new ones).
  ScopePolicy scope(SeedHostA());
  LinkAdmitter admitter(scope, kCanonical, known, &seen, 1);
  AdmissionJob job;
  job.links = {"http://a.test/written", "http://a.test/staged", "http://a.test/new"};
  AdmissionResult result = admitter.Admit(job);
  EXPECT_EQ(result.duplicates, 1u);
  EXPECT_EQ(result.cache_hits, 0u) << "the store knew it, not the cache";
  EXPECT_EQ(result.refresh, std::vector<uint64_t>{kCanonical.KeyOf("http://a.test/written").fingerprint});
  ASSERT_EQ(result.candidates.size(), 2u);
  EXPECT_EQ(result.candidates[0].url, "http://a.test/staged");
  EXPECT_EQ(result.candidates[1].url, "http://a.test/new");
  EXPECT_EQ(result.not_stored_as_of, (*store)->settled_batches());
  std::vector<UrlKey> keys = {result.candidates[0].key, result.candidates[1].key};
  seen.ClaimNew(keys, &is_new, result.not_stored_as_of);
  EXPECT_EQ(is_new, (std::vector<bool>{false, true}));
  EXPECT_EQ(seen.counters().link_answers_used, 2u);
  EXPECT_EQ(seen.counters().link_found_stored, 1u);
}

TEST(LinkAdmitterTest, ItsThreadsAnswerEverySubmittedJobOnceAndStopFinishesTheQueue) {
  ScopePolicy scope(SeedHostA());
  KnownUrlCache known(1 << 20);
  LinkAdmitter admitter(scope, kCanonical, known, nullptr, 3);
  constexpr int kJobs = 500;
  for (int i = 0; i < kJobs; ++i) {
    AdmissionJob job;
    job.links = {"http://a.test/" + std::to_string(i), "http://b.test/" + std::to_string(i)};
    ParentOutcome parent;
    parent.seq = static_cast<uint64_t>(i);
    job.parent = parent;
    admitter.Submit(std::move(job));
  }
  // The results' eventfd is readable once some are in.
  pollfd readable{admitter.results().fd(), POLLIN, 0};
  ASSERT_EQ(poll(&readable, 1, 10'000), 1);
  admitter.Stop();  // returns once the queued jobs are done
  std::vector<AdmissionResult> results;
  admitter.results().Drain(results);
  ASSERT_EQ(results.size(), static_cast<size_t>(kJobs));
  std::set<uint64_t> parents;
  std::set<std::string> candidates;
  for (const AdmissionResult& result : results) {
    ASSERT_TRUE(result.parent.has_value());
    parents.insert(result.parent->seq);
    EXPECT_EQ(result.out_of_scope, 1u);
    for (const CandidateUrl& candidate : result.candidates) candidates.insert(candidate.url);
  }
  EXPECT_EQ(parents.size(), static_cast<size_t>(kJobs)) << "a job answered twice or not at all";
  EXPECT_EQ(candidates.size(), static_cast<size_t>(kJobs));
}

}  // namespace
}  // namespace zcrawl::frontier
