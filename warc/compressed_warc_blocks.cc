#include "warc/compressed_warc_blocks.h"

#include <isa-l/crc.h>
#include <libdeflate.h>

#include <memory>

#include "common/sha1.h"
#include "proto/message_limits.h"
#include "warc/warc_blocks.h"

namespace zcrawl {
namespace {

// DEFLATE's best case: a 258-byte match in under two bits, about 1032:1.
constexpr uint64_t kMaxDeflateRatio = 1032;

// Fills `block` with the compressed, digested concatenation of the pieces.
Status MakeBlock(std::string_view first, std::string_view second, GzipMemberCompressor& compressor,
                 v1::WarcBlock& block) {
  block.set_block_sha1(Sha1({first, second}));
  if (block.block_sha1().size() != kSha1Bytes) return InternalError("SHA-1 failed");
  Result<uint32_t> crc = compressor.AppendRawDeflate({first, second, kWarcRecordEnd}, *block.mutable_deflate());
  if (!crc.ok()) return crc.status();
  block.set_crc32(*crc);
  block.set_block_length(first.size() + second.size());
  return Status::Ok();
}

}  // namespace

Status AddWarcBlocks(v1::Page& page, GzipMemberCompressor& compressor) {
  const std::string head = WarcHttpResponseHead(page, page.body().size());
  Status s = MakeBlock(head, page.body(), compressor, *page.mutable_warc_response());
  if (s.ok()) {
    s = MakeBlock(WarcRequestBlock(page, WarcTargetUri(page)), {}, compressor, *page.mutable_warc_request());
  }
  if (s.ok() && page.links_size() > 0) {
    s = MakeBlock(WarcMetadataBlock(page), {}, compressor, *page.mutable_warc_metadata());
  }
  if (!s.ok()) {
    page.clear_warc_response();
    page.clear_warc_request();
    page.clear_warc_metadata();
  }
  return s;
}

bool IsUsableWarcBlock(const v1::WarcBlock& block) { return IsUsableWarcBlock(block, block.deflate()); }

bool IsUsableWarcBlock(const v1::WarcBlock& block, std::string_view deflate) {
  return block.block_sha1().size() == kSha1Bytes && !deflate.empty() && block.block_length() > 0 &&
         block.block_length() + kWarcRecordEnd.size() <= deflate.size() * kMaxDeflateRatio;
}

bool BodyWasOmitted(const v1::Page& page) { return page.body().empty() && page.body_length() > 0; }

Status RestoreOmittedBody(v1::Page& page) {
  const v1::WarcBlock& block = page.warc_response();
  if (!page.has_warc_response() || !IsUsableWarcBlock(block)) {
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
