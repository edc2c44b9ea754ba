// Endpoint lists: `--bind A,B` binds one socket on several transports
// (./run crawl serves its own fetchers over a Unix socket and tools over
// TCP), and a list counts as local only when every endpoint in it is.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "net/curve_keys.h"
#include "net/loopback_port.h"
#include "net/zmq_io.h"

namespace zcrawl {
namespace {

// A ZeroMQ failure's code says what to do next (issue 48 point 6): out of
// descriptors is not a configuration error.
TEST(ZmqErrorStatusTest, CodesSayWhetherToBackOffRetryOrFixTheConfiguration) {
  EXPECT_EQ(ZmqErrorStatus(EMFILE, "x").code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(ZmqErrorStatus(ENOMEM, "x").code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(ZmqErrorStatus(EACCES, "x").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(ZmqErrorStatus(EINVAL, "x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ZmqErrorStatus(EPROTONOSUPPORT, "x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ZmqErrorStatus(EHOSTUNREACH, "x").code(), StatusCode::kUnavailable);
  EXPECT_EQ(ZmqErrorStatus(EADDRINUSE, "bind").message(), "bind (address in use)");
  // And a real one: a transport ZeroMQ does not have.
  zmq::context_t context;
  auto socket = MakeSocket(context, zmq::socket_type::dealer);
  ASSERT_TRUE(socket.ok());
  EXPECT_EQ(Bind(*socket, "nosuch://x").code(), StatusCode::kInvalidArgument);
}

TEST(EndpointListTest, SplitsOnCommasAndDropsEmptyItems) {
  EXPECT_EQ(SplitEndpoints("tcp://127.0.0.1:1"), (std::vector<std::string>{"tcp://127.0.0.1:1"}));
  EXPECT_EQ(SplitEndpoints("ipc://@a,tcp://127.0.0.1:2"),
            (std::vector<std::string>{"ipc://@a", "tcp://127.0.0.1:2"}));
  EXPECT_EQ(SplitEndpoints(",ipc://@a,,"), (std::vector<std::string>{"ipc://@a"}));
  EXPECT_TRUE(SplitEndpoints("").empty());
}

TEST(EndpointListTest, AListIsLocalOnlyWhenEveryEndpointIs) {
  EXPECT_TRUE(IsLocalOnlyEndpoint("tcp://127.0.0.1:5570"));
  EXPECT_TRUE(IsLocalOnlyEndpoint("ipc://@zcrawl-writer-1,tcp://127.0.0.1:5571"));
  EXPECT_TRUE(IsLocalOnlyEndpoint("tcp://[::1]:5571,inproc://x"));
  // One endpoint anyone can reach makes the whole socket reachable: it
  // needs CURVE or --insecure, wherever it sits in the list.
  EXPECT_FALSE(IsLocalOnlyEndpoint("ipc://@zcrawl-writer-1,tcp://0.0.0.0:5571"));
  EXPECT_FALSE(IsLocalOnlyEndpoint("tcp://10.0.0.5:5571,ipc://@x"));
  EXPECT_FALSE(IsLocalOnlyEndpoint(""));
  EXPECT_FALSE(IsLocalOnlyEndpoint(","));
}

TEST(EndpointListTest, OneSocketServesPeersOnEveryListedEndpoint) {
  zmq::context_t context;
  zmq::socket_t router(context, zmq::socket_type::router);
  const uint16_t port = FreeLoopbackPort();
  const std::string ipc = "ipc://@zcrawl-endpoint-list-test-" + std::to_string(getpid());
  const std::string tcp = "tcp://127.0.0.1:" + std::to_string(port);
  ASSERT_TRUE(Bind(router, ipc + "," + tcp).ok());

  zmq::socket_t over_ipc(context, zmq::socket_type::dealer);
  zmq::socket_t over_tcp(context, zmq::socket_type::dealer);
  over_ipc.connect(ipc);
  over_tcp.connect(tcp);
  over_ipc.send(zmq::str_buffer("from ipc"), zmq::send_flags::none);
  over_tcp.send(zmq::str_buffer("from tcp"), zmq::send_flags::none);

  router.set(zmq::sockopt::rcvtimeo, 5000);
  std::vector<std::string> got;
  for (int i = 0; i < 2; ++i) {
    zmq::message_t identity;
    zmq::message_t payload;
    ASSERT_TRUE(router.recv(identity));
    ASSERT_TRUE(router.recv(payload));
    got.push_back(payload.to_string());
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"from ipc", "from tcp"}));
}

TEST(EndpointListTest, ABadEndpointInTheListIsNamedInTheError) {
  zmq::context_t context;
  zmq::socket_t router(context, zmq::socket_type::router);
  const Status s = Bind(router, "inproc://fine,nonsense://x");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("nonsense://x"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace zcrawl
