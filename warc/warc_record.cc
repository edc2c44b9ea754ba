#include "warc/warc_record.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstring>

#include "common/encoding.h"

namespace zcrawl {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

// Appends `s` with every control character (CR and LF included) replaced by
// a space: WARC header lines must not break.
void AppendSanitizedLine(std::string& out, std::string_view s) {
  // Copy, then replace in place: a loop the compiler vectorises.
  const size_t start = out.size();
  out.append(s);
  for (size_t i = start; i < out.size(); ++i) {
    const auto u = static_cast<unsigned char>(out[i]);
    if (u < 0x20 || u == 0x7F) out[i] = ' ';
  }
}

}  // namespace

void AppendWarcField(std::string& out, std::string_view name, std::string_view value) {
  AppendSanitizedLine(out, name);
  out += ": ";
  AppendSanitizedLine(out, value);
  out += "\r\n";
}

Result<std::string> NewWarcRecordId() {
  // Random bytes fetched 64 ids at a time: each RAND_bytes call costs far
  // more than the 16 bytes it returns (locks, parameter lookups), and the
  // writer names three records per page. Per thread, so never shared.
  thread_local unsigned char pool[16 * 64];
  thread_local size_t used = sizeof(pool);
  if (used == sizeof(pool)) {
    if (RAND_bytes(pool, sizeof(pool)) != 1) return InternalError("RAND_bytes failed");
    used = 0;
  }
  unsigned char b[16];
  std::memcpy(b, pool + used, sizeof(b));
  used += sizeof(b);
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

WarcSha1::WarcSha1() = default;

WarcSha1::~WarcSha1() {
  EVP_MD_CTX_free(ctx_);
  EVP_MD_free(md_);
}

Status WarcSha1::Begin() {
  if (md_ == nullptr) md_ = EVP_MD_fetch(nullptr, "SHA1", nullptr);
  if (ctx_ == nullptr) ctx_ = EVP_MD_CTX_new();
  if (md_ == nullptr || ctx_ == nullptr) return InternalError("cannot set up OpenSSL SHA-1");
  if (EVP_DigestInit_ex(ctx_, md_, nullptr) != 1) return InternalError("EVP_DigestInit_ex(sha1) failed");
  started_ = true;
  failed_ = false;
  return Status::Ok();
}

void WarcSha1::Update(std::string_view data) {
  if (!started_ && !Begin().ok()) {
    failed_ = true;
    return;
  }
  if (EVP_DigestUpdate(ctx_, data.data(), data.size()) != 1) failed_ = true;
}

Result<std::string> WarcSha1::Finish() {
  if (!started_) {
    if (Status s = Begin(); !s.ok()) return s;
  }
  started_ = false;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  if (failed_ || EVP_DigestFinal_ex(ctx_, md, &md_len) != 1) return InternalError("SHA-1 digest failed");
  return "sha1:" + Base32Encode(std::string_view(reinterpret_cast<const char*>(md), md_len));
}

void AppendWarcRecord(const WarcRecord& record, std::string& out) {
  AppendWarcHeader(record, record.block.size(), out);
  out += record.block;
  out += kWarcRecordEnd;
}

void AppendWarcHeader(const WarcRecord& record, size_t block_size, std::string& out) {
  size_t header_size = 128 + record.type.size() + record.record_id.size() + record.date.size();
  for (const auto& [name, value] : record.fields) header_size += name.size() + value.size() + 4;
  out.reserve(out.size() + header_size + block_size + kWarcRecordEnd.size());

  out += kWarcVersionLine;
  out += "\r\n";
  AppendWarcField(out, "WARC-Type", record.type);
  AppendWarcField(out, "WARC-Record-ID", record.record_id);
  AppendWarcField(out, "WARC-Date", record.date);
  for (const auto& [name, value] : record.fields) AppendWarcField(out, name, value);
  AppendWarcField(out, "Content-Length", std::to_string(block_size));
  out += "\r\n";
}

}  // namespace zcrawl
