// ConfigText: what --print-config writes loads back through --config to the
// same settings, negated flags ("!--no-robots") included, given or not.
#include "common/cli_config.h"
#include "common/settings_declarer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace zcrawl {
namespace {

struct Settings {
  bool obey_robots = true;  // !--no-robots
  bool verbose = false;     // --verbose
  int delay_ms = 100;
};

void AddFlags(CLI::App& app, Settings& s) {
  app.add_flag("!--no-robots", s.obey_robots, "Ignore robots.txt");
  app.add_flag("--verbose", s.verbose, "Say more");
  app.add_option("--delay-ms", s.delay_ms, "Delay")->capture_default_str();
}

// Parses `args`, prints the config, and loads that text into fresh settings.
std::pair<Settings, Settings> RoundTrip(std::vector<std::string> args, std::string* text) {
  Settings given;
  CLI::App app;
  AddFlags(app, given);
  std::reverse(args.begin(), args.end());  // CLI11 parses a vector from its back
  app.parse(args);
  *text = ConfigText(app);
  Settings loaded;
  CLI::App again;
  AddFlags(again, loaded);
  std::istringstream in(*text);
  again.parse_from_stream(in);
  return {given, loaded};
}

TEST(ConfigTextTest, PrintedSettingsLoadBackTheSame) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{}, {"--no-robots"}, {"--verbose", "--delay-ms", "7"},
        {"--no-robots", "--verbose"}}) {
    std::string text;
    auto [given, loaded] = RoundTrip(args, &text);
    EXPECT_EQ(loaded.obey_robots, given.obey_robots) << text;
    EXPECT_EQ(loaded.verbose, given.verbose) << text;
    EXPECT_EQ(loaded.delay_ms, given.delay_ms) << text;
  }
}

TEST(ConfigTextTest, ANegatedFlagReadsAsWhetherItIsInEffect) {
  std::string text;
  RoundTrip({"--no-robots"}, &text);
  EXPECT_NE(text.find("no-robots=true\n"), std::string::npos) << text;
  RoundTrip({}, &text);
  EXPECT_NE(text.find("no-robots=false\n"), std::string::npos) << text;
}

// Found by ./run fuzz config: CLI11 reads a flag's value as a number with
// std::stoll and lets std::out_of_range escape; before ParseSettings the
// processes died with "fatal: stoll". Now it is a bad setting: one line,
// exit 2, from a config file and from the command line alike.
TEST(ParseSettingsTest, AFlagValueOutOfRangeIsRefusedAsABadSetting) {
  const std::string file = ::testing::TempDir() + "/out_of_range.toml";
  {
    std::ofstream out(file);
    out << "no-robots = 0000000000000000000000000000000000500000000000000000000\n";
  }
  for (const std::vector<std::string>& args : {std::vector<std::string>{file, "--config"},
                                               std::vector<std::string>{"--no-robots=99999999999999999999999"}}) {
    Settings settings;
    CLI::App app;
    AddFlags(app, settings);
    ConfigRequests requests;
    AddConfigFlags(app, &requests);
    std::vector<std::string> reversed = args;
    ::testing::internal::CaptureStderr();
    const std::optional<int> exit = ParseSettings(app, "test", [&] { app.parse(reversed); });
    const std::string said = ::testing::internal::GetCapturedStderr();
    ASSERT_TRUE(exit.has_value()) << args.back();
    EXPECT_EQ(*exit, 2);
    EXPECT_NE(said.find("test: a flag's value is not a number in range"), std::string::npos) << said;
  }
  // A good command line parses.
  Settings settings;
  CLI::App app;
  AddFlags(app, settings);
  std::vector<std::string> args = {"--delay-ms=5"};
  EXPECT_FALSE(ParseSettings(app, "test", [&] { app.parse(args); }).has_value());
  EXPECT_EQ(settings.delay_ms, 5);
}

// A setting that is one of a few names (SettingsDeclarer::Choice): parsed
// once into an enum from its name, in a file or on the command line; any
// other word, the enum's numbers included, is refused with the names.
enum class Mode { kFast, kSafe };

TEST(ChoiceSettingTest, NamesParseIntoTheEnumAndNothingElseDoes) {
  for (const auto& [given, expected] : std::vector<std::pair<std::string, Mode>>{{"safe", Mode::kSafe},
                                                                                 {"fast", Mode::kFast}}) {
    Mode mode = Mode::kFast;
    CLI::App app;
    SettingsDeclarer d(app);
    d.Choice("--mode", mode, {{"fast", Mode::kFast}, {"safe", Mode::kSafe}}, "How");
    app.parse(std::vector<std::string>{given, "--mode"});
    EXPECT_EQ(mode, expected) << given;
    EXPECT_EQ(app.get_option("--mode")->get_default_str(), "fast");
  }
  for (const std::string bad : {"1", "Safe", "slow"}) {
    Mode mode = Mode::kFast;
    CLI::App app;
    SettingsDeclarer d(app);
    d.Choice("--mode", mode, {{"fast", Mode::kFast}, {"safe", Mode::kSafe}}, "How");
    try {
      app.parse(std::vector<std::string>{bad, "--mode"});
      ADD_FAILURE() << bad << " was accepted";
    } catch (const CLI::ValidationError& e) {
      EXPECT_NE(std::string(e.what()).find("is not one of fast,safe"), std::string::npos) << e.what();
    }
    EXPECT_EQ(mode, Mode::kFast);
  }
}

}  // namespace
}  // namespace zcrawl
