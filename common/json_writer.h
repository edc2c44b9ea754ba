// JsonWriter: builds one JSON object or array as a string, fast and without a
// DOM, for JSON lines output (index.jsonl, the jsonl sink, exec sinks).
//
// Strings are escaped per RFC 8259; invalid UTF-8 is replaced by U+FFFD so the
// output is always valid JSON. Not thread-safe; one writer per line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zcrawl {

// Appends `s` as a quoted JSON string to `out`.
void AppendJsonString(std::string& out, std::string_view s);

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  // Object member name; the value call must follow.
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Uint(uint64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();
  // Inserts already-encoded JSON as a value.
  JsonWriter& Raw(std::string_view json);

  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void Separate();

  std::string out_;
  bool need_comma_ = false;
};

}  // namespace zcrawl
