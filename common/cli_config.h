// Config files for every zcrawl command: `--config FILE` (TOML, keys spelled
// like the flags: `delay-ms = 250`, lists as arrays) and `--print-config`.
// Flags given on the command line override the file. An unknown key or a bad
// value is a start-up error naming the key. Header-only over CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/settings_markdown.h"

namespace zcrawl {

// What the config flags asked for.
struct ConfigRequests {
  bool print_config = false;
  bool print_settings_markdown = false;  // hidden: docs/make_config_md.sh
};

// Adds --config, --print-config and the hidden --print-settings-markdown.
inline void AddConfigFlags(CLI::App& app, ConfigRequests* requests) {
  app.set_config("--config", "", "TOML file whose keys are these flags (flags override it)");
  app.allow_config_extras(false);
  app.add_flag("--print-config", requests->print_config, "Print the effective settings as TOML and exit")
      ->configurable(false);
  app.add_flag("--print-settings-markdown", requests->print_settings_markdown,
               "Print every setting as a Markdown table (docs/CONFIG.md) and exit")
      ->configurable(false)->group("");
}

// Whether a flag is negated ("!--no-robots": CLI11 records "false" when it is given).
inline bool IsNegatedFlag(const CLI::Option& option) {
  return option.get_expected_min() == 0 &&
         option.get_flag_value(option.get_single_name(), "") == "false";
}

// Whether a flag is in effect after parsing: given for "--sitemaps", given
// (so its variable cleared) for a negated "!--no-robots".
inline bool FlagInEffect(const CLI::Option& option) {
  const std::vector<std::string> results = option.reduced_results();
  if (results.empty()) return false;
  return IsNegatedFlag(option) ? results.front() == "false" : results.front() != "false";
}

// The effective settings as TOML that --config reads back to the same
// settings. CLI11 (2.1) writes a negated flag ("!--no-robots") with the
// value it gave its variable: `no-robots=false` after --no-robots, which
// reads back as the opposite, so --no-robots would be lost on the way
// through a file. Those lines say whether the flag is in effect instead.
inline std::string ConfigText(const CLI::App& app) {
  std::map<std::string, std::string> negated;  // key -> "true" when in effect
  for (const CLI::Option* opt : app.get_options()) {
    if (!opt->get_configurable() || opt->get_expected_min() != 0) continue;  // flags only
    const std::string name = opt->get_single_name();
    if (name.empty() || !IsNegatedFlag(*opt)) continue;
    negated[name] = FlagInEffect(*opt) ? "true" : "false";
  }
  std::istringstream lines(app.config_to_str(/*default_also=*/true, /*write_description=*/false));
  std::string text;
  for (std::string line; std::getline(lines, line);) {
    const auto it = negated.find(line.substr(0, line.find('=')));
    if (it != negated.end()) line = it->first + "=" + it->second;
    text += line + "\n";
  }
  return text;
}

// Prints the effective settings or the settings table; true if the caller
// should exit.
inline bool MaybePrintConfig(const CLI::App& app, const ConfigRequests& requests) {
  if (requests.print_settings_markdown) {
    std::cout << SettingsMarkdown(app);
    return true;
  }
  if (!requests.print_config) return false;
  std::cout << ConfigText(app);
  return true;
}

// Reports a flag or config error in one line ("crawl: config: unknown key
// 'delay-mss'") and returns the exit code; --help goes through CLI11.
inline int ExitWithParseError(const CLI::App& app, const CLI::ParseError& e, const char* process,
                              std::ostream& err = std::cerr) {
  if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
  std::string message = e.what();
  constexpr std::string_view kExtra = "INI was not able to parse ";
  if (message.rfind(kExtra, 0) == 0) {
    message = "config: unknown key '" + message.substr(kExtra.size()) + "'";
  }
  err << process << ": " << message << " (see --help)\n";
  return e.get_exit_code();
}

// Runs `parse` (the caller's app.parse(...)) and turns every way CLI11 can
// refuse input into ExitWithParseError's one line and exit code; nullopt
// when it parsed. Beside its ParseError, CLI11 lets std::out_of_range and
// std::invalid_argument escape from the number a flag's value is read as
// ("no-robots = 0000...5000..." in a config file, found by ./run fuzz
// config): those are bad settings too, reported as such (exit 2), never a
// "fatal" from main's last resort.
// `err`: where the line goes.
template <typename Parse>
std::optional<int> ParseSettings(const CLI::App& app, const char* process, Parse&& parse,
                                 std::ostream& err = std::cerr) {
  try {
    parse();
  } catch (const CLI::ParseError& e) {
    return ExitWithParseError(app, e, process, err);
  } catch (const std::out_of_range&) {
    err << process << ": a flag's value is not a number in range (see --help)\n";
    return 2;
  } catch (const std::invalid_argument&) {
    err << process << ": a flag's value is not a number (see --help)\n";
    return 2;
  }
  return std::nullopt;
}

}  // namespace zcrawl
