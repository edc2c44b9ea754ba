// The Encoding Standard's table of labels (every name a page or a header
// may give an encoding, mapped to the encoding's canonical name), and the
// glibc iconv converter that decodes each encoding. Data, split from
// charset.cc, which holds the detection and the decoders. Thread-safe (the
// map is built once, on first use).
#pragma once

#include <string_view>
#include <unordered_map>

namespace zcrawl::fetcher {

// Lower-cased, trimmed label -> canonical name ("latin1" -> "windows-1252").
const std::unordered_map<std::string_view, std::string_view>& LabelMap();

// The glibc iconv name that decodes the canonical encoding `name` the way
// the Encoding Standard does (or the closest glibc has), "" if none.
std::string_view IconvName(std::string_view name);

}  // namespace zcrawl::fetcher
