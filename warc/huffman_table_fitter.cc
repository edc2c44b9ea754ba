#include "warc/huffman_table_fitter.h"

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <climits>
#include <cstring>

namespace zcrawl {

HuffmanTableFitter::HuffmanTableFitter()
    : histogram_(std::make_unique<isal_huff_histogram>()), tables_(std::make_unique<isal_hufftables>()) {
  std::memset(histogram_.get(), 0, sizeof(isal_huff_histogram));
}

HuffmanTableFitter::~HuffmanTableFitter() = default;

const isal_hufftables* HuffmanTableFitter::tables() const { return fits_ > 0 ? tables_.get() : nullptr; }

void HuffmanTableFitter::Observe(std::string_view record) {
  const uint64_t index = records_++;
  if (fits_ > 0 && index % kSampleEveryRecords != 0) return;
  // Histograms take an int length; a sample of a huge record's head is enough.
  const int length = static_cast<int>(std::min<size_t>(record.size(), INT_MAX / 2));
  // isal takes a non-const pointer but only reads through it.
  isal_update_histogram(reinterpret_cast<uint8_t*>(const_cast<char*>(record.data())), length,
                        histogram_.get());
  sampled_since_fit_ += static_cast<uint64_t>(length);
  if (sampled_since_fit_ >= (fits_ == 0 ? kFirstFitBytes : kRefitBytes)) Fit();
}

void HuffmanTableFitter::Fit() {
  sampled_since_fit_ = 0;
  // Built aside so a failed build leaves the tables in use intact.
  auto fitted = std::make_unique<isal_hufftables>();
  if (isal_create_hufftables(fitted.get(), histogram_.get()) != 0) return;
  tables_ = std::move(fitted);
  ++fits_;
  // Older data weighs half as much at each fit.
  for (auto& count : histogram_->lit_len_histogram) count /= 2;
  for (auto& count : histogram_->dist_histogram) count /= 2;
}

}  // namespace zcrawl
