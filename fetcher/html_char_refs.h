// Character references the way the HTML tokenizer decodes them, for the
// few that real links and titles carry (&amp; &lt; &gt; &quot; &apos;
// &nbsp;, &copy; &mdash; &hellip; and a dozen more, and plain numeric
// ones), and a refusal for the rest: deciding any
// other named reference needs the standard's 2,231-name table and its
// longest-match rule, which is the tree builders' job (html_link_scanner.h
// then gives up). Input line breaks are normalised as the tokenizer's input
// stream does (CR LF and lone CR become LF).
#pragma once

#include <string>
#include <string_view>

namespace zcrawl::fetcher {

enum class CharRefContext {
  kAttribute,  // an attribute value: "&copy=" and "&copyx" stay as written
  kText,       // RCDATA text (<title>): a legacy name decodes even before a letter
};

// Appends `raw` decoded to `out`. Returns false, `out` then partly
// appended, when `raw` holds a reference this cannot decide.
bool DecodeSimpleCharRefs(std::string_view raw, CharRefContext context, std::string* out);

}  // namespace zcrawl::fetcher
