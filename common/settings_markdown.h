// SettingsMarkdown: the settings of a command line as Markdown tables, one
// per option group, for docs/CONFIG.md (docs/make_config_md.sh runs every
// program with --print-settings-markdown). Header-only over CLI11.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace zcrawl {

namespace settings_markdown_internal {

// Pipes would end a table cell.
inline std::string Cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

// "UINT:UINT in [1 - 4096]" -> "1 - 4096"; "TEXT:{multi,blocking}" -> "multi, blocking".
inline std::string Values(const CLI::Option& option) {
  std::string type = option.get_type_name();
  const size_t colon = type.find(':');
  if (colon == std::string::npos) return type == "TEXT" ? "text" : type;
  std::string rule = type.substr(colon + 1);
  if (rule.rfind("INT in [", 0) == 0 || rule.rfind("UINT in [", 0) == 0 ||
      rule.rfind("FLOAT in [", 0) == 0) {
    rule = rule.substr(rule.find('[') + 1);
    if (!rule.empty() && rule.back() == ']') rule.pop_back();
    return rule;
  }
  if (rule.size() > 2 && rule.front() == '{' && rule.back() == '}') {
    rule = rule.substr(1, rule.size() - 2);
    std::string out;
    for (char c : rule) out += c == ',' ? std::string(", ") : std::string(1, c);
    return out;
  }
  return rule;
}

}  // namespace settings_markdown_internal

inline std::string SettingsMarkdown(const CLI::App& app) {
  using namespace settings_markdown_internal;
  std::vector<std::string> groups;
  for (const CLI::Option* opt : app.get_options()) {
    const std::string& group = opt->get_group();
    if (group.empty()) continue;  // hidden
    bool known = false;
    for (const auto& g : groups) known = known || g == group;
    if (!known) groups.push_back(group);
  }
  std::string text;
  for (const auto& group : groups) {
    if (groups.size() > 1) text += "\n#### " + group + "\n\n";
    text += "| flag | default | values | meaning |\n|---|---|---|---|\n";
    for (const CLI::Option* opt : app.get_options()) {
      if (opt->get_group() != group || opt->get_single_name() == "help") continue;
      const bool positional = opt->get_lnames().empty() && opt->get_snames().empty();
      const bool flag = !positional && opt->get_expected_min() == 0;
      std::string name = positional ? opt->get_name() : "`--" + opt->get_single_name() + "`";
      if (positional) name = "`" + name + "` (positional)";
      std::string default_value = opt->get_default_str();
      if (flag) default_value = "off";
      if (default_value.empty()) default_value = " ";
      std::string values = flag ? "flag" : Values(*opt);
      if (!flag && opt->get_expected_max() > 1) values += ", repeatable";
      text += "| " + name + " | " + Cell(default_value == " " ? " " : "`" + default_value + "`") +
              " | " + Cell(values) + " | " + Cell(opt->get_description()) + " |\n";
    }
  }
  return text;
}

}  // namespace zcrawl
