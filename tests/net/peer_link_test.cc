// PeerLink (the client side of the heartbeat protocol) and the codec and
// receive loop under it, over inproc:// with a FakeClock: liveness to the
// millisecond, the reconnect backoff doubling and reset, heartbeats only
// when idle, the envelope's stamps and refusals, the bounded receive.
#include "net/peer_link.h"

#include <gtest/gtest.h>

#include <thread>
#include <zmq.hpp>

#include "common/clock.h"
#include "net/envelope_codec.h"
#include "net/zmq_io.h"
#include "tests/support/inproc_peers.h"

namespace zcrawl {
namespace {

class PeerLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    settings_.name = "server";
    settings_.endpoint = zcrawl::testing::UniqueInprocEndpoint("peer-link-test");
    settings_.identity = "client-1";
    settings_.timing.heartbeat_ms = 1000;
    settings_.timing.liveness = 5;
    settings_.timing.reconnect_min_ms = 250;
    settings_.timing.reconnect_max_ms = 1000;
    server_.set(zmq::sockopt::router_handover, 1);
    server_.bind(settings_.endpoint);
    link_ = std::make_unique<PeerLink>(context_, settings_, codec_, clock_);
    ASSERT_TRUE(link_->Connect().ok());
  }

  // Envelopes the server has received so far.
  int Received() {
    int n = 0;
    for (int i = 0; i < 50; ++i) {
      InboundMessage message;
      uint64_t malformed = 0;
      ReceiveWaiting(server_, /*from_router=*/true, 100, &malformed, message, [&](InboundMessage&) {
        ++n;
        return true;
      });
      if (n > 0) return n;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // inproc delivery is asynchronous
    }
    return n;
  }

  zmq::context_t context_{1};
  zmq::socket_t server_{context_, zmq::socket_type::router};
  PeerLinkSettings settings_;
  EnvelopeCodec codec_{"client-1"};
  FakeClock clock_;
  std::unique_ptr<PeerLink> link_;
};

TEST_F(PeerLinkTest, APeerIsDeadAfterLivenessTimesTheHeartbeatOfSilenceNotBefore) {
  clock_.Advance(5000);
  EXPECT_FALSE(link_->PeerSilentTooLong());
  clock_.Advance(1);
  EXPECT_TRUE(link_->PeerSilentTooLong());
  link_->MarkSeen();
  EXPECT_FALSE(link_->PeerSilentTooLong());
}

TEST_F(PeerLinkTest, ReconnectsBackOffDoublingUpToTheMaxAndAnAnswerResetsThem) {
  clock_.Advance(6000);
  EXPECT_TRUE(link_->ReconnectIfDue()) << "the first reconnect is due after reconnect_min_ms";
  clock_.Advance(499);
  EXPECT_FALSE(link_->ReconnectIfDue()) << "then 500 ms";
  clock_.Advance(1);
  EXPECT_TRUE(link_->ReconnectIfDue());
  clock_.Advance(999);
  EXPECT_FALSE(link_->ReconnectIfDue()) << "then 1000 ms, the max";
  clock_.Advance(1);
  EXPECT_TRUE(link_->ReconnectIfDue());
  clock_.Advance(1000);
  EXPECT_TRUE(link_->ReconnectIfDue()) << "capped at the max";
  link_->MarkSeen();
  clock_.Advance(250);
  EXPECT_TRUE(link_->ReconnectIfDue()) << "an answer resets the backoff";
  // Each reconnection is a fresh socket that reaches the server.
  v1::Envelope hello;
  hello.mutable_ready()->set_role(v1::PEER_ROLE_FETCHER);
  ASSERT_TRUE(link_->Send(hello).ok());
  EXPECT_EQ(Received(), 1);
}

TEST_F(PeerLinkTest, HeartbeatsGoOnlyWhenNothingWasSentForAnInterval) {
  v1::Envelope heartbeat;
  heartbeat.mutable_heartbeat();
  link_->HeartbeatIfIdle(heartbeat);  // nothing sent yet
  EXPECT_EQ(Received(), 1);
  clock_.Advance(999);
  link_->HeartbeatIfIdle(heartbeat);
  EXPECT_EQ(Received(), 0) << "sent 999 ms ago";
  clock_.Advance(1);
  link_->HeartbeatIfIdle(heartbeat);
  EXPECT_EQ(Received(), 1);
}

TEST(EnvelopeCodecTest, StampsVersionSenderAndSequenceAndRefusesWhatIsNotAnEnvelope) {
  EnvelopeCodec codec("writer-1-abcd");
  v1::Envelope first;
  first.mutable_heartbeat();
  v1::Envelope second = first;
  auto a = EnvelopeCodec::Decode(codec.Encode(first));
  auto b = EnvelopeCodec::Decode(codec.Encode(second));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->sender_id(), "writer-1-abcd");
  EXPECT_EQ(a->protocol_version(), static_cast<uint32_t>(v1::PROTOCOL_VERSION_CURRENT));
  EXPECT_EQ(b->sequence(), a->sequence() + 1);
  EXPECT_FALSE(EnvelopeCodec::Decode("not a protobuf \xff\xff\xff").ok());
  v1::Envelope other_version = first;
  other_version.set_protocol_version(7);
  EXPECT_FALSE(EnvelopeCodec::Decode(other_version.SerializeAsString()).ok());
  v1::Envelope empty;
  empty.set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
  EXPECT_FALSE(EnvelopeCodec::Decode(empty.SerializeAsString()).ok()) << "no payload";
  EXPECT_FALSE(EnvelopeCodec::Decode(std::string(kMaxEnvelopeBytes + 1, '\0')).ok()) << "too large";
}

TEST(ReceiveWaitingTest, TakesAtMostMaxAndStopsWhenTheHandlerSaysSo) {
  zmq::context_t context(1);
  zmq::socket_t server(context, zmq::socket_type::router);
  const std::string endpoint = zcrawl::testing::UniqueInprocEndpoint("peer-link-test");
  server.bind(endpoint);
  zmq::socket_t client(context, zmq::socket_type::dealer);
  client.connect(endpoint);
  for (int i = 0; i < 5; ++i) client.send(zmq::buffer("m" + std::to_string(i)), zmq::send_flags::none);
  zmq::pollitem_t item{server.handle(), 0, ZMQ_POLLIN, 0};
  zmq::poll(&item, 1, std::chrono::milliseconds(1000));
  InboundMessage message;
  uint64_t malformed = 0;
  std::vector<std::string> got;
  ReceiveWaiting(server, true, 3, &malformed, message, [&](InboundMessage& m) {
    got.emplace_back(m.payload);
    return true;
  });
  EXPECT_EQ(got, (std::vector<std::string>{"m0", "m1", "m2"}));
  ReceiveWaiting(server, true, 100, &malformed, message, [&](InboundMessage& m) {
    got.emplace_back(m.payload);
    return false;  // one, then stop
  });
  EXPECT_EQ(got.back(), "m3");
  ReceiveWaiting(server, true, 100, &malformed, message, [&](InboundMessage& m) {
    got.emplace_back(m.payload);
    return true;
  });
  EXPECT_EQ(got.back(), "m4");
  EXPECT_EQ(got.size(), 5u);
  EXPECT_EQ(malformed, 0u);
}

}  // namespace
}  // namespace zcrawl
