#include "frontier/console/console_server.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "frontier/console/console_page.h"
#include "frontier/control/control_target.h"

namespace zcrawl::frontier {
namespace {

// How long a control waits for the broker before the viewer is told it
// is still pending (the broker answers within a turn; a full disk can
// hold the save longer).
constexpr auto kControlWait = std::chrono::seconds(10);

std::string NewToken() {
  std::random_device random;
  static const char* kHex = "0123456789abcdef";
  std::string token;
  for (int i = 0; i < 32; ++i) token += kHex[random() % 16];
  return token;
}

// The token kept in `path`, made (0600) at the first start.
Result<std::string> LoadOrMakeToken(const std::string& path) {
  std::ifstream in(path);
  std::string token;
  if (in && std::getline(in, token) && token.size() >= 32) return token;
  token = NewToken();
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return UnavailableError("cannot write the console's token file " + path);
  const std::string line = token + "\n";
  const bool written = write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  fchmod(fd, 0600);
  close(fd);
  if (!written) return UnavailableError("cannot write the console's token file " + path);
  return token;
}

HttpResponse Json(int status, const nlohmann::json& body) {
  return HttpResponse{status, "application/json", body.dump() + "\n", {}};
}

}  // namespace

Result<v1::Control> ControlFromJson(const std::string& body) {
  const auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("verb") || !json["verb"].is_string()) {
    return InvalidArgumentError("a control is a JSON object with a \"verb\"");
  }
  v1::Control control;
  const std::string verb = json["verb"];
  control.set_note(json.value("note", std::string()));
  auto target = [&]() -> Result<v1::Target> {
    if (!json.contains("target") || !json["target"].is_string()) return InvalidArgumentError(verb + " needs a \"target\"");
    return ParseTarget(json["target"].get<std::string>());
  };
  if (verb == "pause") {
    control.mutable_pause();
  } else if (verb == "resume") {
    control.mutable_resume();
  } else if (verb == "drain") {
    control.mutable_drain();
  } else if (verb == "stop") {
    control.mutable_stop();
  } else if (verb == "blocks") {
    control.mutable_list_blocks();
  } else if (verb == "block" || verb == "unblock") {
    auto t = target();
    if (!t.ok()) return t.status();
    *(verb == "block" ? control.mutable_block()->mutable_target() : control.mutable_unblock()->mutable_target()) = *t;
  } else if (verb == "politeness") {
    auto t = target();
    if (!t.ok()) return t.status();
    auto* p = control.mutable_politeness();
    *p->mutable_target() = *t;
    p->set_clear(json.value("clear", false));
    if (json.contains("delay_ms") && json["delay_ms"].is_number_unsigned()) p->set_delay_ms(json["delay_ms"]);
    if (json.contains("per_host") && json["per_host"].is_number_unsigned()) p->set_per_host(json["per_host"]);
  } else if (verb == "threads") {
    if (!json.contains("threads") || !json["threads"].is_number_unsigned()) return InvalidArgumentError("threads needs a number");
    control.mutable_threads()->set_threads(json["threads"]);
  } else if (verb == "add-seeds") {
    if (!json.contains("urls") || !json["urls"].is_array()) return InvalidArgumentError("add-seeds needs \"urls\"");
    auto* seeds = control.mutable_add_seeds();
    seeds->set_widen(json.value("widen", false));
    for (const auto& url : json["urls"]) {
      if (url.is_string()) seeds->add_urls(url.get<std::string>());
    }
  } else {
    return InvalidArgumentError("unknown verb \"" + verb + "\"");
  }
  return control;
}

Result<std::unique_ptr<ConsoleServer>> ConsoleServer::Start(const std::string& address, uint16_t port,
                                                            const std::string& token_file, const Clock& clock) {
  std::unique_ptr<ConsoleServer> server(new ConsoleServer());
  server->clock_ = &clock;
  server->address_ = address;
  if (!IsLoopbackName(address)) {
    if (token_file.empty()) return InvalidArgumentError("a console beyond loopback needs a state folder for its token");
    auto token = LoadOrMakeToken(token_file);
    if (!token.ok()) return token.status();
    server->token_ = *token;
  }
  auto http = HttpService::Start(address, port, [s = server.get()](const HttpRequest& r) { return s->Handle(r); });
  if (!http.ok()) return http.status();
  server->http_ = std::move(*http);
  return server;
}

void ConsoleServer::PublishSnapshot(std::string snapshot_json) {
  MutexLock lock(mutex_);
  snapshot_ = std::move(snapshot_json);
}

void ConsoleServer::PublishMetrics(std::string metrics_text) {
  MutexLock lock(mutex_);
  metrics_ = std::move(metrics_text);
}

std::string ConsoleServer::url(bool with_token) const {
  const std::string host = address_.find(':') != std::string::npos ? "[" + address_ + "]" : address_;
  std::string url = "http://" + host + ":" + std::to_string(port()) + "/";
  if (with_token && !token_.empty()) url += "#token=" + token_;
  return url;
}

// The Host a browser sent names this machine. Without a token, this is
// what keeps a web page elsewhere from reading or steering the crawl
// through DNS rebinding (a name of its own that it points at 127.0.0.1).
static bool NamesLoopback(const std::map<std::string, std::string>& headers) {
  auto it = headers.find("host");
  if (it == headers.end()) return true;  // HTTP/1.0 tools send none; browsers always do
  std::string host = it->second;
  if (host.starts_with("[")) return host.starts_with("[::1]");
  host = host.substr(0, host.find(':'));
  return IsLoopbackName(host);
}

bool ConsoleServer::Authorised(const HttpRequest& request) const {
  if (token_.empty()) return true;
  if (auto it = request.headers.find("authorization"); it != request.headers.end() && it->second == "Bearer " + token_) {
    return true;
  }
  auto it = request.query.find("token");
  return it != request.query.end() && it->second == token_;
}

HttpResponse ConsoleServer::Handle(const HttpRequest& request) {
  last_request_ms_.store(clock_->NowMs(), std::memory_order_relaxed);
  // The page itself holds no data: it may load without the token, and
  // asks for it (or reads it from the address's #token=) before any call.
  if ((request.method == "GET" || request.method == "HEAD") && request.path == "/") {
    return HttpResponse{200, "text/html; charset=utf-8", std::string(kConsolePage),
                        {{"Content-Security-Policy", "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"}}};
  }
  if (token_.empty() && !NamesLoopback(request.headers)) {
    return Json(403, {{"error", "the console answers only to names of this machine (127.0.0.1, localhost, [::1])"}});
  }
  if (!Authorised(request)) return Json(401, {{"error", "the console's access token is needed (STATE/console.token)"}});
  if ((request.method == "GET" || request.method == "HEAD") && request.path == "/api/status") {
    MutexLock lock(mutex_);
    return HttpResponse{200, "application/json", snapshot_, {}};
  }
  if ((request.method == "GET" || request.method == "HEAD") && request.path == "/metrics") {
    MutexLock lock(mutex_);
    return HttpResponse{200, std::string(kMetricsContentType), metrics_, {}};
  }
  if (request.path == "/api/control") {
    if (request.method != "POST") return Json(405, {{"error", "POST a control"}});
    return Control(request);
  }
  return Json(404, {{"error", "no such page: " + request.path}});
}

HttpResponse ConsoleServer::Control(const HttpRequest& request) {
  // A JSON body only: a page elsewhere cannot send one to us without a
  // CORS preflight, which is never answered (no cross-site controls).
  auto type = request.headers.find("content-type");
  if (type == request.headers.end() || !type->second.starts_with("application/json")) {
    return Json(415, {{"ok", false}, {"result", "refused: a control is sent as Content-Type: application/json"}});
  }
  auto control = ControlFromJson(request.body);
  if (!control.ok()) return Json(400, {{"ok", false}, {"result", "refused: " + control.status().message()}});
  ConsoleControl item{std::move(*control), "console:" + request.client,
                      std::make_shared<std::promise<std::string>>()};
  std::future<std::string> answer = item.answer->get_future();
  inbox_.Push(std::move(item));
  if (answer.wait_for(kControlWait) != std::future_status::ready) {
    return Json(202, {{"ok", true}, {"result", "sent; the frontier has not answered yet"}});
  }
  const std::string result = answer.get();
  return Json(200, {{"ok", !result.starts_with("refused")}, {"result", result}});
}

}  // namespace zcrawl::frontier
