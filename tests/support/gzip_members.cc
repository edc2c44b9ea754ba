#include "tests/support/gzip_members.h"

#include <gtest/gtest.h>
#include <zlib.h>

namespace zcrawl::testing {

std::vector<std::string> InflateGzipMembers(const std::string& data) {
  std::vector<std::string> members;
  size_t pos = 0;
  while (pos < data.size()) {
    z_stream z{};
    EXPECT_EQ(inflateInit2(&z, 31), Z_OK);  // gzip wrapper, one member
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
    EXPECT_EQ(rc, Z_STREAM_END) << "member at offset " << pos;
    pos = data.size() - z.avail_in;
    inflateEnd(&z);
    members.push_back(std::move(out));
    if (rc != Z_STREAM_END) break;
  }
  return members;
}

}  // namespace zcrawl::testing
