// InflateGzipMembers: reads a multi-member gzip buffer (what WARC files are)
// with zlib, independently of the compressors the writer uses, member by
// member; InflateRawDeflate reads a bare DEFLATE stream (what fetchers send
// in Page.warc_response and its siblings). Test support; records a gtest
// failure on corrupt input.
#pragma once

#include <string>
#include <vector>

namespace zcrawl::testing {

// The contents of each member, in order. Stops at the first member that
// does not inflate to its end (and fails the current test).
std::vector<std::string> InflateGzipMembers(const std::string& data);

// What one raw DEFLATE stream (no gzip wrapper) inflates to. Fails the
// current test unless the stream ends, final block included, exactly at the
// end of `data`.
std::string InflateRawDeflate(const std::string& data);

}  // namespace zcrawl::testing
