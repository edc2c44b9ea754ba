#include "fetcher/parsed_html_builder.h"

#include <string>
#include <string_view>
#include <unordered_map>

#include "common/ascii.h"
#include "fetcher/charset.h"
#include "fetcher/css_references.h"
#include "fetcher/srcset.h"

namespace zcrawl::fetcher {
namespace {

// Calls `fn` with each token of `list`, split at ASCII whitespace and at
// `also_separator` (pass ' ' for whitespace only).
template <typename Fn>
void ForEachToken(std::string_view list, char also_separator, Fn fn) {
  size_t pos = 0;
  while (pos < list.size()) {
    while (pos < list.size() &&
           (IsAsciiWhitespace(list[pos]) || list[pos] == also_separator)) {
      ++pos;
    }
    size_t end = pos;
    while (end < list.size() && !IsAsciiWhitespace(list[end]) &&
           list[end] != also_separator) {
      ++end;
    }
    if (end > pos) fn(list.substr(pos, end - pos));
    pos = end;
  }
}

// Appends `text` to `out` with runs of ASCII whitespace collapsed to one
// space; `space_pending` carries a run across calls so that no space is
// written before the first word or after the last.
void AppendCollapsed(std::string_view text, std::string* out,
                     bool* space_pending) {
  size_t pos = 0;
  while (pos < text.size()) {
    if (IsAsciiWhitespace(text[pos])) {
      *space_pending = !out->empty();
      while (pos < text.size() && IsAsciiWhitespace(text[pos])) ++pos;
      continue;
    }
    size_t end = pos;
    while (end < text.size() && !IsAsciiWhitespace(text[end])) ++end;
    if (*space_pending) out->push_back(' ');
    *space_pending = false;
    out->append(text.substr(pos, end - pos));
    pos = end;
  }
}

bool HidesText(ElementKind kind) {
  return kind == ElementKind::kHidden || kind == ElementKind::kTemplate ||
         kind == ElementKind::kTitle || kind == ElementKind::kIframe ||
         kind == ElementKind::kScript || kind == ElementKind::kStyle;
}

// The rel tokens of a <link> whose target the page needs to render as
// served: its styles, icons, and what it preloads for itself (not
// "prefetch" or "next": those are for pages the reader may go to).
bool RelIsRequisite(std::string_view rel) {
  bool requisite = false;
  ForEachToken(rel, ' ', [&](std::string_view token) {
    for (std::string_view wanted : {"stylesheet", "icon", "apple-touch-icon", "apple-touch-icon-precomposed",
                                    "mask-icon", "preload", "modulepreload", "manifest"}) {
      requisite = requisite || EqualsIgnoreCaseAscii(token, wanted);
    }
  });
  return requisite;
}

}  // namespace

ElementKind ElementKindForTag(std::string_view lower_case_name) {
  static const auto* const kKinds = [] {
    auto* kinds = new std::unordered_map<std::string_view, ElementKind>();
    for (std::string_view tag :
         {"address", "article", "aside",    "blockquote", "body",     "button",
          "caption", "center",  "dd",       "details",    "dialog",   "dir",
          "div",     "dl",      "dt",       "fieldset",   "figcaption",
          "figure",  "footer",  "form",     "frameset",   "h1",       "h2",
          "h3",      "h4",      "h5",       "h6",         "header",   "hgroup",
          "hr",      "html",    "legend",   "li",         "listing",  "main",
          "marquee", "menu",    "nav",      "ol",         "optgroup", "option",
          "p",       "plaintext", "pre",    "search",     "section",  "select",
          "summary", "table",   "tbody",    "td",         "textarea", "tfoot",
          "th",      "thead",   "tr",       "ul",         "xmp"}) {
      kinds->emplace(tag, ElementKind::kBlock);
    }
    for (std::string_view tag : {"head", "noscript", "noembed", "noframes", "datalist"}) {
      kinds->emplace(tag, ElementKind::kHidden);
    }
    kinds->emplace("br", ElementKind::kBreak);
    kinds->emplace("template", ElementKind::kTemplate);
    kinds->emplace("title", ElementKind::kTitle);
    kinds->emplace("a", ElementKind::kA);
    kinds->emplace("area", ElementKind::kArea);
    kinds->emplace("base", ElementKind::kBase);
    kinds->emplace("meta", ElementKind::kMeta);
    kinds->emplace("frame", ElementKind::kFrame);
    kinds->emplace("iframe", ElementKind::kIframe);
    kinds->emplace("link", ElementKind::kLink);
    kinds->emplace("script", ElementKind::kScript);
    kinds->emplace("style", ElementKind::kStyle);
    kinds->emplace("img", ElementKind::kImg);
    kinds->emplace("input", ElementKind::kInput);
    kinds->emplace("source", ElementKind::kSource);
    kinds->emplace("track", ElementKind::kTrack);
    kinds->emplace("video", ElementKind::kVideo);
    kinds->emplace("audio", ElementKind::kAudio);
    kinds->emplace("object", ElementKind::kObject);
    kinds->emplace("embed", ElementKind::kEmbed);
    return kinds;
  }();
  const auto it = kKinds->find(lower_case_name);
  return it == kKinds->end() ? ElementKind::kInline : it->second;
}

bool ParsedHtmlBuilder::StartElement(ElementKind kind, bool html_namespace,
                                     const ElementAttributes& attributes) {
  if (HidesText(kind)) ++hidden_depth_;
  if (extract_embeds_ && html_namespace && kind != ElementKind::kTemplate) AddEmbeds(kind, attributes);
  switch (kind) {
    case ElementKind::kBlock:
    case ElementKind::kBreak:
      BreakWords();
      break;
    case ElementKind::kTemplate:
      return false;
    case ElementKind::kTitle:
      if (html_namespace && !seen_title_) {
        seen_title_ = true;
        in_first_title_ = true;
      }
      break;
    case ElementKind::kA:
      if (html_namespace) AddLink(LinkSource::kA, attributes, "href", true);
      break;
    case ElementKind::kArea:
      if (html_namespace) AddLink(LinkSource::kArea, attributes, "href", true);
      break;
    case ElementKind::kFrame:
      if (html_namespace) AddLink(LinkSource::kFrame, attributes, "src", false);
      break;
    case ElementKind::kIframe:
      if (html_namespace) {
        AddLink(LinkSource::kIframe, attributes, "src", false);
      }
      break;
    case ElementKind::kBase:
      if (html_namespace && !seen_base_) {
        if (std::optional<std::string_view> href = attributes.Get("href")) {
          seen_base_ = true;
          out_->base_href = std::string(*href);
        }
      }
      break;
    case ElementKind::kMeta:
      if (html_namespace) HandleMeta(attributes);
      break;
    case ElementKind::kInline:
    case ElementKind::kHidden:
    case ElementKind::kLink:
    case ElementKind::kScript:
    case ElementKind::kStyle:
    case ElementKind::kImg:
    case ElementKind::kInput:
    case ElementKind::kSource:
    case ElementKind::kTrack:
    case ElementKind::kVideo:
    case ElementKind::kAudio:
    case ElementKind::kObject:
    case ElementKind::kEmbed:
      break;
  }
  return true;
}

void ParsedHtmlBuilder::EndElement(ElementKind kind, bool html_namespace) {
  if (HidesText(kind)) --hidden_depth_;
  if (kind == ElementKind::kStyle && in_style_) {
    in_style_ = false;
    AddCss(style_text_);
    style_text_.clear();
  }
  if (kind == ElementKind::kBlock) BreakWords();
  if (kind == ElementKind::kTitle && html_namespace) in_first_title_ = false;
}

void ParsedHtmlBuilder::Text(std::string_view text) {
  if (in_style_) {
    style_text_.append(text);
  } else if (in_first_title_) {
    AppendCollapsed(text, &out_->title, &title_space_pending_);
  } else if (extract_text_ && hidden_depth_ == 0) {
    AppendCollapsed(text, &out_->text, &text_space_pending_);
  }
}

void ParsedHtmlBuilder::BreakWords() {
  if (!out_->text.empty()) text_space_pending_ = true;
}

void ParsedHtmlBuilder::AddLink(LinkSource source,
                                const ElementAttributes& attributes,
                                std::string_view url_attribute, bool has_rel) {
  const std::optional<std::string_view> url = attributes.Get(url_attribute);
  if (!url) return;
  bool nofollow = false;
  if (has_rel) {
    if (std::optional<std::string_view> rel = attributes.Get("rel")) {
      ForEachToken(*rel, ' ', [&](std::string_view token) {
        nofollow = nofollow || EqualsIgnoreCaseAscii(token, "nofollow");
      });
    }
  }
  out_->links.push_back(RawLink{std::string(*url), source, nofollow});
}

void ParsedHtmlBuilder::AddEmbeds(ElementKind kind, const ElementAttributes& attributes) {
  switch (kind) {
    case ElementKind::kLink:
      if (std::optional<std::string_view> rel = attributes.Get("rel"); rel && RelIsRequisite(*rel)) {
        AddEmbed(EmbedSource::kLink, attributes, "href");
        AddSrcset(EmbedSource::kLink, attributes, "imagesrcset");
      }
      break;
    case ElementKind::kScript:
      AddEmbed(EmbedSource::kScript, attributes, "src");
      break;
    case ElementKind::kStyle:
      in_style_ = true;
      break;
    case ElementKind::kImg:
      AddEmbed(EmbedSource::kImage, attributes, "src");
      AddSrcset(EmbedSource::kImage, attributes, "srcset");
      break;
    case ElementKind::kInput:
      // An enumerated attribute: matched ASCII case-insensitively, untrimmed.
      if (std::optional<std::string_view> type = attributes.Get("type"); type && EqualsIgnoreCaseAscii(*type, "image")) {
        AddEmbed(EmbedSource::kImage, attributes, "src");
      }
      break;
    case ElementKind::kSource:
      AddEmbed(EmbedSource::kSource, attributes, "src");
      AddSrcset(EmbedSource::kSource, attributes, "srcset");
      break;
    case ElementKind::kTrack:
      AddEmbed(EmbedSource::kSource, attributes, "src");
      break;
    case ElementKind::kVideo:
      AddEmbed(EmbedSource::kMedia, attributes, "src");
      AddEmbed(EmbedSource::kMedia, attributes, "poster");
      break;
    case ElementKind::kAudio:
      AddEmbed(EmbedSource::kMedia, attributes, "src");
      break;
    case ElementKind::kObject:
      AddEmbed(EmbedSource::kObject, attributes, "data");
      break;
    case ElementKind::kEmbed:
      AddEmbed(EmbedSource::kObject, attributes, "src");
      break;
    default:
      break;
  }
  if (std::optional<std::string_view> style = attributes.Get("style")) AddCss(*style);
}

void ParsedHtmlBuilder::AddEmbed(EmbedSource source, const ElementAttributes& attributes,
                                 std::string_view url_attribute) {
  // A URL attribute's value is stripped of leading and trailing ASCII
  // whitespace before it is parsed; an empty one names no resource.
  const std::optional<std::string_view> url = attributes.Get(url_attribute);
  if (!url) return;
  const std::string_view trimmed = TrimAsciiWhitespace(*url);
  if (!trimmed.empty()) out_->embeds.push_back(RawEmbed{std::string(trimmed), source});
}

void ParsedHtmlBuilder::AddSrcset(EmbedSource source, const ElementAttributes& attributes,
                                  std::string_view srcset_attribute) {
  const std::optional<std::string_view> srcset = attributes.Get(srcset_attribute);
  if (!srcset) return;
  std::vector<std::string> urls;
  ParseSrcset(*srcset, &urls);
  for (std::string& url : urls) out_->embeds.push_back(RawEmbed{std::move(url), source});
}

void ParsedHtmlBuilder::AddCss(std::string_view css) {
  std::vector<CssReference> references;
  FindCssReferences(css, &references);
  for (CssReference& reference : references) out_->embeds.push_back(RawEmbed{std::move(reference.url), EmbedSource::kCss});
}

void ParsedHtmlBuilder::HandleMeta(const ElementAttributes& attributes) {
  const std::optional<std::string_view> content = attributes.Get("content");
  if (const std::optional<std::string_view> name = attributes.Get("name");
      name && content && EqualsIgnoreCaseAscii(TrimAsciiWhitespace(*name), "robots")) {
    ForEachToken(*content, ',', [&](std::string_view token) {
      if (EqualsIgnoreCaseAscii(token, "none")) {
        out_->meta_noindex = true;
        out_->meta_nofollow = true;
      } else if (EqualsIgnoreCaseAscii(token, "noindex")) {
        out_->meta_noindex = true;
      } else if (EqualsIgnoreCaseAscii(token, "nofollow")) {
        out_->meta_nofollow = true;
      }
    });
  }
  if (!out_->meta_charset.empty()) return;
  if (const std::optional<std::string_view> charset = attributes.Get("charset")) {
    out_->meta_charset = std::string(TrimAsciiWhitespace(*charset));
    if (!out_->meta_charset.empty()) return;
  }
  const std::optional<std::string_view> http_equiv = attributes.Get("http-equiv");
  if (http_equiv && content &&
      EqualsIgnoreCaseAscii(TrimAsciiWhitespace(*http_equiv), "content-type")) {
    out_->meta_charset = CharsetFromMetaContent(*content);
  }
}

}  // namespace zcrawl::fetcher
