#include "frontier/admission/registrable_domain.h"

#include <libpsl.h>

namespace zcrawl::frontier {
namespace {

const psl_ctx_t* List() {
  // psl_latest(NULL) picks the newer of the distribution's file and the
  // built-in copy; never freed (one per process).
  static const psl_ctx_t* const list = [] {
    const psl_ctx_t* latest = psl_latest(nullptr);
    return latest ? latest : psl_builtin();
  }();
  return list;
}

}  // namespace

std::string RegistrableDomain(std::string_view host) {
  if (host.empty()) return {};
  if (host.front() == '[' || host.find_first_not_of("0123456789.") == std::string_view::npos) {
    return std::string(host);  // an IP address
  }
  const std::string name(host);
  const psl_ctx_t* list = List();
  if (list == nullptr) return name;
  const char* domain = psl_registrable_domain(list, name.c_str());
  return domain ? std::string(domain) : name;
}

}  // namespace zcrawl::frontier
