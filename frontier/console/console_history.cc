#include "frontier/console/console_history.h"

#include "common/json_writer.h"

namespace zcrawl::frontier {

std::string ConsoleHistory::Json() const {
  JsonWriter json;
  json.BeginArray();
  for (const ConsoleSample& s : samples_) {
    json.BeginObject()
        .Key("t").Int(s.wall_ms)
        .Key("done").Uint(s.done)
        .Key("failed").Uint(s.failed)
        .Key("admitted").Uint(s.admitted)
        .Key("bytes").Uint(s.bytes)
        .EndObject();
  }
  json.EndArray();
  return json.Take();
}

}  // namespace zcrawl::frontier
