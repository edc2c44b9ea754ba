// The blocking libcurl HttpClient: one CurlTransfer per client (per worker
// thread), run with curl_easy_perform. The handle lives between requests,
// so its connection cache keeps keep-alive connections to hosts it fetched
// from. The event-loop way to drive the same transfers is curl_multi_loop.h.
#include "common/ascii.h"
#include "fetcher/curl_transfer.h"
#include "fetcher/http_client.h"

namespace zcrawl::fetcher {
namespace {

class CurlHttpClient final : public HttpClient {
 public:
  explicit CurlHttpClient(const HttpOptions& options) : transfer_(options) {}

  HttpResponse Fetch(const HttpRequest& request) override {
    HttpResponse response;
    transfer_.Begin(request, &response);
    if (!transfer_.ok()) return response;
    transfer_.Finish(curl_easy_perform(transfer_.curl()));
    return response;
  }

 private:
  CurlTransfer transfer_;
};

}  // namespace

std::string_view FindHeader(const std::vector<v1::Header>& headers, std::string_view name) {
  for (const auto& header : headers) {
    if (EqualsIgnoreCaseAscii(header.name(), name)) return header.value();
  }
  return {};
}

std::unique_ptr<HttpClient> MakeCurlHttpClient(const HttpOptions& options) {
  return std::make_unique<CurlHttpClient>(options);
}

}  // namespace zcrawl::fetcher
