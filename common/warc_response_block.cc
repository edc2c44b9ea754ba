#include "common/warc_response_block.h"

#include "common/sha1.h"
#include "common/warc_http_head.h"

namespace zcrawl {
namespace {

// DEFLATE's best case: a 258-byte match in under two bits, about 1032:1.
constexpr uint64_t kMaxDeflateRatio = 1032;

}  // namespace

Status AddWarcResponseBlock(v1::Page& page, GzipMemberCompressor& compressor) {
  const std::string head = WarcHttpResponseHead(page, page.body().size());
  v1::WarcResponseBlock& block = *page.mutable_warc_response();
  block.set_block_sha1(Sha1({head, page.body()}));
  if (block.block_sha1().size() != kSha1Bytes) {
    page.clear_warc_response();
    return InternalError("SHA-1 failed");
  }
  std::string& deflate = *block.mutable_deflate();
  Result<uint32_t> crc = compressor.AppendRawDeflate({head, page.body(), kWarcRecordEnd}, deflate);
  if (!crc.ok()) {
    page.clear_warc_response();
    return crc.status();
  }
  block.set_crc32(*crc);
  block.set_block_length(head.size() + page.body().size());
  return Status::Ok();
}

bool IsUsableWarcResponseBlock(const v1::WarcResponseBlock& block) {
  return block.block_sha1().size() == kSha1Bytes && !block.deflate().empty() && block.block_length() > 0 &&
         block.block_length() + kWarcRecordEnd.size() <= block.deflate().size() * kMaxDeflateRatio;
}

}  // namespace zcrawl
