#include "warc/warc_record.h"

#include <gtest/gtest.h>

#include <string>

namespace zcrawl {
namespace {

// A field is one line whatever its name and value hold: a hostile host name
// or URL cannot end the line and add a field of its own.
TEST(WarcRecordTest, AFieldIsOneLineWithControlCharactersAsSpaces) {
  std::string out = "x";
  AppendWarcField(out, "host\nname", "a\r\nb: c\x7f\td");
  EXPECT_EQ(out, "xhost name: a  b: c  d\r\n");
}

TEST(WarcRecordTest, TheHeaderCarriesTheFieldsAsLinesAndTheBlockLength) {
  WarcRecord record{"warcinfo", "<urn:uuid:1>", "2026-01-01T00:00:00Z", {}, "block"};
  record.AddField("WARC-Target-URI", "http://h.test/\r\nWARC-Type: response");
  std::string out;
  AppendWarcRecord(record, out);
  EXPECT_NE(out.find("\r\nWARC-Target-URI: http://h.test/  WARC-Type: response\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\r\nContent-Length: 5\r\n\r\nblock\r\n\r\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace zcrawl
