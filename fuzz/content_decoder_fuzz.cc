// Fuzz target of Content-Encoding decoding (fetcher/content_decoder.h), the
// code that now meets every compressed body a server sends. The first byte
// picks the coding and whether the rest is encoded by the target first (a
// valid stream, to reach deep into the decoders) or fed as it is (a hostile
// one); the second the piece size the network splits it into and the limit.
// Always: no crash, and never more output than the limit. For a stream the
// target encoded: exactly the original bytes, or the first `limit` of them
// and kFull.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "fetcher/content_decoder.h"
#include "tests/support/content_codings.h"

namespace {

using zcrawl::fetcher::ContentDecoder;

constexpr const char* kCodings[] = {"gzip", "deflate", "br", "zstd", "gzip, br", "deflate, zstd"};

std::string Encode(size_t coding, const std::string& bytes) {
  using namespace zcrawl::testing;
  switch (coding) {
    case 0: return GzipFile(bytes, 6);
    case 1: return DeflateCoded(bytes, bytes.size() % 2 == 0);  // zlib-wrapped or raw
    case 2: return BrotliCoded(bytes);
    case 3: return ZstdCoded(bytes);
    case 4: return BrotliCoded(GzipFile(bytes, 1));
    default: return ZstdCoded(DeflateCoded(bytes, true));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t coding = data[0] % std::size(kCodings);
  const bool encode_first = data[0] & 0x80;
  const size_t piece = 1 + (data[1] & 0x3f) * 37;
  const size_t limit = (data[1] & 0x40) ? 1 + (data[1] & 0x3f) * 101 : size_t{1} << 22;
  const std::string rest(reinterpret_cast<const char*>(data + 2), size - 2);
  const std::string body = encode_first ? Encode(coding, rest) : rest;

  std::string error;
  std::unique_ptr<ContentDecoder> decoder = ContentDecoder::ForCodings(kCodings[coding], &error);
  if (!decoder) abort();
  std::string out;
  ContentDecoder::Result result = ContentDecoder::Result::kOk;
  for (size_t at = 0; at < body.size() && result == ContentDecoder::Result::kOk; at += piece) {
    result = decoder->Decode(std::string_view(body).substr(at, piece), &out, limit);
  }
  if (out.size() > limit) abort();
  if (result == ContentDecoder::Result::kError && decoder->error().empty()) abort();
  if (encode_first) {
    if (rest.size() <= limit && (result != ContentDecoder::Result::kOk || out != rest)) abort();
    if (rest.size() > limit && (result != ContentDecoder::Result::kFull || out != rest.substr(0, limit))) abort();
  }
  return 0;
}
