// The links of every page of two real documentation sets, as html5lib's tree
// gives them, against the "scan" backend (what the fetchers run) and gumbo
// (the reference backend): issue 19's "exactly the links html5lib and gumbo
// give on every page of python3-doc and postgresql-doc-15". html5lib is an
// independent HTML5 implementation in Python; tests/html5lib/parsed_html.py
// reads its tree by the rules of fetcher/parsed_html_builder.cc. The test
// also reports how many pages the scanner read without a tree (the rest went
// to MyHTML), and fails if that is rare: a fast path that never runs would
// pass by falling back.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fetcher/html_parser.h"
#include "fetcher/scan_html_parser.h"
#include "tests/support/documentation_corpus.h"
#include "tests/support/test_process.h"

namespace zcrawl::fetcher {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPython = "/usr/bin/python3";

std::string_view LinkKind(LinkSource source) {
  switch (source) {
    case LinkSource::kA: return "a";
    case LinkSource::kArea: return "area";
    case LinkSource::kFrame: return "frame";
    case LinkSource::kIframe: return "iframe";
  }
  return "?";
}

// What html5lib and our parsers are compared on: ParsedHtml without text,
// embeds and the meta charset, as JSON of the oracle's shape.
nlohmann::json Comparable(const ParsedHtml& parsed) {
  nlohmann::json links = nlohmann::json::array();
  for (const RawLink& link : parsed.links) links.push_back({LinkKind(link.source), link.href, link.rel_nofollow});
  return {{"links", links},
          {"base_href", parsed.base_href},
          {"title", parsed.title},
          {"meta_noindex", parsed.meta_noindex},
          {"meta_nofollow", parsed.meta_nofollow}};
}

nlohmann::json OracleFields(const nlohmann::json& oracle) {
  return {{"links", oracle.at("links")},
          {"base_href", oracle.at("base_href")},
          {"title", oracle.at("title")},
          {"meta_noindex", oracle.at("meta_noindex")},
          {"meta_nofollow", oracle.at("meta_nofollow")}};
}

bool Html5libInstalled() {
  return std::system((std::string(kPython) + " -c 'import html5lib' 2>/dev/null").c_str()) == 0;
}

// html5lib's reading of each of `pages`, in their order.
std::vector<nlohmann::json> Html5libReadings(const std::vector<fs::path>& pages) {
  const std::string dir = testing::MakeTempDir("html5lib");
  const std::string list = dir + "/pages.txt";
  const std::string output = dir + "/html5lib.jsonl";
  {
    std::ofstream out(list);
    for (const fs::path& page : pages) out << page.string() << "\n";
  }
  const std::string command = std::string(kPython) + " " + testing::SourceDir() +
                              "/tests/html5lib/parsed_html.py 2 < " + list + " > " + output;
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::vector<nlohmann::json> readings;
  std::ifstream in(output);
  for (std::string line; std::getline(in, line);) readings.push_back(nlohmann::json::parse(line));
  return readings;
}

class Html5libAgreementTest : public ::testing::Test {
 protected:
  // Every page of `pages`: scan and gumbo each give html5lib's answer.
  void ExpectAgreement(const std::set<fs::path>& page_set, const char* package) {
    if (page_set.empty()) GTEST_SKIP() << package << " is not installed";
    if (!Html5libInstalled()) GTEST_SKIP() << "python3-html5lib is not installed";
    const std::vector<fs::path> pages(page_set.begin(), page_set.end());
    const std::vector<nlohmann::json> readings = Html5libReadings(pages);
    ASSERT_EQ(readings.size(), pages.size()) << "html5lib read every page";
    auto scan = MakeHtmlParser("scan", HtmlParserOptions{.extract_text = false});
    auto gumbo = MakeHtmlParser("gumbo", HtmlParserOptions{.extract_text = false});
    auto* scanner = static_cast<ScanHtmlParser*>(scan.get());
    size_t links = 0;
    size_t disagreements = 0;
    for (size_t i = 0; i < pages.size(); ++i) {
      ASSERT_EQ(readings[i].at("path"), pages[i].string());
      const std::string html = testing::ReadFile(pages[i].string());
      const nlohmann::json expected = OracleFields(readings[i]);
      const nlohmann::json by_scan = Comparable(scan->Parse(html));
      const nlohmann::json by_gumbo = Comparable(gumbo->Parse(html));
      links += expected.at("links").size();
      if (by_scan != expected || by_gumbo != expected) {
        ++disagreements;
        if (disagreements <= 3) {
          ADD_FAILURE() << pages[i] << "\nhtml5lib: " << expected.dump() << "\nscan:     " << by_scan.dump()
                        << "\ngumbo:    " << by_gumbo.dump();
        }
      }
    }
    EXPECT_EQ(disagreements, 0u) << "pages where scan or gumbo differ from html5lib";
    EXPECT_GT(links, pages.size() * 5) << "the corpus has links to compare";
    const uint64_t without_tree = scanner->scanned_pages();
    EXPECT_GT(without_tree, pages.size() / 2) << "most documentation pages need no tree";
    std::printf("%s: %zu pages, %zu links, %llu read without a tree (%.1f%% to MyHTML)\n", package, pages.size(),
                links, static_cast<unsigned long long>(without_tree),
                100.0 * static_cast<double>(pages.size() - without_tree) / static_cast<double>(pages.size()));
    RecordProperty("pages", static_cast<int>(pages.size()));
    RecordProperty("links", static_cast<int>(links));
    RecordProperty("read_without_tree", static_cast<int>(without_tree));
  }
};

TEST_F(Html5libAgreementTest, PythonDocumentation) {
  ExpectAgreement(corpus::PythonDocumentationPages(), "python3-doc");
}

TEST_F(Html5libAgreementTest, PostgresDocumentation) {
  ExpectAgreement(corpus::PostgresDocumentationPages(), "postgresql-doc-15");
}

}  // namespace
}  // namespace zcrawl::fetcher
