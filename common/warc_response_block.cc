#include "common/warc_response_block.h"

#include <isa-l/crc.h>
#include <libdeflate.h>

#include <memory>

#include "common/envelope_codec.h"
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

bool BodyWasOmitted(const v1::Page& page) { return page.body().empty() && page.body_length() > 0; }

Status RestoreOmittedBody(v1::Page& page) {
  const v1::WarcResponseBlock& block = page.warc_response();
  if (!page.has_warc_response() || !IsUsableWarcResponseBlock(block)) {
    return InvalidArgumentError("body omitted without a usable WARC response block");
  }
  // No body larger than a message may carry could have come in one.
  if (block.block_length() > static_cast<uint64_t>(kMaxEnvelopeBytes)) {
    return InvalidArgumentError("WARC response block larger than a message");
  }
  const uint64_t size = block.block_length() + kWarcRecordEnd.size();
  if (page.body_length() + kWarcRecordEnd.size() > block.block_length()) {
    return InvalidArgumentError("body_length does not fit in the WARC response block");
  }
  std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> inflater(
      libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  if (!inflater) return InternalError("libdeflate_alloc_decompressor failed");
  std::string contents(size, '\0');
  size_t got = 0;
  if (libdeflate_deflate_decompress(inflater.get(), block.deflate().data(), block.deflate().size(),
                                    contents.data(), contents.size(), &got) != LIBDEFLATE_SUCCESS ||
      got != size) {
    return InvalidArgumentError("WARC response block does not inflate to its length");
  }
  if (crc32_gzip_refl(0, reinterpret_cast<const unsigned char*>(contents.data()), contents.size()) !=
      block.crc32()) {
    return InvalidArgumentError("WARC response block fails its CRC-32");
  }
  const size_t body_start = block.block_length() - page.body_length();
  if (std::string_view(contents).substr(body_start - kWarcRecordEnd.size(), kWarcRecordEnd.size()) !=
      kWarcRecordEnd) {
    return InvalidArgumentError("WARC response block's head does not end where the body starts");
  }
  page.set_body(contents.substr(body_start, page.body_length()));
  return Status::Ok();
}

}  // namespace zcrawl
