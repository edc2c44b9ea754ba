// SettingsDeclarer: where a component declares each of its settings, once:
// name, default (the options struct's value), range and help. A process
// declares them onto its own command line; the launcher (`./run crawl`)
// declares the same definitions onto its command line through a subclass
// that renames, shares or withholds some of them (launcher/component_settings.h)
// and forwards what the user gave to the component's process. docs/CONFIG.md
// is generated from these definitions (SettingsMarkdown below).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace zcrawl {

class SettingsDeclarer {
 public:
  explicit SettingsDeclarer(CLI::App& app) : app_(app) {}
  virtual ~SettingsDeclarer() = default;
  SettingsDeclarer(const SettingsDeclarer&) = delete;
  SettingsDeclarer& operator=(const SettingsDeclarer&) = delete;

  // A setting with a value ("--delay-ms"), or a positional ("seeds").
  template <typename T>
  CLI::Option* Option(const std::string& name, T& value, const std::string& help) {
    const std::string as = NameFor(name);
    if (as.empty() || app_.get_option_no_throw(as) != nullptr) {
      // Withheld, or the same setting another component already declared:
      // parsed nowhere, but the caller may still chain ->check() on it.
      Declared(name, app_.get_option_no_throw(as), /*flag=*/false);
      return withheld_.add_option(name, value, help);
    }
    CLI::Option* option = app_.add_option(as, value, help);
    Declared(name, option, /*flag=*/false);
    return option;
  }

  // A setting that is one of a few names, held as an enum so that the
  // names are parsed here once and the code compares values, not strings:
  // `names` maps each name to its value; the default and the allowed
  // values are shown by name (--help, docs/CONFIG.md). The option keeps the
  // name as given (the launcher forwards it to the component as typed);
  // only `value` holds the enum.
  template <typename E>
  CLI::Option* Choice(const std::string& name, E& value, const std::vector<std::pair<std::string, E>>& names,
                      const std::string& help) {
    const std::string as = NameFor(name);
    CLI::Option* option = nullptr;
    if (as.empty() || app_.get_option_no_throw(as) != nullptr) {
      Declared(name, app_.get_option_no_throw(as), /*flag=*/false);
      option = withheld_.add_option(name, help);
    } else {
      option = app_.add_option(as, help);
      Declared(name, option, /*flag=*/false);
    }
    std::string listed;
    for (const auto& [text, choice] : names) {
      listed += (listed.empty() ? "" : ",") + text;
      if (choice == value) option->default_str(text);
    }
    std::map<std::string, E> by_name(names.begin(), names.end());
    // Only the names are accepted (not the enum's numbers), and the error
    // lists them.
    option->check(CLI::Validator(
        [by_name, listed](std::string& input) -> std::string {
          return by_name.contains(input) ? std::string() : "'" + input + "' is not one of " + listed;
        },
        "{" + listed + "}"));
    option->each([&value, by_name](const std::string& input) { value = by_name.at(input); });
    option->type_name("TEXT");
    return option;
  }
  // A flag: "--sitemaps" sets `value` to true, "!--no-robots" to false.
  CLI::Option* Flag(const std::string& spelled, bool& value, const std::string& help) {
    const bool negated = !spelled.empty() && spelled[0] == '!';
    const std::string name = negated ? spelled.substr(1) : spelled;
    const std::string as = NameFor(name);
    if (as.empty() || app_.get_option_no_throw(as) != nullptr) {
      Declared(name, app_.get_option_no_throw(as), /*flag=*/true);
      return withheld_.add_flag(spelled, value, help);
    }
    CLI::Option* option = app_.add_flag((negated ? "!" : "") + as, value, help);
    Declared(name, option, /*flag=*/true);
    return option;
  }

  CLI::App& app() { return app_; }

 protected:
  // The name this setting gets here; empty: not declared here at all.
  virtual std::string NameFor(const std::string& name) { return name; }
  // Called for every setting with the option that now stands for it here
  // (nullptr when withheld): the launcher records what to forward.
  virtual void Declared(const std::string& name, CLI::Option* option, bool flag) {}

 private:
  CLI::App& app_;
  CLI::App withheld_{"withheld settings"};
};

}  // namespace zcrawl
