// Fault injection, messages: while a real crawl runs, a raw ZeroMQ DEALER
// and a raw TCP socket send garbage to the frontier's and the writer's
// ports: random bytes, empty and truncated protobufs, lying length
// prefixes, invalid UTF-8 in string fields, wrong and unknown protocol
// versions, unknown and wrong message types, multipart frames, and one
// frame over the 64 MiB limit. Each dropped message must be counted
// (StatusReply.malformed_messages, then the summary), the over-size frame
// must cost its sender the connection, and the crawl must still complete
// with every page stored once.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zmq.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "net/envelope_codec.h"
#include "tests/faults/fault_support.h"
#include "tests/support/served_site_test.h"
#include "tests/support/generated_site.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"
#include "zcrawl.pb.h"

namespace zcrawl::testing {
namespace {

constexpr int kPages = 300;

// A DEALER that sends whatever bytes it is given: no size limit of its own,
// so it can send a frame the receiver must refuse.
class RawDealer {
 public:
  RawDealer(zmq::context_t& context, const std::string& endpoint, const std::string& routing_id)
      : socket_(context, zmq::socket_type::dealer) {
    socket_.set(zmq::sockopt::routing_id, routing_id);
    // Closing must not discard what is still queued: the garbage has to
    // arrive. Bounded, so a dead peer cannot hang the test.
    socket_.set(zmq::sockopt::linger, 5000);
    socket_.connect(endpoint);
  }

  void Send(const std::string& bytes) { socket_.send(zmq::buffer(bytes), zmq::send_flags::none); }
  void SendFrames(const std::vector<std::string>& frames) {
    for (size_t i = 0; i < frames.size(); ++i) {
      socket_.send(zmq::buffer(frames[i]),
                   i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    }
  }

  // The next envelope the receiver sends whose payload is `wanted`, within
  // `timeout_ms`; others (heartbeats) are skipped.
  std::optional<v1::Envelope> Expect(v1::Envelope::PayloadCase wanted, int timeout_ms) {
    const int64_t deadline = SteadyNowMs() + timeout_ms;
    while (SteadyNowMs() < deadline) {
      zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
      zmq::poll(&item, 1, std::chrono::milliseconds(50));
      if (!(item.revents & ZMQ_POLLIN)) continue;
      zmq::message_t message;
      if (!socket_.recv(message, zmq::recv_flags::dontwait)) continue;
      v1::Envelope envelope;
      if (envelope.ParseFromArray(message.data(), static_cast<int>(message.size())) &&
          envelope.payload_case() == wanted) {
        return envelope;
      }
    }
    return std::nullopt;
  }

  zmq::socket_t& socket() { return socket_; }

 private:
  zmq::socket_t socket_;
};

std::string Encoded(v1::Envelope envelope, const std::string& sender = "fault-test") {
  EnvelopeCodec codec(sender);
  return codec.Encode(envelope);
}

// Bytes a receiver cannot decode, each one message. Every one must be
// counted as malformed, whoever sends it.
std::vector<std::string> UndecodableMessages() {
  std::vector<std::string> out;
  std::mt19937 random(20240601);
  for (size_t size : {1, 7, 100, 4096, 70000}) {
    std::string bytes(size, '\0');
    for (char& c : bytes) c = static_cast<char>(random() & 0xFF);
    out.push_back(bytes);
  }
  out.push_back("");  // parses as an empty envelope: version 0, no payload
  v1::Envelope ready;
  ready.mutable_ready()->set_role(v1::PEER_ROLE_FETCHER);
  ready.mutable_ready()->set_hostname(std::string(200, 'h'));
  const std::string whole = Encoded(ready);
  out.push_back(whole.substr(0, whole.size() / 2));  // truncated
  out.push_back(whole.substr(0, whole.size() - 1));  // one byte short
  // Field 16 (page) announcing a 4 GiB body that is not there.
  out.push_back(std::string("\x08\x01\x82\x01\xff\xff\xff\xff\x0f", 9));
  // A varint that never ends.
  out.push_back(std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 12));
  for (uint32_t version : {0u, 2u, 999u}) {  // other protocol versions
    v1::Envelope envelope;
    envelope.mutable_heartbeat();
    std::string bytes = Encoded(envelope);
    envelope.ParseFromString(bytes);
    envelope.set_protocol_version(version);
    out.push_back(envelope.SerializeAsString());
  }
  // A message type from the future: version 1, only an unknown field 99.
  out.push_back(std::string("\x08\x01\x9a\x06\x03" "abc", 8));
  // Invalid UTF-8 in a proto3 string field (sender_id).
  v1::Envelope heartbeat;
  heartbeat.mutable_heartbeat();
  std::string valid = Encoded(heartbeat, "fault-XX");
  const size_t at = valid.find("fault-XX");
  valid[at + 6] = '\xff';
  valid[at + 7] = '\xfe';
  out.push_back(valid);
  return out;
}

// Valid envelopes of types the receiver never accepts from a fetcher.
std::vector<std::string> WrongTypeMessages() {
  std::vector<std::string> out;
  v1::Envelope batch;
  batch.mutable_work_batch()->add_items()->set_url("http://127.0.0.1:1/forged");
  out.push_back(Encoded(batch));
  v1::Envelope ack;
  ack.mutable_page_ack()->set_page_id("x/1");
  out.push_back(Encoded(ack));
  v1::Envelope shutdown;
  shutdown.mutable_shutdown()->set_reason("forged shutdown");
  out.push_back(Encoded(shutdown));
  v1::Envelope reply;
  reply.mutable_status_reply()->set_done(12345);
  out.push_back(Encoded(reply));
  v1::Envelope reject;
  reject.mutable_reject()->set_reason("forged reject");
  out.push_back(Encoded(reject));
  return out;
}

class BadMessagesTest : public ServedSiteTest {
 protected:
  BadMessagesTest() : ServedSiteTest(kPages, "bad-messages") {}

  void SetUp() override {
    ServedSiteTest::SetUp();
    frontier_ep_ = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
    writer_ep_ = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  }

  // Asks `endpoint` for its status on a fresh connection.
  std::optional<v1::StatusReply> Status(const std::string& endpoint) {
    RawDealer tool(context_, endpoint, "status-" + std::to_string(++status_queries_));
    v1::Envelope request;
    request.mutable_status_request();
    tool.Send(Encoded(request));
    auto reply = tool.Expect(v1::Envelope::kStatusReply, 5000);
    if (!reply) return std::nullopt;
    return reply->status_reply();
  }

  // Messages from different connections arrive in any order: poll the
  // counter until it reaches `want` (or time runs out), then return it.
  uint64_t MalformedOnceAtLeast(const std::string& endpoint, uint64_t want) {
    uint64_t seen = 0;
    const int64_t deadline = SteadyNowMs() + 10000;
    while (SteadyNowMs() < deadline) {
      auto status = Status(endpoint);
      if (status) {
        seen = status->malformed_messages();
        if (seen >= want) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return seen;
  }

  // A 65 MiB frame: over kMaxEnvelopeBytes, so ZeroMQ must drop the
  // sender's connection before the application sees a byte. Seen through a
  // socket monitor on the sender.
  void ExpectOversizeFrameCostsTheConnection(const std::string& endpoint, const std::string& name) {
    RawDealer big(context_, endpoint, "oversize-" + name);
    const std::string monitor = "inproc://monitor-" + name;
    ASSERT_EQ(zmq_socket_monitor(big.socket().handle(), monitor.c_str(), ZMQ_EVENT_DISCONNECTED), 0);
    zmq::socket_t events(context_, zmq::socket_type::pair);
    events.set(zmq::sockopt::linger, 0);
    events.connect(monitor);
    big.Send(std::string(static_cast<size_t>(kMaxEnvelopeBytes) + (1 << 20), 'z'));
    bool disconnected = false;
    const int64_t deadline = SteadyNowMs() + 20000;
    while (!disconnected && SteadyNowMs() < deadline) {
      zmq::pollitem_t item{events.handle(), 0, ZMQ_POLLIN, 0};
      zmq::poll(&item, 1, std::chrono::milliseconds(50));
      if (!(item.revents & ZMQ_POLLIN)) continue;
      zmq::message_t event, address;
      if (!events.recv(event, zmq::recv_flags::dontwait)) continue;
      (void)events.recv(address, zmq::recv_flags::none);
      uint16_t id = 0;
      if (event.size() >= sizeof id) memcpy(&id, event.data(), sizeof id);
      disconnected = id == ZMQ_EVENT_DISCONNECTED;
    }
    EXPECT_TRUE(disconnected) << name << " kept the connection of a peer that sent a 65 MiB frame";
    zmq_socket_monitor(big.socket().handle(), nullptr, 0);
    big.socket().set(zmq::sockopt::linger, 0);  // never resend the giant
  }

  // Garbage straight over TCP, not ZeroMQ at all: random bytes and an HTTP
  // request. libzmq's handshake deals with it; the process must not notice.
  static void SendRawTcp(const std::string& endpoint) {
    const int port = std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
    std::mt19937 random(7);
    for (int round = 0; round < 3; ++round) {
      const int fd = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(static_cast<uint16_t>(port));
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
      std::string bytes;
      if (round == 0) {
        bytes = "GET / HTTP/1.1\r\nHost: zcrawl\r\n\r\n";
      } else {
        bytes.resize(round == 1 ? 16 : 8192);
        for (char& c : bytes) c = static_cast<char>(random() & 0xFF);
      }
      (void)send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      close(fd);
    }
  }

  zmq::context_t context_{1};
  std::string frontier_ep_;
  std::string writer_ep_;
  int status_queries_ = 0;
};

TEST_F(BadMessagesTest, GarbageOnBothPortsIsCountedAndTheCrawlStillCompletes) {
  TestProcess frontier, writer, fetcher;
  // One request at a time, 30 ms apart: the crawl lasts long enough
  // (>= 9 s) for every kind of garbage to arrive mid-crawl.
  frontier.Start({BinDir() + "/zcrawl-frontier", "--bind", frontier_ep_, "--delay-ms", "30",
                  "--per-host", "1", "--heartbeat-ms", "200", "--liveness", "25",
                  "--summary-file", dir_ + "/summary.json", server_->origin() + "/"},
                 dir_ + "/frontier.log");
  writer.Start({BinDir() + "/zcrawl-writer", "--bind", writer_ep_, "--frontier", frontier_ep_,
                "--out", dir_ + "/out", "--heartbeat-ms", "200"},
               dir_ + "/writer.log");
  fetcher.Start({BinDir() + "/zcrawl-fetcher", "--frontier", frontier_ep_, "--writer", writer_ep_,
                 "--threads", "4", "--heartbeat-ms", "200", "--liveness", "25"},
                dir_ + "/fetcher.log");
  auto before = Status(frontier_ep_);
  ASSERT_TRUE(before.has_value()) << ReadFile(dir_ + "/frontier.log");
  ASSERT_EQ(before->malformed_messages(), 0u);
  ASSERT_TRUE(Status(writer_ep_).has_value()) << ReadFile(dir_ + "/writer.log");

  const auto undecodable = UndecodableMessages();
  const auto wrong_types = WrongTypeMessages();
  uint64_t frontier_expected = 0, writer_expected = 0;

  // 1. Undecodable bytes and a multipart message from a stranger.
  for (const auto& [endpoint, expected] :
       {std::pair{frontier_ep_, &frontier_expected}, std::pair{writer_ep_, &writer_expected}}) {
    RawDealer stranger(context_, endpoint, "stranger");
    for (const auto& bytes : undecodable) stranger.Send(bytes);
    stranger.SendFrames({"two", "frames"});
    *expected += undecodable.size() + 1;
  }

  // 2. Wrong message types. A stranger gets Reject from the frontier
  // ("send ready first"), nothing else; a registered fetcher's wrong
  // types are counted. The writer counts them from anyone.
  {
    RawDealer stranger(context_, frontier_ep_, "stranger-typed");
    stranger.Send(wrong_types[0]);
    EXPECT_TRUE(stranger.Expect(v1::Envelope::kReject, 5000).has_value())
        << "the frontier did not answer a stranger's work batch with Reject";
    RawDealer rogue(context_, frontier_ep_, "rogue-fetcher");
    v1::Envelope ready;
    ready.mutable_ready()->set_role(v1::PEER_ROLE_FETCHER);
    ready.mutable_ready()->set_threads(1);
    rogue.Send(Encoded(ready, "rogue-fetcher"));
    for (const auto& bytes : wrong_types) rogue.Send(bytes);
    frontier_expected += wrong_types.size();
    v1::Envelope goodbye;
    goodbye.mutable_goodbye()->set_reason("done misbehaving");
    rogue.Send(Encoded(goodbye, "rogue-fetcher"));
    ASSERT_TRUE(rogue.Expect(v1::Envelope::kHeartbeat, 5000).has_value());

    RawDealer writer_rogue(context_, writer_ep_, "writer-rogue");
    for (const auto& bytes : wrong_types) writer_rogue.Send(bytes);
    writer_expected += wrong_types.size();
    v1::Envelope request;
    request.mutable_work_request()->set_credit(5);
    writer_rogue.Send(Encoded(request));
    ++writer_expected;
  }

  // Counted exactly: every message above, nothing more.
  EXPECT_EQ(MalformedOnceAtLeast(frontier_ep_, frontier_expected), frontier_expected)
      << ReadFile(dir_ + "/frontier.log");
  EXPECT_EQ(MalformedOnceAtLeast(writer_ep_, writer_expected), writer_expected)
      << ReadFile(dir_ + "/writer.log");

  // 3. Over the size limit: dropped by ZeroMQ with the connection.
  ExpectOversizeFrameCostsTheConnection(frontier_ep_, "frontier");
  ExpectOversizeFrameCostsTheConnection(writer_ep_, "writer");

  // 4. Not ZeroMQ at all.
  SendRawTcp(frontier_ep_);
  SendRawTcp(writer_ep_);

  // Both still answer, and the crawl was not over before the garbage ended.
  auto during = Status(frontier_ep_);
  ASSERT_TRUE(during.has_value()) << "frontier stopped answering\n" << ReadFile(dir_ + "/frontier.log");
  EXPECT_FALSE(during->finished()) << "the crawl ended before the garbage did: test too fast";
  EXPECT_GE(during->malformed_messages(), frontier_expected);
  auto writer_during = Status(writer_ep_);
  ASSERT_TRUE(writer_during.has_value()) << "writer stopped answering\n" << ReadFile(dir_ + "/writer.log");
  EXPECT_GE(writer_during->malformed_messages(), writer_expected);

  // The crawl completes: each process exits 0, every page stored once.
  auto code = frontier.Wait(120000);
  ASSERT_TRUE(code.has_value()) << ReadFile(dir_ + "/frontier.log");
  EXPECT_EQ(*code, 0) << ReadFile(dir_ + "/frontier.log");
  EXPECT_EQ(fetcher.Wait(15000).value_or(-1), 0) << ReadFile(dir_ + "/fetcher.log");
  EXPECT_EQ(writer.Wait(15000).value_or(-1), 0) << ReadFile(dir_ + "/writer.log");
  ExpectEveryPageStoredOnce(dir_ + "/out");
  EXPECT_EQ(server_->requests_for("/forged"), 0u);

  // The summary carries the same count.
  const auto summary = nlohmann::json::parse(ReadFile(dir_ + "/summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded());
  EXPECT_GE(summary["malformed_messages"].get<uint64_t>(), frontier_expected);
}

}  // namespace
}  // namespace zcrawl::testing
