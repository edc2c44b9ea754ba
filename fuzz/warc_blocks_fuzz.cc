// Fuzz target of the restoring of compressed WARC blocks
// (warc/compressed_warc_blocks.h): a page whose fetcher omitted the body
// and sent only its compressed WARC response block, as the writer gets it.
// The first 12 bytes are the claimed body length, the CRC-32 and the block
// length the message says (little-endian); the rest is the DEFLATE stream. Checking and restoring must never
// crash; a restored body must have exactly the claimed length.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "warc/compressed_warc_blocks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 12) return 0;
  uint32_t length = 0, crc = 0, block_length = 0;
  std::memcpy(&length, data, 4);
  std::memcpy(&crc, data + 4, 4);
  std::memcpy(&block_length, data + 8, 4);
  length %= 1u << 20;
  block_length %= 1u << 21;
  zcrawl::v1::Page page;
  page.set_url("http://fuzz.test/");
  page.set_http_status(200);
  page.set_body_length(length);
  zcrawl::v1::WarcBlock& block = *page.mutable_warc_response();
  block.set_deflate(std::string(reinterpret_cast<const char*>(data + 12), size - 12));
  block.set_block_length(block_length);
  block.set_crc32(crc);
  block.set_block_sha1(std::string(20, '\x01'));
  (void)zcrawl::IsUsableWarcBlock(block);
  if (!zcrawl::BodyWasOmitted(page)) return 0;
  if (zcrawl::RestoreOmittedBody(page).ok() && page.body().size() != length) abort();
  return 0;
}
