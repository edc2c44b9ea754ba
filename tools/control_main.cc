// zcrawl-control: `./run control [OUT] VERB [ARGS] [--note TEXT]` steers a
// running crawl: the crawl writing to OUT (default crawl-out; found as
// `./run status` finds it), or the frontier at --frontier. The verbs are
// zcrawl.proto's Control (docs/PROTOCOL.md 3.4; docs/OPERATING.md shows
// them at work):
//   pause | resume                 no new leases; what is in flight finishes
//   add-seeds URL... | --file F    admit URLs now (--widen: their hosts too)
//   block | unblock TARGET         TARGET: https://host[:port], example.com
//                                  (with subdomains) or re:PATTERN
//   blocks                         the blocks and overrides in force
//   politeness TARGET --delay-ms N --per-host N | --clear
//   threads N                      every fetcher's pool size
//   drain                          admit no new URLs; end when done
//   stop                           end cleanly, as Ctrl-C (resumable)
// Every control is kept in the crawl's state before it is answered.
// Prints what changed; exit 0 when the frontier applied it (add-seeds: also
// in part, the refused lines printed), 1 when no crawl runs there or it
// refused, 2 for a bad command line. Single-threaded.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/cli_config.h"
#include "common/crawl_beacon.h"
#include "common/settings_declarer.h"
#include "frontier/control/control_target.h"
#include "tools/frontier_client.h"

namespace zcrawl {
namespace {

const std::set<std::string> kVerbs = {"pause",      "resume",  "add-seeds", "block", "unblock", "blocks",
                                      "politeness", "threads", "drain",     "stop"};
// URLs per add-seeds request: a list of millions goes in parts.
constexpr size_t kSeedsPerRequest = 10000;

struct ControlArgs {
  std::vector<std::string> words;
  std::string note;
  std::string seeds_file;
  bool widen = false;
  std::optional<uint32_t> delay_ms;  // set when given
  std::optional<uint32_t> per_host;
  bool clear = false;
};

// The lines of a seeds file with their numbers ('#' comments and blank
// lines skipped; the frontier judges the rest).
Status ReadSeedLines(const std::string& path, v1::AddSeeds* seeds) {
  std::ifstream in(path);
  if (!in) return InvalidArgumentError("cannot read " + path);
  std::string line;
  for (uint32_t number = 1; std::getline(in, line); ++number) {
    const size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    const size_t end = line.find_last_not_of(" \t\r");
    seeds->add_urls(line.substr(start, end - start + 1));
    seeds->add_line_numbers(number);
  }
  return Status::Ok();
}

// The requests `verb` with `args` makes (several for a long seed list), or
// a usage error.
Result<std::vector<v1::Control>> BuildControls(const std::string& verb, const std::vector<std::string>& args,
                                               const ControlArgs& a) {
  v1::Control control;
  control.set_note(a.note);
  auto target_arg = [&]() -> Result<v1::Target> {
    if (args.size() != 1) return InvalidArgumentError(verb + " takes one target: https://host, example.com or re:PATTERN");
    return frontier::ParseTarget(args[0]);
  };
  auto no_args = [&]() -> Status {
    return args.empty() ? Status::Ok() : InvalidArgumentError(verb + " takes no arguments");
  };
  if (verb == "pause" || verb == "resume" || verb == "blocks" || verb == "drain" || verb == "stop") {
    if (Status s = no_args(); !s.ok()) return s;
    if (verb == "pause") control.mutable_pause();
    if (verb == "resume") control.mutable_resume();
    if (verb == "blocks") control.mutable_list_blocks();
    if (verb == "drain") control.mutable_drain();
    if (verb == "stop") control.mutable_stop();
  } else if (verb == "block" || verb == "unblock") {
    auto target = target_arg();
    if (!target.ok()) return target.status();
    *(verb == "block" ? control.mutable_block()->mutable_target() : control.mutable_unblock()->mutable_target()) =
        *target;
  } else if (verb == "politeness") {
    auto target = target_arg();
    if (!target.ok()) return target.status();
    auto* p = control.mutable_politeness();
    *p->mutable_target() = *target;
    if (a.clear) {
      p->set_clear(true);
    } else if (!a.delay_ms && !a.per_host) {
      return InvalidArgumentError("politeness needs --delay-ms N, --per-host N, or --clear");
    }
    if (a.delay_ms) p->set_delay_ms(*a.delay_ms);
    if (a.per_host) p->set_per_host(*a.per_host);
  } else if (verb == "threads") {
    if (args.size() != 1 || args[0].find_first_not_of("0123456789") != std::string::npos || args[0].size() > 6) {
      return InvalidArgumentError("threads takes one number");
    }
    control.mutable_threads()->set_threads(static_cast<uint32_t>(std::stoul(args[0])));
  } else if (verb == "add-seeds") {
    v1::AddSeeds all;
    for (const auto& url : args) all.add_urls(url);
    if (!a.seeds_file.empty()) {
      if (Status s = ReadSeedLines(a.seeds_file, &all); !s.ok()) return s;
    }
    if (all.urls().empty()) return InvalidArgumentError("add-seeds needs URLs or --file F");
    std::vector<v1::Control> parts;
    for (int start = 0; start < all.urls_size(); start += static_cast<int>(kSeedsPerRequest)) {
      v1::Control part = control;
      auto* seeds = part.mutable_add_seeds();
      seeds->set_widen(a.widen);
      const int end = std::min(all.urls_size(), start + static_cast<int>(kSeedsPerRequest));
      for (int i = start; i < end; ++i) {
        seeds->add_urls(all.urls(i));
        // Numbers name file lines; URLs given as arguments are #1, #2, ...
        seeds->add_line_numbers(i < static_cast<int>(args.size()) ? static_cast<uint32_t>(i + 1)
                                                                   : all.line_numbers(i - static_cast<int>(args.size())));
      }
      parts.push_back(std::move(part));
    }
    return parts;
  } else {
    return InvalidArgumentError("unknown verb \"" + verb + "\"");
  }
  return std::vector<v1::Control>{control};
}

void PrintRules(const v1::StatusReply& reply) {
  if (reply.blocks().empty() && reply.overrides().empty()) {
    std::cout << "no blocks, no politeness overrides\n";
    return;
  }
  for (const auto& rule : reply.blocks()) {
    std::cout << "block      " << frontier::DescribeTarget(rule.target()) << "  since " << FormatUtc(static_cast<int64_t>(rule.since_ms()))
              << "  blocked " << rule.blocked_urls() << " URLs" << (rule.note().empty() ? "" : "  note: " + rule.note())
              << "\n";
  }
  for (const auto& rule : reply.overrides()) {
    std::cout << "politeness " << frontier::DescribeTarget(rule.target());
    if (rule.has_delay_ms()) std::cout << "  delay " << rule.delay_ms() << " ms";
    if (rule.has_per_host()) std::cout << "  " << rule.per_host() << " at once";
    std::cout << "  since " << FormatUtc(static_cast<int64_t>(rule.since_ms()))
              << (rule.note().empty() ? "" : "  note: " + rule.note()) << "\n";
  }
}

int Main(int argc, char** argv) {
  ControlArgs a;
  FrontierAddress address;
  CLI::App app{"zcrawl control: steer a running crawl"};
  app.add_option("words", a.words,
                 "[OUT] VERB [ARGS]: the crawl's output folder (default crawl-out), then pause, resume, add-seeds, "
                 "block, unblock, blocks, politeness, threads, drain or stop")
      ->required();
  app.add_option("--note", a.note, "Why (kept with the control and in the crawl's control.log)");
  app.add_option("--file", a.seeds_file, "add-seeds: a file of URLs, one a line ('#' comments)");
  app.add_flag("--widen", a.widen, "add-seeds: add the URLs' hosts to the crawl's scope");
  uint32_t delay_ms = 0;
  uint32_t per_host = 0;
  auto* delay_option = app.add_option("--delay-ms", delay_ms, "politeness: gap between request starts")
                           ->check(CLI::Range(0, 86400000));
  auto* per_host_option =
      app.add_option("--per-host", per_host, "politeness: requests in flight per origin")->check(CLI::Range(1, 1024));
  app.add_flag("--clear", a.clear, "politeness: remove the override");
  app.add_option("--frontier", address.endpoint, "Frontier endpoint (default: the crawl writing to OUT)");
  app.add_option("--timeout-ms", address.timeout_ms, "Give up (exit 1) without a reply after this")
      ->capture_default_str()->check(CLI::Range(1, 3600000));
  SettingsDeclarer declarer(app);
  AddSecurityFlags(declarer, address.security, /*server=*/false, /*frontier_client=*/true, false);
  if (auto exit = ParseSettings(app, "control", [&] { app.parse(argc, argv); })) return *exit;

  if (delay_option->count() > 0) a.delay_ms = delay_ms;
  if (per_host_option->count() > 0) a.per_host = per_host;
  const bool out_given = !kVerbs.count(a.words[0]);
  const std::string out = out_given ? a.words[0] : "crawl-out";
  if (out_given && a.words.size() < 2) {
    std::cerr << "zcrawl-control: no verb after " << out << "\n";
    return 2;
  }
  const std::string verb = a.words[out_given ? 1 : 0];
  const std::vector<std::string> args(a.words.begin() + (out_given ? 2 : 1), a.words.end());
  auto controls = BuildControls(verb, args, a);
  if (!controls.ok()) {
    std::cerr << "zcrawl-control: " << controls.status().message() << "\n";
    return 2;
  }
  if (Status s = ResolveFrontier(out, out_given, &address.endpoint); !s.ok()) {
    std::cerr << "zcrawl-control: " << s.message() << "\n";
    return 1;
  }
  int code = 0;
  for (const auto& control : *controls) {
    v1::StatusRequest request;
    *request.mutable_control() = control;
    auto reply = AskFrontier(address, request);
    if (!reply.ok()) {
      std::cerr << "zcrawl-control: " << reply.status().message() << "\n";
      return 1;
    }
    if (reply->control_result().empty()) {
      std::cerr << "zcrawl-control: the frontier at " << address.endpoint
                << " answered without applying it (an older build?)\n";
      return 1;
    }
    std::cout << verb << ": " << reply->control_result() << "\n";
    if (verb == "blocks") PrintRules(*reply);
    if (reply->control_result().starts_with("refused")) code = 1;
  }
  return code;
}

}  // namespace
}  // namespace zcrawl

int main(int argc, char** argv) {
  try {
    return zcrawl::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zcrawl-control: fatal: %s\n", e.what());
    return 1;
  }
}
