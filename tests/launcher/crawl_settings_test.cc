// `./run crawl`'s command line is made of the components' own setting
// definitions: every component setting is reachable, with the component's
// default, and what the user gives (flags or TOML) reaches the component's
// process as the same value, parsed there by the same definition.
#include "launcher/crawl_settings.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "common/cli_config.h"
#include "fetcher/fetcher_settings.h"
#include "frontier/frontier_settings.h"
#include "writer/writer_settings.h"

namespace zcrawl::launcher {
namespace {

// The launcher's command line, parsed from `args`.
struct Launcher {
  CLI::App app{"crawl"};
  CrawlOptions options;
  ForwardedSettings forwarded;
  ConfigRequests requests;

  explicit Launcher(std::vector<std::string> args) {
    DeclareCrawlSettings(app, options, forwarded);
    AddConfigFlags(app, &requests);
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    app.parse(args);
  }
};

// Parses `args` with a component's own command line into `options`.
template <typename Options, typename Declare>
void ParseAsComponent(const std::vector<std::string>& forwarded, Declare declare, Options& options) {
  CLI::App app{"component"};
  SettingsDeclarer declarer(app);
  declare(declarer, options);
  std::vector<std::string> args(forwarded.rbegin(), forwarded.rend());
  app.parse(args);
}

// Names of the settings a component declares on its own command line.
template <typename Options, typename Declare>
std::vector<const CLI::Option*> OwnSettings(CLI::App& app, Declare declare, Options& options) {
  SettingsDeclarer declarer(app);
  declare(declarer, options);
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_single_name() != "help" && !opt->get_lnames().empty()) out.push_back(opt);
  }
  return out;
}

bool Contains(const std::vector<std::string>& args, const std::string& arg) {
  return std::find(args.begin(), args.end(), arg) != args.end();
}

TEST(CrawlSettingsTest, WhatTheUserGivesReachesEachComponentAsTheSameValue) {
  Launcher l({"http://a.test/", "--delay-ms", "7", "--no-robots", "--user-agent", "bot/2 (+x)",
              "--metrics-port", "9100", "--writer-metrics-port", "9200", "--heartbeat-ms", "300",
              "--allow", "a.*", "--allow", "b.*", "--format", "warc", "--ca-file", "/dev/null",
              "--timeout-ms", "1234", "--max-body-bytes", "4096", "--robots-agent", "mybot",
              "--warc-gzip-level", "5", "--parser", "gumbo", "--log-level", "debug", "--scope", "web",
              "--io", "blocking"});
  const auto frontier_args = l.forwarded.ArgsFor("frontier");
  const auto fetcher_args = l.forwarded.ArgsFor("fetcher");
  const auto writer_args = l.forwarded.ArgsFor("writer");
  EXPECT_TRUE(Contains(frontier_args, "--delay-ms=7"));
  EXPECT_TRUE(Contains(frontier_args, "--no-robots"));
  EXPECT_TRUE(Contains(frontier_args, "--metrics-port=9100"));
  EXPECT_TRUE(Contains(writer_args, "--metrics-port=9200")) << "the writer's own name, not the launcher's";
  EXPECT_FALSE(Contains(fetcher_args, "--delay-ms=7")) << "only to the component that has it";

  frontier::FrontierOptions frontier;
  ParseAsComponent(frontier_args, frontier::DeclareFrontierSettings, frontier);
  EXPECT_EQ(frontier.politeness.delay_ms, 7);
  EXPECT_FALSE(frontier.politeness.obey_robots);
  EXPECT_EQ(frontier.metrics_port, 9100);
  EXPECT_EQ(frontier.link.heartbeat_ms, 300);
  EXPECT_EQ(frontier.politeness.robots_agent, "mybot");
  EXPECT_EQ(frontier.scope_rules.allow_patterns, (std::vector<std::string>{"a.*", "b.*"}));
  EXPECT_EQ(frontier.logging.level, "debug");
  // A choice travels by its name, as typed, and arrives as the enum.
  EXPECT_TRUE(Contains(frontier_args, "--scope=web"));
  EXPECT_EQ(frontier.scope, frontier::CrawlScope::kWeb);
  EXPECT_EQ(l.options.frontier.scope, frontier::CrawlScope::kWeb);

  fetcher::FetcherOptions fetcher;
  ParseAsComponent(fetcher_args, fetcher::DeclareFetcherSettings, fetcher);
  EXPECT_EQ(fetcher.http.user_agent, "bot/2 (+x)");
  EXPECT_EQ(fetcher.http.ca_file, "/dev/null");
  EXPECT_EQ(fetcher.http.total_timeout_ms, 1234);
  EXPECT_EQ(fetcher.http.max_body_bytes, 4096u);
  EXPECT_EQ(fetcher.link.heartbeat_ms, 300) << "shared settings reach every component";
  EXPECT_EQ(fetcher.parser, "gumbo");
  EXPECT_TRUE(Contains(fetcher_args, "--io=blocking"));
  EXPECT_EQ(fetcher.io, fetcher::FetchIo::kBlocking);
  EXPECT_EQ(fetcher.logging.level, "debug");

  writer::WriterOptions writer;
  ParseAsComponent(writer_args, writer::DeclareWriterSettings, writer);
  EXPECT_EQ(writer.metrics_port, 9200);
  EXPECT_EQ(writer.format, "warc");
  EXPECT_EQ(writer.sink.warc_gzip_level, 5);
  EXPECT_EQ(writer.link.heartbeat_ms, 300);
  // The launcher reads a few itself, from the same parse.
  EXPECT_EQ(l.options.writer.format, "warc");
  EXPECT_EQ(l.options.frontier.metrics_port, 9100);
}

TEST(CrawlSettingsTest, NothingGivenForwardsNothing) {
  Launcher l({"http://a.test/"});
  EXPECT_TRUE(l.forwarded.ArgsFor("frontier").empty());
  EXPECT_TRUE(l.forwarded.ArgsFor("fetcher").empty());
  EXPECT_TRUE(l.forwarded.ArgsFor("writer").empty());
  EXPECT_FALSE(l.forwarded.Given("frontier", "--delay-ms"));
  // The launcher's copies hold the components' own defaults.
  EXPECT_EQ(l.options.frontier.politeness.delay_ms, frontier::FrontierOptions{}.politeness.delay_ms);
  EXPECT_EQ(l.options.writer.sink.out_dir, writer::SinkOptions{}.out_dir);
}

TEST(CrawlSettingsTest, ATomlConfigIsForwardedLikeFlags) {
  const std::string path = ::testing::TempDir() + "/crawl_settings_test.toml";
  {
    std::ofstream out(path);
    out << "delay-ms = 11\nno-robots = true\nuser-agent = \"cfg/1\"\nallow = [\"x\", \"y\"]\n"
           "urls = [\"http://a.test/\"]\nseeds = \"list.txt\"\n";
  }
  Launcher l({"--config", path, "--delay-ms", "12"});  // a flag beats the file
  frontier::FrontierOptions frontier;
  ParseAsComponent(l.forwarded.ArgsFor("frontier"), frontier::DeclareFrontierSettings, frontier);
  EXPECT_EQ(frontier.politeness.delay_ms, 12);
  EXPECT_FALSE(frontier.politeness.obey_robots);
  EXPECT_EQ(frontier.scope_rules.allow_patterns, (std::vector<std::string>{"x", "y"}));
  fetcher::FetcherOptions fetcher;
  ParseAsComponent(l.forwarded.ArgsFor("fetcher"), fetcher::DeclareFetcherSettings, fetcher);
  EXPECT_EQ(fetcher.http.user_agent, "cfg/1");
  EXPECT_EQ(l.options.seeds, std::vector<std::string>{"http://a.test/"});
  EXPECT_EQ(l.options.frontier.seeds_file, "list.txt");
  // The seed file is the launcher's to read, not forwarded as given.
  for (const auto& arg : l.forwarded.ArgsFor("frontier")) EXPECT_NE(arg.rfind("--seeds", 0), 0u) << arg;
}

// Every setting of every component is on ./run crawl, with the component's
// help and default (one definition), except those the launcher withholds
// because it sets them itself (endpoints, state paths, keys).
TEST(CrawlSettingsTest, EveryComponentSettingIsReachableWithItsOwnDefault) {
  Launcher l({"http://a.test/"});
  // (--recrawl-list: the launcher's --recrawl FOLDER writes it.)
  const std::set<std::string> withheld = {"--bind", "--state", "--fresh", "--summary-file", "--stay",
                                          "--curve-key", "--curve-allow", "--insecure",
                                          "--frontier", "--writer", "--frontier-key", "--writer-key",
                                          "--recrawl-list"};
  const auto check = [&](const std::string& component, const std::vector<const CLI::Option*>& own) {
    for (const CLI::Option* opt : own) {
      const std::string name = "--" + opt->get_single_name();
      if (withheld.count(name)) continue;
      const ForwardedSettings::Entry* entry = nullptr;
      for (const auto& e : l.forwarded.entries()) {
        if (e.component == component && e.name == name) entry = &e;
      }
      ASSERT_NE(entry, nullptr) << component << " " << name << " is not on ./run crawl";
      ASSERT_NE(entry->option, nullptr) << name;
      // Two helps the launcher words for one machine: its log level default
      // and the writer's metrics port beside the frontier's.
      const bool reworded = name == "--log-level" || (component == "writer" && name == "--metrics-port");
      if (reworded) continue;
      EXPECT_EQ(entry->option->get_description(), opt->get_description()) << name;
      EXPECT_EQ(entry->option->get_default_str(), opt->get_default_str()) << name;
    }
  };
  CLI::App frontier_app, fetcher_app, writer_app;
  frontier::FrontierOptions frontier;
  fetcher::FetcherOptions fetcher;
  writer::WriterOptions writer;
  check("frontier", OwnSettings(frontier_app, frontier::DeclareFrontierSettings, frontier));
  check("fetcher", OwnSettings(fetcher_app, fetcher::DeclareFetcherSettings, fetcher));
  check("writer", OwnSettings(writer_app, writer::DeclareWriterSettings, writer));
  // The clash rule: the writer's metrics port is prefixed on the launcher.
  EXPECT_NE(l.app.get_option_no_throw("--writer-metrics-port"), nullptr);
  EXPECT_EQ(l.app.get_option_no_throw("--bind"), nullptr);
}

}  // namespace
}  // namespace zcrawl::launcher
