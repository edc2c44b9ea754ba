#include "writer/jsonl_keys.h"


#include <fstream>
#include <nlohmann/json.hpp>

namespace zcrawl::writer {

Status ForEachJsonlKey(const std::string& path, const std::function<void(const std::string&)>& visit) {
  std::ifstream in(path);
  if (!in) return Status::Ok();
  std::string line;
  while (std::getline(in, line)) {
    auto json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object()) continue;
    auto it = json.find("key");  // present when it is not the URL
    if (it == json.end()) it = json.find("url");
    if (it != json.end() && it->is_string()) visit(it->get<std::string>());
  }
  return Status::Ok();
}

}  // namespace zcrawl::writer
