// End-to-end over TLS: `./run crawl` against nginx on 127.0.0.1 serving a
// small site over HTTPS with HTTP/2 and with HTTP/1.1, under a certificate
// from a CA this test makes (openssl). Also what a new user meets first:
// an untrusted certificate, a refused connection, an http:// seed that
// redirects to https://, a seed list with a bad line, a User-Agent of their
// own. nginx's access log (port, protocol, path, User-Agent per request)
// shows what the crawler really sent.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/support/crawl_output.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr int kPages = 20;
constexpr const char* kNginx = "/usr/sbin/nginx";
constexpr const char* kUserAgent = "zcrawl-https-test/1.0 (+mailto:test@example.invalid)";

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.flush()) << path;
}

// One line of nginx's access log, in the format the fixture configures.
struct AccessLine {
  uint64_t connection = 0;  // nginx's serial number of the connection
  int port = 0;
  std::string protocol;  // "HTTP/2.0", "HTTP/1.1"
  std::string path;
  std::string user_agent;
  bool session_reused = false;  // a TLS connection's handshake resumed a session
};

class HttpsSite : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(kNginx)) << "nginx is missing: ./run test installs it";
    dir_ = MakeTempDir("https");
    MakeCertificates();
    MakeSite();
    h2_port_ = FreeLoopbackPort();
    h1_port_ = FreeLoopbackPort();
    h1_close_port_ = FreeLoopbackPort();
    http_port_ = FreeLoopbackPort();
    StartNginx();
  }

  void TearDown() override {
    nginx_.Signal(SIGQUIT);
    nginx_.Wait(5000);
    if (!HasFailure()) std::filesystem::remove_all(dir_);  // kept to look at otherwise
  }

  // A CA, and a certificate for 127.0.0.1 it signed (P-256 keys: quick).
  void MakeCertificates() {
    const std::string script =
        "set -e; cd '" + dir_ + "'\n"
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
        "  -keyout ca.key -out ca.pem -days 2 -subj '/CN=zcrawl test CA' "
        "  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign\n"
        "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
        "  -keyout server.key -out server.csr -subj '/CN=127.0.0.1'\n"
        "printf 'subjectAltName=IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\n"
        "extendedKeyUsage=serverAuth\\n' > server.ext\n"
        "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
        "  -out server.pem -days 2 -extfile server.ext\n";
    TestProcess openssl;
    openssl.Start({"/bin/sh", "-c", script}, dir_ + "/openssl.log");
    ASSERT_EQ(openssl.Wait(60000), std::optional<int>(0)) << ReadFile(dir_ + "/openssl.log");
  }

  // index.html links to p1..pN; each page links to the next and back home.
  void MakeSite() {
    std::filesystem::create_directories(dir_ + "/site");
    std::string index = "<html><head><title>home</title></head><body>";
    for (int i = 1; i <= kPages; ++i) index += "<a href=\"p" + std::to_string(i) + ".html\">" + std::to_string(i) + "</a> ";
    WriteFile(dir_ + "/site/index.html", index + "</body></html>");
    for (int i = 1; i <= kPages; ++i) {
      WriteFile(dir_ + "/site/p" + std::to_string(i) + ".html",
                "<html><head><title>page " + std::to_string(i) + "</title></head><body><h1>Page " +
                    std::to_string(i) + "</h1><a href=\"p" + std::to_string(i % kPages + 1) +
                    ".html\">next</a> <a href=\"/\">home</a></body></html>");
    }
    WriteFile(dir_ + "/site/robots.txt", "User-agent: *\nAllow: /\n");
  }

  void StartNginx() {
    const std::string tls = "    ssl_certificate " + dir_ + "/server.pem;\n    ssl_certificate_key " +
                            dir_ + "/server.key;\n    root " + dir_ + "/site;\n";
    std::ostringstream conf;
    conf << (geteuid() == 0 ? "user root;\n" : "") << "worker_processes 1;\ndaemon off;\n"
         << "pid " << dir_ << "/nginx.pid;\nerror_log " << dir_ << "/error.log warn;\n"
         << "events { worker_connections 256; }\nhttp {\n"
         << "  log_format probe '$connection $server_port $server_protocol $request_uri \"$http_user_agent\" $ssl_session_reused';\n"
         << "  access_log " << dir_ << "/access.log probe;\n"
         << "  ssl_session_cache shared:zcrawl:1m;\n"  // as most servers: sessions can be resumed
         << "  types { text/html html; text/plain txt; }\n"
         << "  client_body_temp_path " << dir_ << "/tmp-body;\n  proxy_temp_path " << dir_ << "/tmp-proxy;\n"
         << "  fastcgi_temp_path " << dir_ << "/tmp-fcgi;\n  uwsgi_temp_path " << dir_ << "/tmp-uwsgi;\n"
         << "  scgi_temp_path " << dir_ << "/tmp-scgi;\n"
         << "  server {\n    listen 127.0.0.1:" << h2_port_ << " ssl http2;\n" << tls << "  }\n"
         << "  server {\n    listen 127.0.0.1:" << h1_port_ << " ssl;\n" << tls << "  }\n"
         << "  server {\n    listen 127.0.0.1:" << h1_close_port_ << " ssl;\n    keepalive_requests 1;\n" << tls
         << "  }\n"
         << "  server {\n    listen 127.0.0.1:" << http_port_ << ";\n"
         << "    location / { return 301 https://127.0.0.1:" << h1_port_ << "$request_uri; }\n  }\n"
         << "}\n";
    WriteFile(dir_ + "/nginx.conf", conf.str());
    nginx_.Start({kNginx, "-c", dir_ + "/nginx.conf", "-p", dir_, "-e", dir_ + "/error.log"},
                 dir_ + "/nginx.out");
    for (int i = 0; i < 200; ++i) {
      if (LoopbackPortAccepts(h2_port_) && LoopbackPortAccepts(h1_port_) && LoopbackPortAccepts(h1_close_port_) &&
          LoopbackPortAccepts(http_port_)) {
        return;
      }
      usleep(25000);
    }
    FAIL() << "nginx did not listen; " << ReadFile(dir_ + "/error.log") << ReadFile(dir_ + "/nginx.out");
  }

  std::string Origin(uint16_t port, const char* scheme = "https") const {
    return std::string(scheme) + "://127.0.0.1:" + std::to_string(port);
  }

  // Runs `./run crawl ARGS... --out DIR/NAME`; its exit code, log in *log.
  int Crawl(const std::string& name, std::vector<std::string> args, std::string* log) {
    std::vector<std::string> argv = {SourceDir() + "/run", "crawl", "--out", dir_ + "/" + name,
                                     "--delay-ms", "0", "--per-host", "4", "--retries", "1",
                                     "--retry-base-ms", "50", "--fetchers", "2", "--threads", "8"};
    if (std::find(args.begin(), args.end(), "--fetchers") != args.end()) {  // the test's own count
      argv.erase(std::find(argv.begin(), argv.end(), "--fetchers"), std::find(argv.begin(), argv.end(), "--threads"));
    }
    argv.insert(argv.end(), args.begin(), args.end());
    TestProcess crawl;
    crawl.Start(argv, dir_ + "/" + name + ".log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
    const auto code = crawl.Wait(120000);
    *log = ReadFile(dir_ + "/" + name + ".log");
    EXPECT_TRUE(code.has_value()) << "crawl did not finish; log:\n" << *log;
    return code.value_or(-1);
  }

  std::vector<AccessLine> AccessLog() const {
    std::vector<AccessLine> lines;
    std::istringstream in(ReadFile(dir_ + "/access.log"));
    for (std::string text; std::getline(in, text);) {
      std::istringstream fields(text);
      AccessLine line;
      fields >> line.connection >> line.port >> line.protocol >> line.path;
      const size_t quote = text.find('"');
      if (quote != std::string::npos) line.user_agent = text.substr(quote + 1, text.rfind('"') - quote - 1);
      line.session_reused = text.ends_with(" r");
      lines.push_back(line);
    }
    return lines;
  }

  // Every page of the site stored exactly once under `origin`, with status 200.
  void ExpectEveryPageOnce(const std::string& out, const std::string& origin) {
    auto index = ReadIndex(dir_ + "/" + out);
    std::set<std::string> expected = {origin + "/"};
    for (int i = 1; i <= kPages; ++i) expected.insert(origin + "/p" + std::to_string(i) + ".html");
    for (const auto& url : expected) {
      auto it = index.find(url);
      if (it == index.end()) {
        ADD_FAILURE() << "not stored: " << url;
        continue;
      }
      EXPECT_EQ(it->second.size(), 1u) << "stored more than once: " << url;
      EXPECT_EQ(it->second[0].status, 200) << url;
    }
    size_t stored_here = 0;
    for (const auto& [url, entries] : index) stored_here += url.rfind(origin + "/", 0) == 0 ? 1 : 0;
    EXPECT_EQ(stored_here, expected.size()) << "pages of " << origin << " other than the site's";
  }

  std::string dir_;
  uint16_t h2_port_ = 0;
  uint16_t h1_port_ = 0;
  uint16_t h1_close_port_ = 0;  // HTTP/1.1, one request per connection
  uint16_t http_port_ = 0;
  TestProcess nginx_;
};

TEST_F(HttpsSite, Http2CrawlTrustingTheTestCaStoresEveryPageOnce) {
  // The seed comes from a --seeds file with a comment and a bad line: the
  // bad line is reported with its number, the good one crawled.
  WriteFile(dir_ + "/seeds.txt", "# seeds\n" + Origin(h2_port_) + "/\nftp://not-http.example/\n");
  std::string log;
  const int code = Crawl("h2", {"--seeds", dir_ + "/seeds.txt", "--ca-file", dir_ + "/ca.pem",
                                "--user-agent", kUserAgent}, &log);
  EXPECT_EQ(code, 0) << log;
  ExpectEveryPageOnce("h2", Origin(h2_port_));
  EXPECT_NE(log.find("seeds.txt:3: 'ftp://not-http.example/' is not an http or https URL"), std::string::npos)
      << log;
  size_t requests = 0;
  std::set<uint64_t> connections;
  for (const auto& line : AccessLog()) {
    if (line.port != h2_port_) continue;
    ++requests;
    connections.insert(line.connection);
    EXPECT_EQ(line.protocol, "HTTP/2.0") << line.path;
    EXPECT_EQ(line.user_agent, kUserAgent) << line.path;
  }
  EXPECT_GE(requests, static_cast<size_t>(kPages + 2));  // pages, home, robots.txt
  // HTTP/2 multiplexes: each of the 2 fetchers' requests share its one
  // connection (CURLOPT_PIPEWAIT), even the burst of 4 at once that the
  // home page's 20 links start; without it each request of a burst opened
  // its own, with a TLS handshake each (issue 51).
  EXPECT_LE(connections.size(), 2u) << requests << " requests";
}

TEST_F(HttpsSite, Http11CrawlTrustingTheTestCaStoresEveryPageOnce) {
  std::string log;
  const int code = Crawl("h1", {Origin(h1_port_) + "/", "--ca-file", dir_ + "/ca.pem"}, &log);
  EXPECT_EQ(code, 0) << log;
  ExpectEveryPageOnce("h1", Origin(h1_port_));
  size_t requests = 0;
  for (const auto& line : AccessLog()) {
    if (line.port != h1_port_) continue;
    ++requests;
    EXPECT_EQ(line.protocol, "HTTP/1.1") << line.path;
    EXPECT_NE(line.user_agent.find("zcrawl/"), std::string::npos) << "default User-Agent: " << line.user_agent;
  }
  EXPECT_GE(requests, static_cast<size_t>(kPages + 2));
}

// A server that closes every connection after one answer: each request
// needs a new connection, and each after the first resumes the TLS session
// an earlier one got (tls_session_shares.h), whichever of the fetcher's
// handles makes it. Per handle, as libcurl keeps them by itself, a handle's
// first connection to the site was a full handshake (issue 51).
TEST_F(HttpsSite, NewConnectionsToASiteResumeItsTlsSession) {
  std::string log;
  const int code = Crawl("resume", {Origin(h1_close_port_) + "/", "--ca-file", dir_ + "/ca.pem", "--fetchers", "1"},
                         &log);
  EXPECT_EQ(code, 0) << log;
  ExpectEveryPageOnce("resume", Origin(h1_close_port_));
  std::set<uint64_t> connections, full_handshakes;
  for (const auto& line : AccessLog()) {
    if (line.port != h1_close_port_) continue;
    connections.insert(line.connection);
    if (!line.session_reused) full_handshakes.insert(line.connection);
  }
  ASSERT_GE(connections.size(), static_cast<size_t>(kPages + 2)) << "one request per connection";
  // robots.txt's connection, alone, then the home page's: both before any
  // other request, so at most those two had no session to resume.
  EXPECT_LE(full_handshakes.size(), 2u) << "of " << connections.size() << " connections";
}

TEST_F(HttpsSite, WithoutTheCaEveryUrlFailsNamingTheCertificateAndTheExitSaysNothingFetched) {
  std::string log;
  const int code = Crawl("untrusted", {Origin(h2_port_) + "/"}, &log);
  EXPECT_EQ(code, 3) << log;
  EXPECT_NE(log.find("robots_unavailable: tls_certificate_untrusted"), std::string::npos) << log;
  EXPECT_NE(log.find("failing " + Origin(h2_port_) + ": 1 failed, 0 done; last: robots.txt: "
                     "tls_certificate_untrusted"), std::string::npos) << log;
  EXPECT_NE(log.find("nothing could be fetched"), std::string::npos) << log;
  EXPECT_TRUE(ReadIndex(dir_ + "/untrusted").empty());
  // The handshake failed before any request: nginx served nothing.
  for (const auto& line : AccessLog()) EXPECT_NE(line.port, h2_port_) << line.path;
}

TEST_F(HttpsSite, HttpSeedRedirectingToHttpsOnTheSameHostIsCrawled) {
  // Scope is by host name, whatever the scheme and port: the redirect's
  // target https://127.0.0.1:H1/ is the seed's host.
  std::string log;
  const int code = Crawl("redirect", {Origin(http_port_, "http") + "/", "--ca-file", dir_ + "/ca.pem"}, &log);
  EXPECT_EQ(code, 0) << log;
  ExpectEveryPageOnce("redirect", Origin(h1_port_));
}

TEST_F(HttpsSite, RefusedConnectionNamesItsCauseAndExitsWithNothingFetched) {
  const uint16_t closed = FreeLoopbackPort();  // nothing listens there
  std::string log;
  const int code = Crawl("refused", {Origin(closed, "http") + "/"}, &log);
  EXPECT_EQ(code, 3) << log;
  EXPECT_NE(log.find("robots_unavailable: connection_refused"), std::string::npos) << log;
  EXPECT_NE(log.find("last: robots.txt: connection_refused"), std::string::npos) << log;
}

}  // namespace
}  // namespace zcrawl::testing
