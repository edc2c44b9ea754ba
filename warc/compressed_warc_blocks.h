// WarcBlock (proto): the blocks of a page's WARC records (response,
// request, metadata), compressed by the fetcher that fetched the page, for
// the writer to wrap in its records.
//
// Why: there is one writer and there are many fetchers. Deflate and the
// blocks' SHA-1 were most of the writer's CPU per page (igzip 44%, SHA-1
// 12% of its samples), bounding the whole crawl's storage rate by one
// machine's cores. Done by the fetchers, they scale with them; the writer
// is left with its WARC headers, copies and a CRC-32 combine per record.
// A fetcher adds the blocks only when the writer asked for them
// (Heartbeat.writer_wants); the writer puts its WARC header in front of
// each, so record ids, dates and file rotation stay the writer's.
//
// Thread-safety: pure functions; the compressor passed in is the caller's
// (one per thread).
#pragma once

#include "warc/gzip_member.h"
#include "common/status.h"
#include "zcrawl.pb.h"

namespace zcrawl {

// Sets page.warc_response, warc_request and (for a page with links)
// warc_metadata, compressed by `compressor` (its level is the writer's
// ask). The blocks are those of warc/warc_blocks.h (the response's is
// WarcHttpResponseHead then the body), exactly what the writer would store
// itself; each stream covers its block followed by kWarcRecordEnd. Fails
// only when SHA-1 or the compressor does, and then sets none of them.
Status AddWarcBlocks(v1::Page& page, GzipMemberCompressor& compressor);

// Whether a writer can use `block` as sent: a 20-byte block_sha1, a
// non-empty stream and block, and a block no larger than DEFLATE can make
// of that stream (1032:1 at most). Anything else is ignored and the writer
// builds the block from the body.
bool IsUsableWarcBlock(const v1::WarcBlock& block);
// The same, with the block's bytes held apart from it (writer/page_payload.h).
bool IsUsableWarcBlock(const v1::WarcBlock& block, std::string_view deflate);

// Whether the page came without its body (WriterWants.omit_body): an empty
// body where body_length says there was one.
bool BodyWasOmitted(const v1::Page& page);

// Puts the body back into a page whose fetcher omitted it, from its
// warc_response: inflates the stream (libdeflate), checks its size and
// CRC-32 against the message, and takes the block's last body_length bytes,
// which must follow the head's blank line. InvalidArgument when any of that
// does not hold: the page cannot be stored as sent.
Status RestoreOmittedBody(v1::Page& page);

}  // namespace zcrawl
