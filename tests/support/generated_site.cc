#include "tests/support/generated_site.h"

namespace zcrawl::testing {

GeneratedSite::GeneratedSite(int pages, std::string origin, std::string foreign_origin)
    : pages_(pages), origin_(std::move(origin)), foreign_origin_(std::move(foreign_origin)) {}

std::string GeneratedSite::PagePath(int i) {
  return "/s" + std::to_string(i % 10) + "/p" + std::to_string(i) + ".html";
}

std::string GeneratedSite::PageHtml(int i) const {
  const int n = pages_;
  std::string h = "<!DOCTYPE html><html><head><title>Page " + std::to_string(i) +
                  "</title><style>p{color:red}</style><script>var x='<a href=/script>';</script>"
                  "</head><body><h1>Page " + std::to_string(i) + "</h1>\n";
  const int same_section = i + 10;
  if (same_section < n) h += "<a href=\"p" + std::to_string(same_section) + ".html\">next in section</a>\n";
  if (i + 1 < n) {
    h += "<a href=\"../s" + std::to_string((i + 1) % 10) + "/p" + std::to_string(i + 1) +
         ".html\">next</a>\n";
  }
  h += "<a href=\"" + PagePath((i * 7 + 3) % n) + "\">root-relative</a>\n";
  h += "<a href=\"" + origin_ + PagePath((i * 13 + 5) % n) + "#section-2\">absolute with fragment</a>\n";
  h += "<a href=\"" + PagePath((i * 7 + 3) % n) + "\">duplicate</a>\n";
  h += "<a href=\"#top\">fragment only</a>\n";
  h += "<a href=\"mailto:someone@example.com\">mail</a> <a href=\"javascript:void(0)\">js</a>\n";
  h += "<a href=\"" + foreign_origin_ + "/x" + std::to_string(i) + ".html\">other host</a>\n";
  h += "<a rel=\"nofollow\" href=\"/nofollow/" + std::to_string(i) + ".html\">nofollow</a>\n";
  if (i % 50 == 0) h += "<a href=\"/missing/" + std::to_string(i) + ".html\">broken</a>\n";
  if (i % 100 == 0) h += "<a href=\"/private/" + std::to_string(i) + ".html\">private</a>\n";
  if (i % 3 == 0) {
    h += "<map name=m><area href=\"" + PagePath((i + 2) % n) + "\" alt=x></map>\n";
    h += "<iframe src=\"" + PagePath((i + 5) % n) + "\"></iframe>\n";
  }
  h += "<p>Some text for page " + std::to_string(i) + " &amp; more.</p></body></html>\n";
  return h;
}

TestResponse GeneratedSite::Serve(const TestRequest& request) const {
  TestResponse response;
  const std::string& t = request.target;
  if (t == "/robots.txt") {
    response.headers.push_back({"Content-Type", "text/plain"});
    response.body = "User-agent: *\nDisallow: /private/\n";
    return response;
  }
  if (t == "/") {
    std::string h = "<html><head><title>Home</title></head><body>";
    for (int k = 0; k < 10 && k < pages_; ++k) {
      h += "<a href=\"s" + std::to_string(k) + "/p" + std::to_string(k) + ".html\">section</a>";
    }
    response.body = h + "</body></html>";
    return response;
  }
  for (int i = 0; i < pages_; ++i) {
    // Cheap parse: /s<d>/p<i>.html
    if (t == PagePath(i)) {
      response.body = PageHtml(i);
      return response;
    }
  }
  response.status = 404;
  response.body = "<html><body>not found <a href=\"/\">home</a></body></html>";
  return response;
}

std::set<std::string> GeneratedSite::ExpectedOk() const {
  std::set<std::string> out{origin_ + "/"};
  for (int i = 0; i < pages_; ++i) out.insert(origin_ + PagePath(i));
  return out;
}

std::set<std::string> GeneratedSite::ExpectedNotFound() const {
  std::set<std::string> out;
  for (int i = 0; i < pages_; i += 50) out.insert(origin_ + "/missing/" + std::to_string(i) + ".html");
  return out;
}

bool GeneratedSite::IsForbiddenPath(const std::string& target) const {
  return target.starts_with("/private/") || target.starts_with("/nofollow/") ||
         target.starts_with("/script");
}

ServedSite::ServedSite(int pages) {
  foreign = std::make_unique<TestHttpServer>("127.0.0.2", [](const TestRequest&) { return TestResponse{}; });
  foreign->Start();
  server = std::make_unique<TestHttpServer>("127.0.0.1", [this](const TestRequest& r) { return site->Serve(r); });
  server->Start();
  server->Publish([&] { site = std::make_unique<GeneratedSite>(pages, server->origin(), foreign->origin()); });
}

ServedSite::~ServedSite() {
  server->Stop();
  foreign->Stop();
}

}  // namespace zcrawl::testing
