#include "fetcher/html_depth_limit.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/ascii.h"
#include "fetcher/html_syntax.h"

namespace zcrawl::fetcher {
namespace {

// How a start tag affects the stack in our approximation.
enum class Rule : uint8_t {
  kNest,          // push
  kVoid,          // nothing: no children, no end tag
  kIgnore,        // html, head, body: merged into the implicit ones
  kRawText,       // push nothing; skip to the matching end tag
  kPlaintext,     // everything after it is text
  kClosesP,       // close an open <p> in scope, then push
  kHeading,       // close a <p>, and a heading right on top, then push
  kListItem,      // close an open <li>, then push
  kDefinition,    // close an open <dd>/<dt>, then push
  kOption,        // close an <option> on top, then push
  kOptgroup,      // close <option>/<optgroup> on top, then push
  kRow,           // close an open <tr> in this table, then push
  kCell,          // close an open <td>/<th> in this row, then push
  kTableSection,  // close an open <thead>/<tbody>/<tfoot>, then push
  kSelfClosing,   // a, nobr, button: close the previous one, then push
};

enum Flag : uint8_t {
  kScopeBoundary = 1,  // searches for an element to close stop here
  kListBoundary = 2,   // ...and, for <li>, also here
  kDefBoundary = 4,    // ...and, for <dd>/<dt>, also here
  kTableBoundary = 8,  // searches for table parts stop here
  kForeign = 16,       // svg, math: self-closing tags are honoured inside
};

struct ElementRule {
  uint16_t id;
  Rule rule;
  uint8_t flags;
};

struct ElementRules {
  std::unordered_map<std::string_view, ElementRule> by_name;
  uint16_t p, li, dd, dt, option, optgroup, tr, td, th, tbody, thead, tfoot;
  uint16_t size;

  uint16_t Id(std::string_view name) const { return by_name.at(name).id; }
};

const ElementRules& Rules() {
  static const ElementRules* const kTable = [] {
    auto* t = new ElementRules();
    uint16_t next = 0;
    const auto add = [&](std::initializer_list<std::string_view> names,
                         Rule rule, uint8_t flags = 0) {
      for (std::string_view name : names) {
        t->by_name.emplace(name, ElementRule{next++, rule, flags});
      }
    };
    for (std::string_view name : kVoidElements) add({name}, Rule::kVoid);
    add({"html", "head", "body"}, Rule::kIgnore);
    for (std::string_view name : kRawTextElements) add({name}, Rule::kRawText);
    for (std::string_view name : kEscapableRawTextElements) {
      add({name}, Rule::kRawText);
    }
    add({kPlaintextElement}, Rule::kPlaintext);
    add({"address", "article", "aside", "blockquote", "center", "details",
         "dialog", "div", "fieldset", "figcaption", "figure", "footer", "form",
         "header", "hgroup", "listing", "main", "nav", "p", "pre", "search",
         "section", "summary"},
        Rule::kClosesP);
    add({"ul", "ol", "menu", "dir"}, Rule::kClosesP, kListBoundary);
    add({"dl"}, Rule::kClosesP, kDefBoundary);
    add({"h1", "h2", "h3", "h4", "h5", "h6"}, Rule::kHeading);
    add({"li"}, Rule::kListItem);
    add({"dd", "dt"}, Rule::kDefinition);
    add({"option"}, Rule::kOption);
    add({"optgroup"}, Rule::kOptgroup);
    add({"table"}, Rule::kClosesP, kScopeBoundary | kTableBoundary);
    add({"tr"}, Rule::kRow);
    add({"td", "th"}, Rule::kCell, kScopeBoundary);
    add({"thead", "tbody", "tfoot"}, Rule::kTableSection);
    add({"caption", "template", "object", "applet", "marquee", "select"},
        Rule::kNest, kScopeBoundary | kTableBoundary);
    add({"svg", "math"}, Rule::kNest, kScopeBoundary | kForeign);
    add({"a", "nobr"}, Rule::kSelfClosing);
    add({"button"}, Rule::kSelfClosing, kScopeBoundary);
    t->p = t->Id("p");
    t->li = t->Id("li");
    t->dd = t->Id("dd");
    t->dt = t->Id("dt");
    t->option = t->Id("option");
    t->optgroup = t->Id("optgroup");
    t->tr = t->Id("tr");
    t->td = t->Id("td");
    t->th = t->Id("th");
    t->tbody = t->Id("tbody");
    t->thead = t->Id("thead");
    t->tfoot = t->Id("tfoot");
    t->size = next;
    return t;
  }();
  return *kTable;
}

// Distinct unknown tag names we remember; beyond this they share one id.
constexpr size_t kMaxDynamicNames = 4096;

class DepthEstimator {
 public:
  DepthEstimator(std::string_view html, size_t max_depth)
      : html_(html), max_depth_(max_depth), rules_(Rules()) {
    counts_.resize(rules_.size + 1, 0);
    overflow_id_ = rules_.size;
  }

  size_t Run() {
    size_t pos = 0;
    while (pos < html_.size()) {
      const void* lt = std::memchr(html_.data() + pos, '<', html_.size() - pos);
      if (lt == nullptr) break;
      pos = static_cast<const char*>(lt) - html_.data();
      const std::string_view rest = html_.substr(pos);
      if (rest.size() < 2) break;
      const char next = rest[1];
      if (rest.starts_with("<!--")) {
        pos = SkipPast(pos + 2, "-->");
      } else if (next == '!' || next == '?') {
        pos = SkipPast(pos + 2, ">");
      } else if (next == '/') {
        pos = EndTag(pos);
      } else if (IsAsciiAlpha(next)) {
        const size_t tag_start = pos;
        pos = StartTag(pos);
        if (stack_.size() > max_depth_) return tag_start;
      } else {
        ++pos;
      }
    }
    return html_.size();
  }

 private:
  // Position just past the next `terminator` at or after `from`; the end of
  // the input if there is none.
  size_t SkipPast(size_t from, std::string_view terminator) const {
    const size_t found = html_.find(terminator, from);
    return found == std::string_view::npos ? html_.size()
                                           : found + terminator.size();
  }

  // Reads the tag name at `pos` (lower-cased into name_); returns the
  // position after it.
  size_t ReadName(size_t pos) {
    name_.clear();
    while (pos < html_.size() && !EndsTagName(html_[pos])) {
      name_.push_back(ToLowerAscii(html_[pos]));
      ++pos;
    }
    return pos;
  }

  // Skips attributes up to and past the closing '>'. Sets *self_closing if
  // the tag ends in "/>". Returns html_.size() if the tag never closes.
  size_t SkipAttributes(size_t pos, bool* self_closing) const {
    bool after_equals = false;
    char previous = 0;
    while (pos < html_.size()) {
      const char c = html_[pos];
      if (c == '>') {
        *self_closing = previous == '/';
        return pos + 1;
      }
      if ((c == '"' || c == '\'') && after_equals) {
        const size_t close = html_.find(c, pos + 1);
        if (close == std::string_view::npos) return html_.size();
        pos = close + 1;
        after_equals = false;
        previous = c;
        continue;
      }
      if (c == '=') {
        after_equals = true;
      } else if (!IsAsciiWhitespace(c)) {
        after_equals = false;
      }
      previous = c;
      ++pos;
    }
    return html_.size();
  }

  ElementRule Lookup() {
    const auto known = rules_.by_name.find(name_);
    if (known != rules_.by_name.end()) return known->second;
    const auto dynamic = dynamic_ids_.find(name_);
    if (dynamic != dynamic_ids_.end()) return {dynamic->second, Rule::kNest, 0};
    if (dynamic_ids_.size() >= kMaxDynamicNames) {
      return {overflow_id_, Rule::kNest, 0};
    }
    const auto id = static_cast<uint16_t>(counts_.size());
    counts_.push_back(0);
    dynamic_ids_.emplace(name_, id);
    return {id, Rule::kNest, 0};
  }

  size_t EndTag(size_t pos) {
    if (pos + 2 >= html_.size() || !IsAsciiAlpha(html_[pos + 2])) {
      return SkipPast(pos + 2, ">");
    }
    pos = ReadName(pos + 2);
    bool self_closing = false;
    pos = SkipAttributes(pos, &self_closing);
    const ElementRule info = Lookup();
    if (counts_[info.id] > 0) PopThrough(info.id);
    return pos;
  }

  size_t StartTag(size_t pos) {
    pos = ReadName(pos + 1);
    bool self_closing = false;
    pos = SkipAttributes(pos, &self_closing);
    const ElementRule info = Lookup();
    if (foreign_depth_ > 0) {
      // SVG/MathML: no raw text, no implied end tags; "/>" closes.
      if (!self_closing && info.rule != Rule::kVoid) Push(info);
      return pos;
    }
    switch (info.rule) {
      case Rule::kVoid:
      case Rule::kIgnore:
        return pos;
      case Rule::kRawText:
        return SkipRawText(pos);
      case Rule::kPlaintext:
        return html_.size();
      case Rule::kClosesP:
        CloseInScope({rules_.p}, kScopeBoundary);
        break;
      case Rule::kHeading:
        CloseInScope({rules_.p}, kScopeBoundary);
        if (!stack_.empty() && stack_.back().rule == Rule::kHeading) Pop();
        break;
      case Rule::kListItem:
        CloseInScope({rules_.li}, kScopeBoundary | kListBoundary);
        break;
      case Rule::kDefinition:
        CloseInScope({rules_.dd, rules_.dt}, kScopeBoundary | kDefBoundary);
        break;
      case Rule::kOption:
        if (!stack_.empty() && stack_.back().id == rules_.option) Pop();
        break;
      case Rule::kOptgroup:
        if (!stack_.empty() && stack_.back().id == rules_.option) Pop();
        if (!stack_.empty() && stack_.back().id == rules_.optgroup) Pop();
        break;
      case Rule::kRow:
        CloseInScope({rules_.tr}, kTableBoundary);
        break;
      case Rule::kCell:
        CloseInScope({rules_.td, rules_.th}, kTableBoundary, rules_.tr);
        break;
      case Rule::kTableSection:
        CloseInScope({rules_.thead, rules_.tbody, rules_.tfoot},
                     kTableBoundary);
        break;
      case Rule::kSelfClosing:
        CloseInScope({info.id}, kScopeBoundary);
        break;
      case Rule::kNest:
        break;
    }
    Push(info);
    return pos;
  }

  // Skips the contents of a raw text element whose name is in name_.
  size_t SkipRawText(size_t pos) const {
    const size_t end = FindTextEndTag(html_, pos, name_);
    if (end == std::string_view::npos) return html_.size();
    return SkipPast(end + 2 + name_.size(), ">");
  }

  // Pops up to and including the topmost element whose id is in `targets`,
  // unless an element with one of `boundary_flags` (or id `boundary_id`)
  // comes first.
  void CloseInScope(std::initializer_list<uint16_t> targets,
                    uint8_t boundary_flags, int boundary_id = -1) {
    bool any_open = false;
    for (uint16_t target : targets) any_open = any_open || counts_[target] > 0;
    if (!any_open) return;
    for (size_t i = stack_.size(); i-- > 0;) {
      const ElementRule& entry = stack_[i];
      for (uint16_t target : targets) {
        if (entry.id == target) {
          PopThrough(target);
          return;
        }
      }
      if ((entry.flags & boundary_flags) != 0 || entry.id == boundary_id) return;
    }
  }

  void Push(const ElementRule& info) {
    stack_.push_back(info);
    ++counts_[info.id];
    if (info.flags & kForeign) ++foreign_depth_;
  }

  void Pop() {
    const ElementRule& top = stack_.back();
    --counts_[top.id];
    if (top.flags & kForeign) --foreign_depth_;
    stack_.pop_back();
  }

  // Pops elements until one with `id` has been popped (counts_[id] > 0).
  void PopThrough(uint16_t id) {
    while (!stack_.empty()) {
      const bool done = stack_.back().id == id;
      Pop();
      if (done) return;
    }
  }

  std::string_view html_;
  size_t max_depth_;
  const ElementRules& rules_;
  std::vector<ElementRule> stack_;
  std::vector<int> counts_;  // open elements per tag id
  std::unordered_map<std::string, uint16_t> dynamic_ids_;
  uint16_t overflow_id_;
  int foreign_depth_ = 0;
  std::string name_;
};

}  // namespace

size_t DepthLimitedLength(std::string_view html, size_t max_depth) {
  // The estimate grows by at most one element per start tag, so a page with
  // no more '<' than the limit cannot exceed it: most pages skip the scan
  // for a count that runs at memory speed.
  if (static_cast<size_t>(std::count(html.begin(), html.end(), '<')) <= max_depth) {
    return html.size();
  }
  return DepthEstimator(html, max_depth).Run();
}

}  // namespace zcrawl::fetcher
