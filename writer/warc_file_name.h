// WARC file names the WarcSink writes, and the name a file gets when
// recovery sets it aside (warc_recovery.h).
//
//   PREFIX-YYYYmmddHHMMSS-NNNNN.warc.gz                  a file of the crawl
//   PREFIX-YYYYmmddHHMMSS-NNNNN.warc.gz.unacknowledged   set aside: no page in it
//                                                        was ever acknowledged
//
// The second ends in another suffix on purpose: no reader of `*.warc.gz`
// (warcio, a Hadoop job, wacz packing, replay) sees it, yet its serial still
// counts, so a serial is never handed out twice in one folder.
//
// Pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zcrawl::writer {

inline constexpr std::string_view kWarcFileSuffix = ".warc.gz";
inline constexpr std::string_view kUnacknowledgedSuffix = ".unacknowledged";

// "PREFIX-STAMP-NNNNN.warc.gz", `stamp` the creation time as
// "YYYYmmddHHMMSS", the serial zero-padded to at least five digits.
std::string WarcFileName(std::string_view prefix, std::string_view stamp, uint64_t serial);

// "PREFIX-YYYYmmddHHMMSS-NNNNN.warc.gz" -> NNNNN in *serial; false for any
// other name (an aside name included).
bool ParseWarcFileSerial(std::string_view name, std::string_view prefix, uint64_t& serial);

// The serial of a WARC file name or of its aside name.
bool ParseWarcOrAsideSerial(std::string_view name, std::string_view prefix, uint64_t& serial);

}  // namespace zcrawl::writer
