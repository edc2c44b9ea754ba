#include "tests/support/gzip_members.h"

#include <gtest/gtest.h>
#include <zlib.h>

namespace zcrawl::testing {

namespace {

// Inflates from data[pos] with zlib's `window_bits` until the stream ends;
// returns the bytes and sets *used to what it consumed.
std::string InflateOne(const std::string& data, size_t pos, int window_bits, size_t* used, int* rc_out) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, window_bits), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + pos));
  z.avail_in = static_cast<uInt>(data.size() - pos);
  std::string out;
  int rc = Z_OK;
  while (rc == Z_OK) {
    char buf[65536];
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - z.avail_out);
  }
  *used = data.size() - pos - z.avail_in;
  *rc_out = rc;
  inflateEnd(&z);
  return out;
}

}  // namespace

std::vector<std::string> InflateGzipMembers(const std::string& data) {
  std::vector<std::string> members;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t used = 0;
    int rc = Z_OK;
    members.push_back(InflateOne(data, pos, 31, &used, &rc));  // 31: gzip wrapper, one member
    EXPECT_EQ(rc, Z_STREAM_END) << "member at offset " << pos;
    if (rc != Z_STREAM_END) break;
    pos += used;
  }
  return members;
}

std::string InflateRawDeflate(const std::string& data) {
  size_t used = 0;
  int rc = Z_OK;
  std::string out = InflateOne(data, 0, -15, &used, &rc);  // -15: raw DEFLATE
  EXPECT_EQ(rc, Z_STREAM_END);
  EXPECT_EQ(used, data.size()) << "bytes after the final block";
  return out;
}

}  // namespace zcrawl::testing
