// HandshakeWatch through PeerLink, over real CURVE on loopback: a server
// that refuses our key is named as such (not "silent"), and an allowed key
// completes its handshake with nothing to diagnose.
#include "net/handshake_watch.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>
#include <zmq.hpp>

#include "common/clock.h"
#include "net/curve_keys.h"
#include "net/envelope_codec.h"
#include "net/peer_link.h"
#include "net/socket_security.h"
#include "net/zap_authenticator.h"
#include "tests/support/test_process.h"

namespace zcrawl {
namespace {

class HandshakeWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = zcrawl::testing::MakeTempDir("handshake_watch");
    for (const char* name : {"server", "allowed", "stranger"}) {
      auto pair = GenerateCurveKeyPair();
      ASSERT_TRUE(pair.ok());
      ASSERT_TRUE(WriteCurveKeyFiles(dir_, name, *pair).ok());
    }
    endpoint_ = "tcp://127.0.0.1:" + std::to_string(zcrawl::testing::FreeLoopbackPort());
    SecurityOptions server;
    server.curve_key = dir_ + "/server.key";
    server.curve_allow = dir_ + "/allowed.pub";
    ASSERT_TRUE(SecureServerSocket(context_, server_, endpoint_, server, &zap_).ok());
    server_.bind(endpoint_);
  }

  // A PeerLink with `client` key towards the server whose public key is
  // `server_pub`; its diagnosis once a handshake had time to end.
  std::string DiagnosisOf(const std::string& client, const std::string& server_pub) {
    PeerLinkSettings settings;
    settings.name = "frontier";
    settings.endpoint = endpoint_;
    settings.identity = client;
    settings.security.curve_key = dir_ + "/" + client + ".key";
    settings.security.frontier_key = dir_ + "/" + server_pub;
    settings.server_key_file = dir_ + "/" + server_pub;
    EnvelopeCodec codec(client);
    PeerLink link(context_, settings, codec, clock_);
    EXPECT_TRUE(link.Connect().ok());
    std::string diagnosis;
    for (int i = 0; i < 100; ++i) {  // a handshake on loopback takes a few ms
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      diagnosis = link.HandshakeDiagnosis();
      if (!diagnosis.empty()) break;
    }
    return diagnosis;
  }

  std::string dir_, endpoint_;
  zmq::context_t context_{1};
  zmq::socket_t server_{context_, zmq::socket_type::router};
  std::unique_ptr<ZapAuthenticator> zap_;
  RealClock clock_;
};

// '#' is a Z85 digit: a key holding one is a key, not a comment (about 4
// keys in 10 hold one; this made a one-file allow-list fail at random).
TEST(CurveAllowListTest, AKeyWithAHashIsAKeyAndCommentsAreWholeLinesOrAfterABlank) {
  const std::string dir = zcrawl::testing::MakeTempDir("allow_list");
  std::string with_hash, plain;
  for (int i = 0; i < 1000 && (with_hash.empty() || plain.empty()); ++i) {
    auto pair = GenerateCurveKeyPair();
    ASSERT_TRUE(pair.ok());
    (pair->public_key.find('#') != std::string::npos ? with_hash : plain) = pair->public_key;
  }
  ASSERT_FALSE(with_hash.empty()) << "no key with a '#' in 1,000";
  const std::string path = dir + "/allow.txt";
  {
    std::ofstream out(path);
    out << "# the fetchers\n" << with_hash << "\n  " << plain << "   # fetcher-2\n\n";
  }
  auto keys = LoadCurveAllowList(path);
  ASSERT_TRUE(keys.ok()) << keys.status().message();
  EXPECT_EQ(*keys, (std::set<std::string>{with_hash, plain}));
}

TEST_F(HandshakeWatchTest, ARefusedKeyIsNamedAsSuchAndAnAllowedOneHasNothingToSay) {
  const std::string refused = DiagnosisOf("stranger", "server.pub");
  EXPECT_NE(refused.find("the frontier at " + endpoint_ + " refused our CURVE key"), std::string::npos) << refused;
  EXPECT_NE(refused.find("--curve-allow"), std::string::npos) << refused;
  EXPECT_GE(zap_->rejected(), 1u) << "the server did refuse it";

  EXPECT_EQ(DiagnosisOf("allowed", "server.pub"), "") << "the handshake completed";
  EXPECT_GE(zap_->accepted(), 1u);
}

}  // namespace
}  // namespace zcrawl
