#include "common/json_writer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace zcrawl {
namespace {

TEST(JsonWriterTest, BuildsNestedObjectsThatParseBack) {
  JsonWriter json;
  json.BeginObject()
      .Key("url").String("http://a/\"q\"\\")
      .Key("n").Int(-5)
      .Key("ok").Bool(true)
      .Key("none").Null()
      .Key("list").BeginArray().String("x").Uint(7).EndArray()
      .EndObject();
  auto parsed = nlohmann::json::parse(json.str());
  EXPECT_EQ(parsed["url"], "http://a/\"q\"\\");
  EXPECT_EQ(parsed["n"], -5);
  EXPECT_EQ(parsed["ok"], true);
  EXPECT_TRUE(parsed["none"].is_null());
  EXPECT_EQ(parsed["list"][1], 7);
}

TEST(JsonWriterTest, EscapesControlCharactersAndKeepsUtf8) {
  std::string out;
  AppendJsonString(out, std::string("a\nb\x01\t\xC3\xA4", 7));
  EXPECT_EQ(out, "\"a\\nb\\u0001\\t\xC3\xA4\"");
}

TEST(JsonWriterTest, ReplacesInvalidUtf8SoOutputIsAlwaysValidJson) {
  std::string out;
  AppendJsonString(out, std::string("x\xFF\xC3(y\xED\xA0\x80", 8));
  auto parsed = nlohmann::json::parse(out);  // throws on invalid UTF-8
  EXPECT_EQ(parsed.get<std::string>(), "x\xEF\xBF\xBD\xEF\xBF\xBD(y\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

}  // namespace
}  // namespace zcrawl
