// The Broker's recrawl list (frontier_options.h recrawl_list): an earlier
// crawl's captures, admitted at their depths with the validators each
// lease will carry (CrawlScheduler, SchedulerOptions::recrawl). Read once
// per state: "recrawl_loaded" in the meta family says it was, and is
// written with the last of it, so a frontier killed while reading reads
// it all again (admission and validators are idempotent).
#include <spdlog/spdlog.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "frontier/broker/broker.h"

namespace zcrawl::frontier {

Status Broker::LoadRecrawlList() {
  if (options_.recrawl_list.empty() || !store_->GetMeta("recrawl_loaded").empty()) return Status::Ok();
  std::ifstream in(options_.recrawl_list);
  if (!in) return UnavailableError("cannot read the recrawl list " + options_.recrawl_list);
  constexpr size_t kJobLinks = 10000;
  uint64_t lines = 0, bad = 0, with_validators = 0;
  AdmissionJob job;
  const auto admit = [&] {
    if (job.links.empty()) return;
    AdmissionResult result = admitter_->Admit(job);
    AdmitResult(result);
    job.links.clear();
  };
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    ++lines;
    const auto json = nlohmann::json::parse(line, nullptr, false);
    const auto url_field = json.is_object() ? json.find("url") : json.end();
    auto url = url_field != json.end() && url_field->is_string() ? Url::Parse(url_field->get<std::string>())
                                                                  : Result<Url>(InvalidArgumentError("no url"));
    if (!url.ok()) {
      if (++bad <= 5) spdlog::warn("recrawl list line {} skipped: {}", lines, line.substr(0, 200));
      continue;
    }
    url->ClearFragment();
    const auto depth_field = json.find("depth");
    const uint32_t depth = depth_field != json.end() && depth_field->is_number_unsigned()
                               ? depth_field->get<uint32_t>() : 0;
    v1::Validators validators;
    validators.set_etag(json.value("etag", std::string()));
    validators.set_last_modified(json.value("last_modified", std::string()));
    const auto fetched = json.find("fetched_at_ms");
    if (fetched != json.end() && fetched->is_number_integer()) validators.set_fetched_at_ms(fetched->get<int64_t>());
    validators.set_payload_digest(json.value("payload_digest", std::string()));
    if (!validators.etag().empty() || !validators.last_modified().empty()) {
      store_->StageValidators(store_->KeyOf(url->href()), validators.SerializeAsString());
      ++with_validators;
    }
    if (job.depth != depth || job.links.size() >= kJobLinks) {
      admit();
      job.depth = depth;
    }
    // As a requisite: past the depth limit, and outside the host scope
    // within --embed-hops (the earlier crawl reached it; only a requisite
    // could have been outside it).
    job.links.emplace_back(std::string(url->href()), 0, /*is_embed=*/true);
  }
  admit();
  if (in.bad()) return UnavailableError("cannot read the recrawl list " + options_.recrawl_list);
  store_->SetMeta("recrawl_loaded", std::to_string(lines));
  if (Status s = store_->Flush(); !s.ok()) return s;
  spdlog::info("recrawl list read: {} captures, {} with validators, {} bad lines skipped", lines, with_validators,
               bad);
  return Status::Ok();
}

}  // namespace zcrawl::frontier
