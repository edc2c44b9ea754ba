// Fuzz target of message decoding (net/envelope_codec.h): any bytes, as a
// process receives them from the network. Decode must refuse what is not a
// valid envelope and never crash; an envelope it accepts must encode again
// and decode to the same message (the same bytes once more) (what a relay or a replaced writer relies
// on). Every payload type is a field of Envelope, so every message's
// decoding is reached from here.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <google/protobuf/stubs/logging.h>

#include "net/envelope_codec.h"

// protobuf logs each string field that is not UTF-8 as it refuses it:
// silence that here, it would be most of the run's time.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto decoded = zcrawl::EnvelopeCodec::Decode(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!decoded.ok()) return 0;
  (void)zcrawl::PayloadName(*decoded);
  std::string bytes;
  if (!decoded->SerializeToString(&bytes)) abort();
  // Compared as bytes: a double field may hold a NaN, never equal to itself.
  auto again = zcrawl::EnvelopeCodec::Decode(bytes);
  if (!again.ok() || again->SerializeAsString() != bytes) abort();
  return 0;
}
