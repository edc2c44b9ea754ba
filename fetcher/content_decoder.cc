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

// A gzip member's header (RFC 1952 2.3), read across however many pieces
// it comes in: ISA-L 2.30's own reader restarts its optional fields with
// uninitialised flags when the header is split (issue 51's review).
class GzipHeaderReader {
 public:
  void Reset() { *this = GzipHeaderReader(); }
  bool done() const { return part_ == Part::kDone; }

  // Consumes header bytes from *in; false (with *error) for a header that
  // is not gzip's.
  bool Read(std::string_view* in, std::string* error) {
    while (!in->empty() && part_ != Part::kDone) {
      const auto byte = static_cast<unsigned char>(in->front());
      in->remove_prefix(1);
      switch (part_) {
        case Part::kFixed:
          if ((fixed_ == 0 && byte != 0x1f) || (fixed_ == 1 && byte != 0x8b)) return Fail("not a gzip header", error);
          if (fixed_ == 2 && byte != 8) return Fail("unsupported compression method", error);
          if (fixed_ == 3) {
            if (byte & 0xe0) return Fail("reserved gzip flags set", error);
            flags_ = byte;
          }
          if (++fixed_ == 10) Next();
          break;
        case Part::kExtraLength:
          extra_left_ |= static_cast<size_t>(byte) << (8 * length_bytes_);
          if (++length_bytes_ == 2) part_ = extra_left_ > 0 ? Part::kExtra : Part::kExtraDone;
          if (part_ == Part::kExtraDone) Next();
          break;
        case Part::kExtra:
          if (--extra_left_ == 0) {
            part_ = Part::kExtraDone;
            Next();
          }
          break;
        case Part::kName:
        case Part::kComment:
          if (byte == 0) Next();
          break;
        case Part::kHeaderCrc:
          if (++crc_bytes_ == 2) Next();
          break;
        default:
          break;
      }
    }
    return true;
  }

 private:
  enum class Part { kFixed, kExtraLength, kExtra, kExtraDone, kName, kComment, kHeaderCrc, kDone };
  static constexpr uint8_t kFlagHeaderCrc = 2, kFlagExtra = 4, kFlagName = 8, kFlagComment = 16;

  // The next part the flags call for after the current one.
  void Next() {
    if (part_ == Part::kFixed && (flags_ & kFlagExtra)) {
      part_ = Part::kExtraLength;
    } else if (part_ <= Part::kExtraDone && (flags_ & kFlagName)) {
      part_ = Part::kName;
    } else if (part_ <= Part::kName && (flags_ & kFlagComment)) {
      part_ = Part::kComment;
    } else if (part_ <= Part::kComment && (flags_ & kFlagHeaderCrc)) {
      part_ = Part::kHeaderCrc;
    } else {
      part_ = Part::kDone;
    }
  }
  static bool Fail(const char* why, std::string* error) {
    *error = why;
    return false;
  }

  Part part_ = Part::kFixed;
  size_t fixed_ = 0;  // bytes of the fixed 10 read
  uint8_t flags_ = 0;
  size_t length_bytes_ = 0;
  size_t extra_left_ = 0;
  size_t crc_bytes_ = 0;
};

// gzip and deflate through ISA-L's igzip inflater. gzip: every member is
// decoded; what follows the first member and is not a valid member (junk
// after the end, a member cut or corrupt) is ignored, as the gzip tool
// warns and browsers render.
class InflateStage final : public Stage {
 public:
  // Not zeroed (make_unique would clear ~86 KB a response): isal_inflate_init
  // sets what the inflater reads.
  explicit InflateStage(bool gzip) : gzip_(gzip), state_(std::make_unique_for_overwrite<inflate_state>()) {
    StartStream();
  }

  // Steps until the input is taken, the output full, or no step moves:
  // the end of a member and what follows it can come in one piece.
  Step Run(std::string_view* in, char* dest, size_t room, std::string* error) override {
    size_t written = 0;
    for (;;) {
      const size_t before = in->size();
      const bool was_finished = finished_;
      const Step step = RunOnce(in, dest + written, room - written, error);
      written += step.written;
      if (step.failed) return {written, true};
      const bool moved = step.written > 0 || in->size() != before || finished_ != was_finished;
      if (in->empty() || written == room || !moved) return {written, false};
    }
  }

 private:
  Step RunOnce(std::string_view* in, char* dest, size_t room, std::string* error) {
    if (ignoring_) {
      in->remove_prefix(in->size());
      return {};
    }
    if (finished_) {
      if (in->empty()) return {};
      if (!gzip_ || static_cast<unsigned char>(in->front()) != 0x1f) return IgnoreTheRest(in);
      StartStream();
    }
    std::string why;
    if (gzip_ && !header_.done()) {
      if (!header_.Read(in, &why)) return FailOrIgnore(in, why, 0, error);
      if (!header_.done()) return {};
    }
    if (!gzip_ && !wrapper_known_) {
      // "deflate" is meant zlib-wrapped; some servers send it raw.
      const size_t take = std::min(in->size(), 2 - deflate_head_.size());
      deflate_head_.append(in->substr(0, take));
      in->remove_prefix(take);
      if (deflate_head_.size() < 2) return {};
      wrapper_known_ = true;
      state_->crc_flag = IsZlibHeader(deflate_head_[0], deflate_head_[1]) ? ISAL_ZLIB : ISAL_DEFLATE;
      std::string_view head(deflate_head_);
      const Step first = Inflate(&head, dest, room, &why);
      // Two bytes cannot fill the output, so they all went in.
      if (first.failed || !head.empty()) return FailOrIgnore(in, why.empty() ? "deflate header" : why, 0, error);
      return first;
    }
    const Step step = Inflate(in, dest, room, &why);
    return step.failed ? FailOrIgnore(in, why, step.written, error) : step;
  }

  void StartStream() {
    isal_inflate_init(state_.get());
    // The header is ours to read; ISA-L checks the trailer's CRC-32.
    if (gzip_) state_->crc_flag = ISAL_GZIP_NO_HDR_VER;
    header_.Reset();
    finished_ = false;
  }

  Step Inflate(std::string_view* in, char* dest, size_t room, std::string* why) {
    inflate_state& s = *state_;
    s.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(in->data()));
    s.avail_in = static_cast<uint32_t>(in->size());
    s.next_out = reinterpret_cast<uint8_t*>(dest);
    s.avail_out = static_cast<uint32_t>(room);
    const int code = isal_inflate(&s);
    // At a stream's end ISA-L hands back the bytes it had read ahead past
    // it by moving next_in back, possibly to before this piece (into one
    // it had earlier). Those bytes are gone here: they come after the
    // member, and are read as the start of the next one only when they
    // are in this piece (else the rest is ignored as junk: a multi-member
    // body whose boundary falls so is cut there). Found by the fuzzer.
    const auto* start = reinterpret_cast<const uint8_t*>(in->data());
    in->remove_prefix(s.next_in >= start ? static_cast<size_t>(s.next_in - start) : 0);
    const size_t written = room - s.avail_out;
    if (code != ISAL_DECOMP_OK) {
      *why = InflateErrorName(code);
      return {written, true};
    }
    if (s.block_state == ISAL_BLOCK_FINISH) {
      finished_ = true;
      ++members_;
    }
    return {written, false};
  }

  Step IgnoreTheRest(std::string_view* in) {
    ignoring_ = true;
    in->remove_prefix(in->size());
    return {};
  }

  // Corrupt data fails the body, unless a whole gzip member came before it.
  Step FailOrIgnore(std::string_view* in, const std::string& why, size_t written, std::string* error) {
    if (members_ > 0) {
      Step kept = IgnoreTheRest(in);
      kept.written = written;
      return kept;
    }
    *error = why;
    return {written, true};
  }

  const bool gzip_;
  std::unique_ptr<inflate_state> state_;  // ~86 KB: its history window
  GzipHeaderReader header_;
  size_t members_ = 0;  // gzip members decoded whole
  bool finished_ = false;
  bool ignoring_ = false;
  bool wrapper_known_ = false;
  std::string deflate_head_;  // deflate's first two bytes, until both came
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
    // "none" is not registered, but servers send it and libcurl takes it.
    if (coding.empty() || EqualsIgnoreCaseAscii(coding, "identity") || EqualsIgnoreCaseAscii(coding, "none")) {
      continue;
    }
    std::unique_ptr<Stage> stage = StageFor(coding);
    if (!stage) {
      *error = "unsupported content coding '" + std::string(coding.substr(0, 64)) + "'";
      return nullptr;
    }
    if (applied.size() == kMaxCodings) {
      *error = "more than " + std::to_string(kMaxCodings) + " content codings";
      return nullptr;
    }
    stage->chunk = std::make_unique_for_overwrite<char[]>(kChunkBytes);  // output space, not zeroed
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
  // An intermediate stage's output (the next coding's input) is normally
  // smaller than the body; far more means work that yields nothing (junk
  // a gzip stage ignores) and is stopped as too large.
  const uint64_t intermediate_bound = 2 * static_cast<uint64_t>(limit) + kChunkBytes;
  for (;;) {
    const size_t before = in.size();
    const Stage::Step step = stage.Run(&in, stage.chunk.get(), kChunkBytes, &error_);
    if (step.written > 0) {
      const Result next = Feed(index + 1, std::string_view(stage.chunk.get(), step.written), out, limit);
      if (next != Result::kOk) return next;
      stage.produced += step.written;
      if (!last && stage.produced > intermediate_bound) return Result::kFull;
    }
    if (step.failed) return Result::kError;
    // A chunk not filled: the stage holds no more output for this input.
    if (step.written < kChunkBytes && in.empty()) return Result::kOk;
    if (step.written == 0 && in.size() == before) {
      error_ = "the decoder stopped taking input";  // a stage's bug; never loop on it
      return Result::kError;
    }
  }
}

}  // namespace zcrawl::fetcher
