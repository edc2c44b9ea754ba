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

}  // namespace zcrawl
