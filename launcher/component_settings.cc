#include "launcher/component_settings.h"

#include "common/cli_config.h"

namespace zcrawl::launcher {

const std::set<std::string>& SharedSettingNames() {
  static const std::set<std::string> kShared = {"--log-level",      "--log-json",
                                                "--heartbeat-ms",   "--liveness",
                                                "--reconnect-min-ms", "--reconnect-max-ms",
                                                "--min-free-mb"};
  return kShared;
}

// A budget of one process's resources names its process on the launcher,
// even when no other component has the setting: "--frontier-memory-mb".
const std::set<std::string>& ProcessBudgetNames() {
  static const std::set<std::string> kBudgets = {"--memory-mb"};
  return kBudgets;
}

std::vector<std::string> ForwardedSettings::ArgsFor(const std::string& component) const {
  std::vector<std::string> args;
  for (const Entry& e : entries_) {
    if (e.component != component || e.route != SettingRoute::kForward || e.option == nullptr ||
        e.option->count() == 0) {
      continue;
    }
    if (e.flag) {
      if (FlagInEffect(*e.option)) args.push_back(e.name);
      continue;
    }
    // "--name=value": a value that starts with '-' stays a value.
    for (const std::string& value : e.option->results()) args.push_back(e.name + "=" + value);
  }
  return args;
}

bool ForwardedSettings::Given(const std::string& component, const std::string& name) const {
  for (const Entry& e : entries_) {
    if (e.component == component && e.name == name) return e.option && e.option->count() > 0;
  }
  return false;
}

ComponentSettings::ComponentSettings(CLI::App& app, std::string component, std::string group,
                                     std::map<std::string, SettingRoute> routes,
                                     ForwardedSettings& forwarded)
    : SettingsDeclarer(app),
      component_(std::move(component)),
      group_(std::move(group)),
      routes_(std::move(routes)),
      forwarded_(forwarded) {}

SettingRoute ComponentSettings::RouteOf(const std::string& name) const {
  // Positionals (the frontier's seeds) are the launcher's own.
  if (name.rfind("--", 0) != 0) return SettingRoute::kWithheld;
  const auto it = routes_.find(name);
  return it == routes_.end() ? SettingRoute::kForward : it->second;
}

std::string ComponentSettings::NameFor(const std::string& name) {
  if (RouteOf(name) == SettingRoute::kWithheld) return "";
  if (SharedSettingNames().count(name)) return name;  // joins an earlier one
  if (ProcessBudgetNames().count(name) || app().get_option_no_throw(name) != nullptr) {
    return "--" + component_ + "-" + name.substr(2);
  }
  return name;
}

void ComponentSettings::Declared(const std::string& name, CLI::Option* option, bool flag) {
  const SettingRoute route = RouteOf(name);
  if (route == SettingRoute::kWithheld) return;
  if (option != nullptr && option->get_group() == "Options") {
    option->group(SharedSettingNames().count(name) ? "Every component" : group_);
  }
  forwarded_.Add({component_, name, option, flag, route});
}

}  // namespace zcrawl::launcher
