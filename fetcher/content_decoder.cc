#include "fetcher/content_decoder.h"

#include <brotli/decode.h>
#include <isa-l/igzip_lib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>

#include "common/ascii.h"

namespace zcrawl::fetcher {

// One coding's decoder. Run consumes from *in and writes at most `room`
// bytes at `dest`; it returns how many, or failed with *error set. Bytes it
// will never decode (after the stream's end) it consumes and drops.
class ContentDecoder::Stage {
 public:
  struct Step {
    size_t written = 0;
    bool failed = false;
  };
  virtual ~Stage() = default;
  virtual Step Run(std::string_view* in, char* dest, size_t room, std::string* error) = 0;

  uint64_t produced = 0;  // bytes written so far, for the bound on intermediate stages
  std::unique_ptr<char[]> chunk;  // this stage's output, before the next stage takes it
};

namespace {

// Output is taken in chunks of this size: the libraries' own window-sized
// steps, and small enough that a bomb stops within one chunk of the limit.
constexpr size_t kChunkBytes = 64 * 1024;

// RFC 8878's bound for a decoder's window (8 MiB).
constexpr int kZstdWindowLogMax = 23;

using Stage = ContentDecoder::Stage;

const char* InflateErrorName(int code) {
  switch (code) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid deflate distance";
    case ISAL_INVALID_WRAPPER: return "invalid gzip or zlib header";
    case ISAL_UNSUPPORTED_METHOD: return "unsupported compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect checksum";
    case ISAL_NEED_DICT: return "needs a preset dictionary";
    default: return "inflate failed";
  }
}

// A zlib header (RFC 1950): DEFLATE with a window of at most 32 KiB, and
// the two bytes a multiple of 31.
bool IsZlibHeader(unsigned char cmf, unsigned char flg) {
  return (cmf & 0x0f) == 8 && (cmf >> 4) <= 7 && ((cmf << 8) | flg) % 31 == 0;
}

// gzip (every member) and deflate through ISA-L's igzip inflater.
class InflateStage final : public Stage {
 public:
  explicit InflateStage(bool gzip) : gzip_(gzip), state_(std::make_unique<inflate_state>()) {
    isal_inflate_init(state_.get());
    if (gzip_) state_->crc_flag = ISAL_GZIP;
  }

  Step Run(std::string_view* in, char* dest, size_t room, std::string* error) override {
    if (finished_) {
      const bool next_member = gzip_ && !in->empty() && static_cast<unsigned char>((*in)[0]) == 0x1f &&
                               (in->size() == 1 || static_cast<unsigned char>((*in)[1]) == 0x8b);
      if (!next_member) {
        in->remove_prefix(in->size());  // after the stream: ignored
        return {};
      }
      isal_inflate_init(state_.get());
      state_->crc_flag = ISAL_GZIP;
      finished_ = false;
    }
    if (!gzip_ && !wrapper_known_) {
      // "deflate" is meant zlib-wrapped; some servers send it raw.
      const size_t take = std::min(in->size(), 2 - header_.size());
      header_.append(in->substr(0, take));
      in->remove_prefix(take);
      if (header_.size() < 2) return {};
      wrapper_known_ = true;
      state_->crc_flag = IsZlibHeader(header_[0], header_[1]) ? ISAL_ZLIB : ISAL_DEFLATE;
      std::string_view head(header_);
      Step first = Inflate(&head, dest, room, error);
      if (first.failed || !head.empty()) {
        // The header's bytes did not all go in: only when output is full,
        // which two header bytes cannot do. Treat as corrupt, not lost.
        if (!first.failed) *error = "deflate header not consumed";
        return {0, true};
      }
      return first;
    }
    return Inflate(in, dest, room, error);
  }

 private:
  Step Inflate(std::string_view* in, char* dest, size_t room, std::string* error) {
    inflate_state& s = *state_;
    s.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(in->data()));
    s.avail_in = static_cast<uint32_t>(in->size());
    s.next_out = reinterpret_cast<uint8_t*>(dest);
    s.avail_out = static_cast<uint32_t>(room);
    const int code = isal_inflate(&s);
    in->remove_prefix(in->size() - s.avail_in);
    const size_t written = room - s.avail_out;
    if (code != ISAL_DECOMP_OK) {
      *error = InflateErrorName(code);
      return {written, true};
    }
    if (s.block_state == ISAL_BLOCK_FINISH) finished_ = true;
    return {written, false};
  }

  const bool gzip_;
  std::unique_ptr<inflate_state> state_;  // ~80 KB: its history window
  bool finished_ = false;
  bool wrapper_known_ = false;
  std::string header_;  // deflate's first two bytes, until both came
};

class BrotliStage final : public Stage {
 public:
  BrotliStage() : state_(BrotliDecoderCreateInstance(nullptr, nullptr, nullptr)) {}
  ~BrotliStage() override { BrotliDecoderDestroyInstance(state_); }

  Step Run(std::string_view* in, char* dest, size_t room, std::string* error) override {
    if (!state_) {
      *error = "brotli decoder could not be made";
      return {0, true};
    }
    if (finished_) {
      in->remove_prefix(in->size());
      return {};
    }
    size_t avail_in = in->size();
    const auto* next_in = reinterpret_cast<const uint8_t*>(in->data());
    size_t avail_out = room;
    auto* next_out = reinterpret_cast<uint8_t*>(dest);
    const BrotliDecoderResult result =
        BrotliDecoderDecompressStream(state_, &avail_in, &next_in, &avail_out, &next_out, nullptr);
    in->remove_prefix(in->size() - avail_in);
    const size_t written = room - avail_out;
    if (result == BROTLI_DECODER_RESULT_ERROR) {
      *error = std::string("brotli: ") + BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state_));
      return {written, true};
    }
    if (result == BROTLI_DECODER_RESULT_SUCCESS) finished_ = true;
    return {written, false};
  }

 private:
  BrotliDecoderState* state_;
  bool finished_ = false;
};

class ZstdStage final : public Stage {
 public:
  ZstdStage() : context_(ZSTD_createDCtx()) {
    if (context_) ZSTD_DCtx_setParameter(context_, ZSTD_d_windowLogMax, kZstdWindowLogMax);
  }
  ~ZstdStage() override { ZSTD_freeDCtx(context_); }

  Step Run(std::string_view* in, char* dest, size_t room, std::string* error) override {
    if (!context_) {
      *error = "zstd decoder could not be made";
      return {0, true};
    }
    ZSTD_inBuffer input{in->data(), in->size(), 0};
    ZSTD_outBuffer output{dest, room, 0};
    const size_t code = ZSTD_decompressStream(context_, &output, &input);
    in->remove_prefix(input.pos);
    if (ZSTD_isError(code)) {
      *error = std::string("zstd: ") + ZSTD_getErrorName(code);
      return {output.pos, true};
    }
    return {output.pos, false};
  }

 private:
  ZSTD_DCtx* context_;
};

std::unique_ptr<Stage> StageFor(std::string_view coding) {
  if (EqualsIgnoreCaseAscii(coding, "gzip") || EqualsIgnoreCaseAscii(coding, "x-gzip")) {
    return std::make_unique<InflateStage>(true);
  }
  if (EqualsIgnoreCaseAscii(coding, "deflate")) return std::make_unique<InflateStage>(false);
  if (EqualsIgnoreCaseAscii(coding, "br")) return std::make_unique<BrotliStage>();
  if (EqualsIgnoreCaseAscii(coding, "zstd")) return std::make_unique<ZstdStage>();
  return nullptr;
}

}  // namespace

ContentDecoder::ContentDecoder() = default;
ContentDecoder::~ContentDecoder() = default;

std::unique_ptr<ContentDecoder> ContentDecoder::ForCodings(std::string_view codings, std::string* error) {
  std::unique_ptr<ContentDecoder> decoder(new ContentDecoder());
  std::vector<std::unique_ptr<Stage>> applied;  // in the order the server applied them
  while (!codings.empty()) {
    const size_t comma = codings.find(',');
    const std::string_view coding = TrimHttpFieldWhitespace(codings.substr(0, comma));
    codings = comma == std::string_view::npos ? std::string_view() : codings.substr(comma + 1);
    if (coding.empty() || EqualsIgnoreCaseAscii(coding, "identity")) continue;
    std::unique_ptr<Stage> stage = StageFor(coding);
    if (!stage) {
      *error = "unsupported content coding '" + std::string(coding.substr(0, 64)) + "'";
      return nullptr;
    }
    if (applied.size() == kMaxCodings) {
      *error = "more than " + std::to_string(kMaxCodings) + " content codings";
      return nullptr;
    }
    stage->chunk = std::make_unique<char[]>(kChunkBytes);
    applied.push_back(std::move(stage));
  }
  decoder->stages_.assign(std::make_move_iterator(applied.rbegin()), std::make_move_iterator(applied.rend()));
  return decoder;
}

ContentDecoder::Result ContentDecoder::Decode(std::string_view in, std::string* out, size_t limit) {
  return Feed(0, in, out, limit);
}

ContentDecoder::Result ContentDecoder::Feed(size_t index, std::string_view in, std::string* out, size_t limit) {
  if (index == stages_.size()) {
    const size_t room = limit - std::min(limit, out->size());
    out->append(in.data(), std::min(room, in.size()));
    return in.size() > room ? Result::kFull : Result::kOk;
  }
  Stage& stage = *stages_[index];
  const bool last = index + 1 == stages_.size();
  for (;;) {
    const size_t before = in.size();
    const Stage::Step step = stage.Run(&in, stage.chunk.get(), kChunkBytes, &error_);
    if (step.written > 0) {
      stage.produced += step.written;
      if (!last && stage.produced > limit) return Result::kFull;
      const Result next = Feed(index + 1, std::string_view(stage.chunk.get(), step.written), out, limit);
      if (next != Result::kOk) return next;
    }
    if (step.failed) return Result::kError;
    // A chunk not filled means the stage holds no more output for this
    // input; no progress at all means it is waiting for more input.
    if (step.written < kChunkBytes && (in.empty() || (in.size() == before && step.written == 0))) {
      return Result::kOk;
    }
  }
}

}  // namespace zcrawl::fetcher
