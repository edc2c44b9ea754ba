#include "writer/warc_record.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <zlib.h>

#include <algorithm>
#include <climits>

#include "common/encoding.h"

namespace zcrawl::writer {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";
// zlib counts input and output in uInt; feed it at most this much per call.
constexpr size_t kMaxZlibChunk = 1u << 30;
// gzip wrapper (16) + the largest window (15).
constexpr int kGzipWindowBits = 31;
constexpr int kZlibMemLevel = 8;

// Appends `s` with every control character (CR and LF included) replaced by
// a space: WARC header lines must not break.
void AppendSanitizedLine(std::string& out, std::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    out.push_back(u < 0x20 || u == 0x7F ? ' ' : c);
  }
}

void AppendField(std::string& out, std::string_view name, std::string_view value) {
  AppendSanitizedLine(out, name);
  out += ": ";
  AppendSanitizedLine(out, value);
  out += "\r\n";
}

}  // namespace

Result<std::string> NewWarcRecordId() {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof(b)) != 1) return InternalError("RAND_bytes failed");
  b[6] = static_cast<unsigned char>((b[6] & 0x0F) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3F) | 0x80);  // RFC 4122 variant
  std::string id = "<urn:uuid:";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) id.push_back('-');
    id.push_back(kHexDigits[b[i] >> 4]);
    id.push_back(kHexDigits[b[i] & 0xF]);
  }
  id.push_back('>');
  return id;
}

Result<std::string> WarcSha1Digest(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &md_len, EVP_sha1(), nullptr) != 1) {
    return InternalError("EVP_Digest(sha1) failed");
  }
  return "sha1:" + Base32Encode(std::string_view(reinterpret_cast<const char*>(md), md_len));
}

void AppendWarcRecord(const WarcRecord& record, std::string& out) {
  size_t header_size = 128 + record.type.size() + record.record_id.size() + record.date.size();
  for (const auto& [name, value] : record.fields) header_size += name.size() + value.size() + 4;
  out.reserve(out.size() + header_size + record.block.size() + 4);

  out += kWarcVersionLine;
  out += "\r\n";
  AppendField(out, "WARC-Type", record.type);
  AppendField(out, "WARC-Record-ID", record.record_id);
  AppendField(out, "WARC-Date", record.date);
  for (const auto& [name, value] : record.fields) AppendField(out, name, value);
  AppendField(out, "Content-Length", std::to_string(record.block.size()));
  out += "\r\n";
  out += record.block;
  out += "\r\n\r\n";
}

GzipMemberCompressor::GzipMemberCompressor(int level) : level_(std::clamp(level, 0, 9)) {}

GzipMemberCompressor::~GzipMemberCompressor() {
  if (stream_ != nullptr) {
    deflateEnd(stream_);
    delete stream_;
  }
}

Status GzipMemberCompressor::AppendMember(std::string_view data, std::string& out) {
  if (stream_ == nullptr) {
    auto* stream = new z_stream{};
    if (deflateInit2(stream, level_, Z_DEFLATED, kGzipWindowBits, kZlibMemLevel,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      delete stream;
      return InternalError("deflateInit2 failed");
    }
    stream_ = stream;
  } else if (deflateReset(stream_) != Z_OK) {
    return InternalError("deflateReset failed");
  }

  const size_t start = out.size();
  // deflateBound is enough for a one-call Z_FINISH; the loop below still
  // grows the output if zlib ever asks for more.
  out.resize(start + deflateBound(stream_, data.size()));
  size_t in_pos = 0;
  size_t out_pos = start;
  for (;;) {
    const size_t in_chunk = std::min(data.size() - in_pos, kMaxZlibChunk);
    const size_t out_chunk = std::min(out.size() - out_pos, kMaxZlibChunk);
    const bool last = in_pos + in_chunk == data.size();
    stream_->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + in_pos));
    stream_->avail_in = static_cast<uInt>(in_chunk);
    stream_->next_out = reinterpret_cast<Bytef*>(out.data() + out_pos);
    stream_->avail_out = static_cast<uInt>(out_chunk);
    const int rc = deflate(stream_, last ? Z_FINISH : Z_NO_FLUSH);
    in_pos += in_chunk - stream_->avail_in;
    out_pos += out_chunk - stream_->avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      out.resize(start);
      return InternalError("deflate failed: " + std::to_string(rc));
    }
    if (out_pos == out.size()) out.resize(out.size() + out.size() / 2 + 1024);
  }
  out.resize(out_pos);
  return Status::Ok();
}

}  // namespace zcrawl::writer
