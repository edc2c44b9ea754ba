// ComponentSettings: the frontier's, fetchers' and writer's own setting
// definitions (frontier/frontier_settings.h and the like), declared on
// `./run crawl`'s command line so that every component setting is reachable
// from it and its TOML config with no second copy of a name, default, range
// or help. What the user gives is forwarded to the component's processes
// exactly as given (the child parses it with the same definition).
//
// Naming on the launcher, in declaration order (frontier, fetcher, writer):
//  - a setting keeps its name ("--delay-ms", "--user-agent");
//  - log-level, log-json, heartbeat-ms and liveness are shared: one flag
//    for every component that has the setting;
//  - any other name a component declared before is prefixed with the later
//    component ("--metrics-port" is the frontier's, "--writer-metrics-port"
//    the writer's);
//  - a budget of one process's resources is always prefixed with its
//    component ("--frontier-memory-mb");
//  - endpoints, state paths and security keys are the launcher's business
//    (everything runs on 127.0.0.1): withheld, or declared but "managed",
//    i.e. read by the launcher and passed on by it (the writer's --out).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/settings_declarer.h"

namespace zcrawl::launcher {

enum class SettingRoute {
  kForward,   // declared on the launcher, passed to the component when given
  kManaged,   // declared on the launcher, passed on by the launcher itself
  kWithheld,  // not on the launcher: it sets this itself, or it does not apply
};

// Every component setting declared on the launcher, and what the user gave.
class ForwardedSettings {
 public:
  struct Entry {
    std::string component;  // "frontier", "fetcher", "writer"
    std::string name;       // the component's own name: "--metrics-port"
    CLI::Option* option;    // the launcher's option standing for it
    bool flag;
    SettingRoute route;
  };

  void Add(Entry entry) { entries_.push_back(std::move(entry)); }

  // The arguments that pass what the user gave (on the command line or in
  // --config) for `component`'s forwarded settings, as "--name=value".
  std::vector<std::string> ArgsFor(const std::string& component) const;

  // Whether the user gave `component`'s setting `name`.
  bool Given(const std::string& component, const std::string& name) const;

  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

class ComponentSettings : public SettingsDeclarer {
 public:
  // Declares on `app`, in option group `group`; records into `forwarded`.
  ComponentSettings(CLI::App& app, std::string component, std::string group,
                    std::map<std::string, SettingRoute> routes, ForwardedSettings& forwarded);

 protected:
  std::string NameFor(const std::string& name) override;
  void Declared(const std::string& name, CLI::Option* option, bool flag) override;

 private:
  SettingRoute RouteOf(const std::string& name) const;

  std::string component_;
  std::string group_;
  std::map<std::string, SettingRoute> routes_;
  ForwardedSettings& forwarded_;
};

// The settings every component that has them shares on the launcher.
const std::set<std::string>& SharedSettingNames();

}  // namespace zcrawl::launcher
