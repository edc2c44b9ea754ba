#include "common/sha1.h"

#include <openssl/evp.h>

namespace zcrawl {

std::string Sha1(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &md_len, EVP_sha1(), nullptr) != 1 ||
      md_len != kSha1Bytes) {
    return {};
  }
  return std::string(reinterpret_cast<const char*>(md), md_len);
}

std::string Sha1(std::initializer_list<std::string_view> pieces) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx == nullptr) return {};
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  bool ok = EVP_DigestInit_ex(ctx, EVP_sha1(), nullptr) == 1;
  for (std::string_view piece : pieces) ok = ok && EVP_DigestUpdate(ctx, piece.data(), piece.size()) == 1;
  ok = ok && EVP_DigestFinal_ex(ctx, md, &md_len) == 1 && md_len == kSha1Bytes;
  EVP_MD_CTX_free(ctx);
  if (!ok) return {};
  return std::string(reinterpret_cast<const char*>(md), md_len);
}

}  // namespace zcrawl
