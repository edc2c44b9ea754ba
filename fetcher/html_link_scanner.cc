// Over 500 lines on purpose: one HTML tokenizer and the tree-builder guard it
// feeds, which share the input position, the current tag and the failure.
#include "fetcher/html_link_scanner.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/ascii.h"
#include "common/utf8.h"
#include "fetcher/html_char_refs.h"
#include "fetcher/html_syntax.h"
#include "fetcher/parsed_html_builder.h"

namespace zcrawl::fetcher {
namespace {

// Attribute names as a tree builder compares them: after invalid UTF-8 is
// replaced (the tree builders read repaired text, the scanner raw bytes),
// so "\xFF" and "\xFD" are one name, U+FFFD (found by ./run fuzz
// html_scan). Non-ASCII names are rare; only they pay for the repair.
bool SameAttributeName(std::string_view a, std::string_view b) {
  if (a == b) return true;
  if (IsAscii(a) && IsAscii(b)) return false;
  return RepairUtf8(std::string(a), /*replace_nul=*/true) == RepairUtf8(std::string(b), /*replace_nul=*/true);
}

constexpr size_t kEof = std::string_view::npos;

// What ReadTag needs to know of a byte, looked up once per byte.
enum ByteClass : uint8_t {
  kEndsTagName = 1 << 0,         // whitespace, '/', '>'
  kEndsAttributeName = 1 << 1,   // the same and '='
  kEndsUnquotedValue = 1 << 2,   // whitespace, '>'
  kControlByte = 1 << 3,         // IsControl
  kUpperByte = 1 << 4,           // 'A'-'Z'
  kNonAsciiByte = 1 << 5,        // >= 0x80
};

struct ByteClasses {
  uint8_t of[256] = {};
  constexpr ByteClasses() {
    for (int b = 0; b < 256; ++b) {
      const char c = static_cast<char>(b);
      uint8_t k = 0;
      if (EndsTagName(c)) k |= kEndsTagName | kEndsAttributeName;
      if (c == '=') k |= kEndsAttributeName;
      if (IsTagSpace(c) || c == '>') k |= kEndsUnquotedValue;
      if (IsControl(c)) k |= kControlByte;  // a tag holding one is left to the tree builder
      if (b >= 'A' && b <= 'Z') k |= kUpperByte;
      if (b >= 0x80) k |= kNonAsciiByte;
      of[b] = k;
    }
  }
};
constexpr ByteClasses kByteClasses;

inline uint8_t ClassOf(char c) { return kByteClasses.of[static_cast<unsigned char>(c)]; }

bool OneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

// What the scanner must know about a tag name, looked up once per tag.
enum TagFlag : uint16_t {
  kGiveUp = 1 << 0,        // a tree builder places it (or what follows)
  kInTableOk = 1 << 1,     // directly in a table: not foster-parented
  kVoidInAnchor = 1 << 2,  // inside an open <a>: cannot close, clone or move it
  kOpenInAnchor = 1 << 3,  // ...and stays open, so its end tag must come first
  kSvgBreakout = 1 << 4,   // in SVG: back to HTML (or an integration point)
};

enum class TagAction : uint8_t {
  kNone, kTable, kCaption, kCell, kTablePart, kA, kArea, kBase, kMeta, kIframe, kTitle, kRawText, kScript, kSvg,
  kStyle, kEmbed,  // page requisites: kEmbed reports TagInfo::kind
};

struct TagInfo {
  uint16_t flags = 0;
  TagAction action = TagAction::kNone;
  ElementKind kind = ElementKind::kInline;
};

// The tags with something to know, in an open-addressing table keyed by a
// cheap hash of the name (an unordered_map's string hash was a tenth of the
// scan).
class TagTable {
 public:
  static const TagTable& Get() {
    static const TagTable* const kTable = new TagTable();
    return *kTable;
  }

  TagInfo Find(std::string_view name) const {
    for (size_t i = Hash(name) & kMask;; i = (i + 1) & kMask) {
      if (slots_[i].name.empty()) break;
      if (slots_[i].name == name) return slots_[i].info;
    }
    // Custom elements ("x-card") are ordinary phrasing as far as <a> cares.
    return TagInfo{static_cast<uint16_t>(name.find('-') != std::string_view::npos ? kOpenInAnchor : 0),
                   TagAction::kNone, ElementKind::kInline};
  }

 private:
  static constexpr size_t kSlots = 512;  // a power of two, under half full
  static constexpr size_t kMask = kSlots - 1;
  struct Slot {
    std::string_view name;
    TagInfo info;
  };

  static size_t Hash(std::string_view name) {
    uint64_t h = name.size();
    for (size_t i = 0; i < name.size() && i < 8; ++i) h = h * 131 + static_cast<unsigned char>(name[i]);
    return static_cast<size_t>(h ^ (h >> 7));
  }

  TagInfo& SlotFor(std::string_view name) {
    for (size_t i = Hash(name) & kMask;; i = (i + 1) & kMask) {
      if (slots_[i].name.empty()) slots_[i].name = name;
      if (slots_[i].name == name) return slots_[i].info;
    }
  }

  void Add(std::string_view name, uint16_t flags, std::optional<TagAction> action = std::nullopt) {
    TagInfo& info = SlotFor(name);
    info.flags |= flags;
    if (action) info.action = *action;
  }
  void Add(std::initializer_list<std::string_view> names, uint16_t flags,
           std::optional<TagAction> action = std::nullopt) {
    for (std::string_view name : names) Add(name, flags, action);
  }

  void AddEmbed(std::string_view name, ElementKind kind) {
    TagInfo& info = SlotFor(name);
    info.action = TagAction::kEmbed;
    info.kind = kind;
  }

  TagTable() {
    Add({"math", "template", "select", "frameset", kPlaintextElement, "isindex"}, kGiveUp);
    Add({"caption", "colgroup", "col", "tbody", "thead", "tfoot", "tr", "td", "th", "style", "script", "input",
         "form"},
        kInTableOk);
    // Void and raw text elements cannot close, clone or move an open <a>,
    // except where "in body" first closes a <p> (hr, xmp) or drops the tag
    // (col, frame).
    for (std::string_view name : kVoidElements) {
      if (!OneOf(name, {"hr", "col", "frame"})) Add(name, kVoidInAnchor);
    }
    for (std::string_view name : kRawTextElements) {
      if (name != "xmp") Add(name, kVoidInAnchor);
    }
    for (std::string_view name : kEscapableRawTextElements) Add(name, kVoidInAnchor);
    Add("svg", kVoidInAnchor);
    Add({"b", "big", "code", "em", "font", "i", "s", "small", "strike", "strong", "tt", "u", "abbr", "bdi", "bdo",
         "cite", "data", "dfn", "kbd", "mark", "q", "samp", "span", "sub", "sup", "time", "var", "label", "output",
         "ins", "del", "picture", "canvas", "audio", "video", "map", "slot"},
        kOpenInAnchor);
    Add({"foreignobject", "desc", "title", "math", "font", "b", "big", "blockquote", "body", "br", "center", "code",
         "dd", "div", "dl", "dt", "em", "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li",
         "listing", "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span", "strong", "strike",
         "sub", "sup", "table", "tt", "u", "ul", "var"},
        kSvgBreakout);
    Add({"table"}, 0, TagAction::kTable);
    Add({"caption"}, 0, TagAction::kCaption);
    Add({"td", "th"}, 0, TagAction::kCell);
    Add({"tr", "tbody", "thead", "tfoot", "colgroup", "col"}, 0, TagAction::kTablePart);
    Add({"a"}, 0, TagAction::kA);
    Add({"area"}, 0, TagAction::kArea);
    Add({"base"}, 0, TagAction::kBase);
    Add({"meta"}, 0, TagAction::kMeta);
    // Text content skipped, unless an action below reads it.
    for (std::string_view name : kRawTextElements) Add(name, 0, TagAction::kRawText);
    for (std::string_view name : kEscapableRawTextElements) Add(name, 0, TagAction::kRawText);
    Add({"title"}, 0, TagAction::kTitle);
    Add({"iframe"}, 0, TagAction::kIframe);
    Add({"style"}, 0, TagAction::kStyle);
    Add({"script"}, 0, TagAction::kScript);
    Add({"svg"}, 0, TagAction::kSvg);
    AddEmbed("link", ElementKind::kLink);
    AddEmbed("img", ElementKind::kImg);
    AddEmbed("image", ElementKind::kImg);  // "in body", <image> is an <img>
    AddEmbed("input", ElementKind::kInput);
    AddEmbed("source", ElementKind::kSource);
    AddEmbed("track", ElementKind::kTrack);
    AddEmbed("video", ElementKind::kVideo);
    AddEmbed("audio", ElementKind::kAudio);
    AddEmbed("object", ElementKind::kObject);
    AddEmbed("embed", ElementKind::kEmbed);
  }

  Slot slots_[kSlots];
};

TagInfo InfoOf(std::string_view name) { return TagTable::Get().Find(name); }

// One start or end tag: its name and attributes lowercased (ASCII), the
// first of duplicate attributes kept, values as written (decoded on demand).
struct Tag {
  struct Attribute {
    uint32_t name_offset;
    uint32_t name_length;
    std::string_view raw_value;
  };
  std::string name;
  std::string names;  // every attribute name, one after another
  std::vector<Attribute> attributes;
  bool self_closing = false;

  void Clear() {
    name.clear();
    names.clear();
    attributes.clear();
    self_closing = false;
  }
  std::string_view AttributeName(const Attribute& a) const {
    return std::string_view(names).substr(a.name_offset, a.name_length);
  }
  const Attribute* Find(std::string_view lower_name) const {
    for (const Attribute& a : attributes) {
      if (AttributeName(a) == lower_name) return &a;
    }
    return nullptr;
  }
};

// The builder's view of a tag; a value it cannot decode marks the scan failed.
class TagAttributes final : public ElementAttributes {
 public:
  TagAttributes(const Tag& tag, const char** failure) : tag_(tag), failure_(failure) {}

  std::optional<std::string_view> Get(std::string_view lower_case_name) const override {
    const Tag::Attribute* a = tag_.Find(lower_case_name);
    if (a == nullptr) return std::nullopt;
    std::string_view value = a->raw_value;
    // One pass, not find_first_of: libstdc++ runs a memchr over "&\r" for
    // each byte of the value (a tenth of the scan of a page of links).
    if (std::any_of(value.begin(), value.end(), [](char c) { return c == '&' || c == '\r'; })) {
      decoded_.emplace_back();
      if (!DecodeSimpleCharRefs(a->raw_value, CharRefContext::kAttribute, &decoded_.back())) {
        *failure_ = "character reference";
      }
      value = decoded_.back();
    }
    // gumbo reads a control character in an attribute value as U+FFFD,
    // MyHTML keeps it; in a style="" CSS tells the two apart even where
    // the character ends up in no URL (found by ./run fuzz html_scan).
    if (lower_case_name == "style") {
      for (char c : value) {
        if (IsControl(c)) *failure_ = "control character";
      }
    }
    return value;
  }

 private:
  const Tag& tag_;
  const char** failure_;
  // Alive while the builder reads; a deque keeps earlier values in place.
  mutable std::deque<std::string> decoded_;
};

// Where a table leaves the tree builder: in a cell or caption, content goes
// where it is written; directly in the table (or a section or row) it is
// foster-parented before the table.
enum class TableState : uint8_t { kTable, kCell, kCaption };

class Scanner {
 public:
  Scanner(std::string_view html, ParsedHtml* out, bool extract_embeds)
      : html_(html), builder_(out, /*extract_text=*/false, extract_embeds), extract_embeds_(extract_embeds) {}

  const char* Run() {
    size_t pos = 0;
    while (failure_ == nullptr) {
      const void* lt = std::memchr(html_.data() + pos, '<', html_.size() - pos);
      if (lt == nullptr) break;
      pos = static_cast<const char*>(lt) - html_.data();
      pos = Markup(pos);
      if (pos == kEof) break;
    }
    return failure_;
  }

 private:
  // The markup at html_[lt] == '<'; returns where text resumes (kEof: at the end).
  size_t Markup(size_t lt) {
    const size_t n = html_.size();
    if (lt + 1 >= n) return kEof;
    const char c = html_[lt + 1];
    if (IsAsciiAlpha(c)) {
      const size_t end = ReadTag(lt + 1, &tag_);
      if (end == kEof) return kEof;  // a tag cut off by the end is dropped
      return StartTag(end);
    }
    if (c == '/') {
      if (lt + 2 >= n) return kEof;
      const char d = html_[lt + 2];
      if (IsAsciiAlpha(d)) {
        const size_t end = ReadTag(lt + 2, &tag_);
        if (end == kEof) return kEof;
        EndTag();
        return end;
      }
      if (d == '>') {  // "</>" is dropped...
        // ...but gumbo then misreads the source of the next tag: before an
        // SVG tag that changes where the SVG ends (gumbo's departure, below).
        if (lt + 4 < n && html_[lt + 3] == '<' && IsAsciiAlpha(html_[lt + 4]) &&
            (in_svg_ || EqualsIgnoreCaseAscii(html_.substr(lt + 4, 3), "svg"))) {
          failure_ = "gumbo's svg";
          return kEof;
        }
        return lt + 3;
      }
      return BogusComment(lt + 2);
    }
    if (c == '!') {
      if (html_.compare(lt + 2, 2, "--") == 0) return Comment(lt + 4);
      return BogusComment(lt + 2);  // doctype, CDATA in HTML, anything else: to the next '>'
    }
    if (c == '?') return BogusComment(lt + 1);
    return lt + 1;  // a '<' that is text
  }

  size_t BogusComment(size_t from) {
    const size_t gt = html_.find('>', from);
    return gt == std::string_view::npos ? kEof : gt + 1;
  }

  // From just after "<!--": where the comment ends, as the comment states
  // decide it ("<!-->", "<!--->", "-->", "--!>", runs of '-').
  size_t Comment(size_t p) {
    const size_t n = html_.size();
    if (p < n && html_[p] == '>') return p + 1;
    if (p + 1 < n && html_[p] == '-' && html_[p + 1] == '>') return p + 2;
    while (true) {
      const size_t dashes = html_.find("--", p);
      if (dashes == std::string_view::npos) return kEof;
      size_t r = dashes + 2;
      while (r < n && html_[r] == '-') ++r;
      if (r >= n) return kEof;
      if (html_[r] == '>') return r + 1;
      if (html_[r] == '!' && r + 1 < n && html_[r + 1] == '>') return r + 2;
      p = html_[r] == '!' ? r + 1 : r;
    }
  }

  // Tokenizes the tag whose name starts at html_[p]; returns the position
  // after its '>' or kEof. Names are read a run at a time (the byte classes
  // of kByteClasses), then copied and lowercased once: per-byte appends were
  // a third of the scan on tag-dense pages.
  size_t ReadTag(size_t p, Tag* tag) {
    tag->Clear();
    const size_t n = html_.size();
    bool non_ascii_names = false;
    p = ReadName(p, kEndsTagName, &tag->name, &non_ascii_names);
    while (true) {
      while (p < n && IsTagSpace(html_[p])) ++p;  // before attribute name
      if (p >= n) return kEof;
      if (html_[p] == '/') {  // self-closing start tag state
        ++p;
        if (p >= n) return kEof;
        if (html_[p] == '>') {
          tag->self_closing = true;
          return p + 1;
        }
        continue;
      }
      if (html_[p] == '>') return p + 1;
      // Attribute name: its first character may be '=' (a parse error).
      const size_t name_offset = tag->names.size();
      p = ReadName(p + 1, kEndsAttributeName, &tag->names, &non_ascii_names, p);
      const auto name_length = static_cast<uint32_t>(tag->names.size() - name_offset);
      std::string_view value;
      bool has_value = false;
      while (p < n && IsTagSpace(html_[p])) ++p;  // after attribute name
      if (p >= n) return kEof;
      bool tag_ends = false;
      if (html_[p] == '=') {
        has_value = true;
        ++p;
        while (p < n && IsTagSpace(html_[p])) ++p;  // before attribute value
        if (p >= n) return kEof;
        const char q = html_[p];
        if (q == '"' || q == '\'') {
          const size_t close = html_.find(q, p + 1);
          if (close == std::string_view::npos) return kEof;
          value = html_.substr(p + 1, close - p - 1);
          p = close + 1;  // after the value: the loop's top takes '/', '>' or the next name
        } else if (q == '>') {
          tag_ends = true;  // "name=>": no value, and the tag ends
        } else {
          const size_t start = p;
          while (p < n && !(ClassOf(html_[p]) & kEndsUnquotedValue)) ++p;
          if (p >= n) return kEof;
          value = html_.substr(start, p - start);
        }
      }
      const std::string_view name = std::string_view(tag->names).substr(name_offset, name_length);
      bool duplicate = false;
      for (const Tag::Attribute& a : tag->attributes) {
        duplicate = duplicate || (non_ascii_names ? SameAttributeName(tag->AttributeName(a), name)
                                                  : tag->AttributeName(a) == name);
      }
      if (duplicate) {
        // A repeated attribute without a value: gumbo drops the attribute
        // after it (the standard and MyHTML keep it): left to MyHTML.
        if (!has_value) failure_ = "gumbo's duplicate attribute";
        tag->names.resize(name_offset);
      } else {
        tag->attributes.push_back(Tag::Attribute{static_cast<uint32_t>(name_offset), name_length, value});
      }
      if (tag_ends) return p + 1;
    }
  }

  // Appends to `out`, lowercased, the name from html_[first] (which is taken
  // whatever it is; npos: from `p`) through the byte before the first one of
  // class `ends`, and returns where that byte is (or the end). A control
  // character in the name marks the scan failed; `non_ascii` is set if the
  // name has a byte >= 0x80.
  size_t ReadName(size_t p, uint8_t ends, std::string* out, bool* non_ascii,
                  size_t first = std::string_view::npos) {
    const size_t n = html_.size();
    const size_t start = first == std::string_view::npos ? p : first;
    uint8_t seen = first == std::string_view::npos ? 0 : ClassOf(html_[first]);
    while (p < n) {
      const uint8_t c = ClassOf(html_[p]);
      if (c & ends) break;
      seen |= c;
      ++p;
    }
    if (seen & kControlByte) failure_ = "control character";
    if (seen & kNonAsciiByte) *non_ascii = true;
    const size_t old_size = out->size();
    out->append(html_.data() + start, p - start);
    if (seen & kUpperByte) {
      for (size_t i = old_size; i < out->size(); ++i) (*out)[i] = ToLowerAscii((*out)[i]);
    }
    return p;
  }

  // Raw text, RCDATA or script data from `from` up to its end tag: returns
  // where that end tag starts (kEof if none). A control character after
  // "</name" gives up: gumbo may end the element there, the standard not.
  size_t FindEndTag(size_t from, std::string_view name) {
    bool control_after_name = false;
    const size_t end = FindTextEndTag(html_, from, name, &control_after_name);
    if (control_after_name) failure_ = "control character";
    return end;
  }

  // Skips raw text (or RCDATA) after the start tag ending at `content`;
  // returns where tokenizing resumes, after the element's end tag.
  size_t SkipRawText(size_t content, std::string_view name, std::string_view* text = nullptr) {
    const size_t end = FindEndTag(content, name);
    if (text != nullptr) *text = html_.substr(content, end == kEof ? kEof : end - content);
    if (end == kEof) return kEof;
    const size_t after = ReadTag(end + 2, &end_tag_);
    return after;
  }

  size_t SkipScript(size_t content) {
    const size_t end = FindEndTag(content, "script");
    // "<!--" then "<script" inside a script changes where it ends (the
    // double-escaped states): left to a tree builder.
    const size_t limit = end == kEof ? html_.size() : end;
    const size_t found = html_.substr(content, limit - content).find("<!--");  // within the script only
    const size_t open = found == std::string_view::npos ? found : content + found;
    if (open != std::string_view::npos) {
      for (size_t s = html_.find("<", open + 4); s != std::string_view::npos && s < limit;
           s = html_.find("<", s + 1)) {
        if (s + 7 < html_.size() && EqualsIgnoreCaseAscii(html_.substr(s + 1, 6), "script") &&
            EndsTagName(html_[s + 7])) {
          failure_ = "escaped script";
          return kEof;
        }
      }
    }
    if (end == kEof) return kEof;
    return ReadTag(end + 2, &end_tag_);
  }

  bool InFosterZone() const { return !tables_.empty() && tables_.back() == TableState::kTable; }

  size_t StartTag(size_t end) {
    const std::string_view name = tag_.name;
    const TagInfo info = InfoOf(name);
    if (info.flags & kGiveUp) {
      failure_ = "element a tree builder must place";
      return kEof;
    }
    if (InFosterZone() && !(info.flags & kInTableOk)) {
      failure_ = "foster parenting";
      return kEof;
    }
    if (extract_embeds_ && !EmbedsInTokenOrder(info)) return kEof;
    if (anchor_open_) {
      // Inside an open <a>, only what cannot close it, clone it or move it:
      // phrasing elements without special tree-building rules, void
      // elements, and raw text elements, which their end tag always closes.
      if (!(info.flags & (kVoidInAnchor | kOpenInAnchor))) {
        failure_ = "misnested a";
        return kEof;
      }
      if (info.flags & kOpenInAnchor) inside_anchor_.push_back(tag_.name);
    }
    switch (info.action) {
      case TagAction::kSvg:
        return tag_.self_closing ? end : Svg(end);
      case TagAction::kTable:
        tables_.push_back(TableState::kTable);
        StyleAttribute();
        break;
      case TagAction::kCaption:
        if (!tables_.empty()) tables_.back() = TableState::kCaption;
        StyleAttribute();
        break;
      case TagAction::kCell:
        if (!tables_.empty()) tables_.back() = TableState::kCell;
        StyleAttribute();
        break;
      case TagAction::kTablePart:
        if (!tables_.empty()) tables_.back() = TableState::kTable;
        StyleAttribute();
        break;
      case TagAction::kA:
        Emit(ElementKind::kA);
        anchor_open_ = true;
        inside_anchor_.clear();
        break;
      case TagAction::kArea:
        Emit(ElementKind::kArea);
        break;
      case TagAction::kBase:
        Emit(ElementKind::kBase);
        break;
      case TagAction::kMeta:
        Emit(ElementKind::kMeta);
        break;
      case TagAction::kIframe:
        Emit(ElementKind::kIframe);
        return failure_ ? kEof : SkipRawText(end, "iframe");
      case TagAction::kTitle:
        return Title(end);
      case TagAction::kRawText:
        StyleAttribute();
        return failure_ ? kEof : SkipRawText(end, name);
      case TagAction::kScript:
        if (extract_embeds_) Emit(ElementKind::kScript);
        return failure_ ? kEof : SkipScript(end);
      case TagAction::kStyle:
        return Style(end);
      case TagAction::kEmbed:
        if (extract_embeds_) Emit(info.kind);
        break;
      case TagAction::kNone:
        StyleAttribute();
        break;  // e.g. <frame> outside a frameset: dropped by the tree builder
    }
    return failure_ ? kEof : end;
  }

  // With embeds wanted, a start tag's attributes count where the tag is:
  // true unless a tree builder would put them elsewhere or nowhere, which
  // gives up. <html>, <body> and <head> again add their attributes to the
  // first one (or drop them), a table part outside a table, a <frame>
  // outside a frameset and a nested <form> are dropped, an <input> that is
  // not hidden, directly in a table, is foster-parented, and a formatting
  // element (<b>, <font>, ...) may be cloned with its attributes when a
  // tree builder reconstructs it after a block: its style="" would then
  // count twice.
  bool EmbedsInTokenOrder(const TagInfo& info) {
    const std::string_view name = tag_.name;
    if (info.action == TagAction::kEmbed && name == "input" && InFosterZone()) {
      const Tag::Attribute* type = tag_.Find("type");
      if (type == nullptr || !EqualsIgnoreCaseAscii(type->raw_value, "hidden")) {
        failure_ = "foster parenting";
        return false;
      }
    }
    if (tag_.Find("style") == nullptr) return true;
    if (OneOf(name, {"b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u"})) {
      failure_ = "style on a formatting element";
      return false;
    }
    const bool dropped_here =
        OneOf(name, {"html", "body", "head", "frame", "form"}) ||
        (tables_.empty() && OneOf(name, {"caption", "col", "colgroup", "tbody", "td", "tfoot", "th", "thead", "tr"}));
    if (dropped_here) {
      failure_ = "style on a merged or dropped tag";
      return false;
    }
    return true;
  }

  // The style="" of a tag reported for nothing else.
  void StyleAttribute() {
    if (extract_embeds_ && tag_.Find("style") != nullptr) Emit(ElementKind::kInline);
  }

  // A <style> block: its raw text is CSS (no character references).
  size_t Style(size_t end) {
    if (!extract_embeds_) return SkipRawText(end, "style");
    Emit(ElementKind::kStyle);
    std::string_view css;
    const size_t after = SkipRawText(end, "style", &css);
    if (failure_ != nullptr) return kEof;
    if (after == kEof) {
      // A <style> the input ends in: MyHTML drops its text, as it drops a
      // <title>'s (gumbo and the standard keep it; found by ./run fuzz
      // html_scan): left to MyHTML, so that the answer is a tree builder's.
      failure_ = "unterminated style";
      return kEof;
    }
    // gumbo reads a control character in raw text as U+FFFD, MyHTML keeps
    // it, and CSS tells them apart (a url() with one is bad): left to
    // MyHTML (found by ./run fuzz html_scan).
    for (char c : css) {
      if (IsControl(c)) {
        failure_ = "control character";
        return kEof;
      }
    }
    builder_.Text(css);
    builder_.EndElement(ElementKind::kStyle, true);
    return after;
  }

  size_t Title(size_t end) {
    Emit(ElementKind::kTitle);
    std::string_view text;
    const size_t after = SkipRawText(end, "title", &text);
    if (after == kEof) {
      // A <title> the input ends in: MyHTML drops its text (the standard
      // and gumbo keep it): left to MyHTML, so that the answer is one.
      if (failure_ == nullptr) failure_ = "unterminated title";
      return kEof;
    }
    if (!text.empty()) {
      std::string decoded;
      if (!DecodeSimpleCharRefs(text, CharRefContext::kText, &decoded)) {
        failure_ = "character reference";
        return kEof;
      }
      builder_.Text(decoded);
    }
    builder_.EndElement(ElementKind::kTitle, true);
    return after;
  }

  void Emit(ElementKind kind) {
    builder_.StartElement(kind, /*html_namespace=*/true, TagAttributes(tag_, &failure_));
  }

  void EndTag() {
    const std::string_view name = tag_.name;
    if (anchor_open_) {
      if (name == "a") {
        anchor_open_ = false;
        inside_anchor_.clear();
        return;
      }
      if (!inside_anchor_.empty() && inside_anchor_.back() == name) {
        inside_anchor_.pop_back();
        return;
      }
      failure_ = "misnested a";
      return;
    }
    if (tables_.empty()) return;
    if (name == "table") {
      tables_.pop_back();
    } else if (OneOf(name, {"td", "th", "tr", "tbody", "thead", "tfoot"})) {
      if (tables_.back() == TableState::kCell) tables_.back() = TableState::kTable;
    } else if (name == "caption") {
      if (tables_.back() == TableState::kCaption) tables_.back() = TableState::kTable;
    }
  }

  // Inside <svg> (its start tag ends at `p`): nothing there is an HTML
  // element while the content stays SVG; returns after the matching </svg>.
  // What would take the content back to HTML gives up.
  size_t Svg(size_t p) {
    std::vector<std::string> open = {"svg"};
    in_svg_ = true;
    const size_t n = html_.size();
    while (!open.empty()) {
      const size_t lt = html_.find('<', p);
      if (lt == std::string_view::npos || lt + 1 >= n) return kEof;
      const char c = html_[lt + 1];
      if (IsAsciiAlpha(c) || (c == '/' && lt + 2 < n && IsAsciiAlpha(html_[lt + 2]))) {
        const bool end_tag = c == '/';
        const size_t after = ReadTag(lt + (end_tag ? 2 : 1), &svg_tag_);
        if (after == kEof) return kEof;
        const std::string& name = svg_tag_.name;
        if (end_tag) {
          // "</svg >", "</svg/>", "</svg x>": gumbo compares the source
          // text and does not close the element (the standard and MyHTML
          // do): left to MyHTML, so that the answer is a tree builder's.
          if (html_[lt + 2 + name.size()] != '>') {
            failure_ = "gumbo's svg";
            return kEof;
          }
          if (name != open.back()) {
            failure_ = "svg content";
            return kEof;
          }
          open.pop_back();
          if (open.empty()) in_svg_ = false;
        } else if (InfoOf(name).flags & kSvgBreakout) {
          failure_ = "svg content";
          return kEof;
        } else if (!svg_tag_.self_closing) {
          open.push_back(name);
        }
        p = after;
        continue;
      }
      if (c == '!' && html_.compare(lt + 2, 7, "[CDATA[") == 0) {
        failure_ = "svg content";
        return kEof;
      }
      p = Markup(lt);  // comments, doctype, bogus comments, a literal '<'
      if (p == kEof) return kEof;
    }
    return p;
  }

  std::string_view html_;
  ParsedHtmlBuilder builder_;
  const bool extract_embeds_;
  const char* failure_ = nullptr;
  Tag tag_;
  Tag end_tag_;  // the end tag of raw text, read and dropped
  Tag svg_tag_;
  std::vector<TableState> tables_;
  bool anchor_open_ = false;
  bool in_svg_ = false;
  std::vector<std::string> inside_anchor_;  // opened inside the open <a>, innermost last
};

}  // namespace

const char* ScanHtmlLinks(std::string_view html, ParsedHtml* out, bool extract_embeds) {
  return Scanner(html, out, extract_embeds).Run();
}

}  // namespace zcrawl::fetcher
