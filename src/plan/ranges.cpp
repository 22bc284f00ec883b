#include "plan/ranges.hpp"

#include <charconv>
#include <string>

#include "core/errors.hpp"

namespace gemmbench {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

[[noreturn]] void bad(std::string_view what, std::string_view text, const std::string& why) {
  throw UsageError(std::string(what) + ": '" + std::string(text) + "' " + why);
}

int64_t parse_positive(std::string_view tok, std::string_view what, std::string_view whole) {
  tok = trim(tok);
  if (tok.empty()) bad(what, whole, "has an empty value (expected N, A,B,C or start:stop:step)");
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && v > kMaxDim))
    bad(what, whole, "is too large (each dimension must be at most 2^31-1 = 2147483647)");
  if (ec != std::errc() || ptr != tok.data() + tok.size())
    bad(what, whole, "is not a whole number ('" + std::string(tok) + "')");
  if (v <= 0) bad(what, whole, "must be positive (got " + std::to_string(v) + ")");
  return v;
}

void push(std::vector<int64_t>& out, int64_t v, std::string_view what, std::string_view whole) {
  if (out.size() >= kMaxValuesPerList)
    bad(what, whole, "expands to more than " + std::to_string(kMaxValuesPerList) + " values");
  out.push_back(v);
}

}  // namespace

std::vector<int64_t> parse_dim_list(std::string_view text, std::string_view what) {
  std::vector<int64_t> out;
  if (trim(text).empty()) bad(what, text, "is empty (expected N, A,B,C or start:stop:step)");
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    const std::string_view item =
        text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    const size_t c1 = item.find(':');
    if (c1 == std::string_view::npos) {
      push(out, parse_positive(item, what, text), what, text);
    } else {
      const size_t c2 = item.find(':', c1 + 1);
      if (c2 == std::string_view::npos || item.find(':', c2 + 1) != std::string_view::npos)
        bad(what, text, "is not a range start:stop:step (e.g. 256:4096:256 or 256:8192:x2)");
      const int64_t start = parse_positive(item.substr(0, c1), what, text);
      const int64_t stop = parse_positive(item.substr(c1 + 1, c2 - c1 - 1), what, text);
      std::string_view step_text = trim(item.substr(c2 + 1));
      const bool geometric = !step_text.empty() && (step_text[0] == 'x' || step_text[0] == '*');
      if (geometric) step_text.remove_prefix(1);
      const int64_t step = parse_positive(step_text, what, text);
      if (stop < start) bad(what, text, "has stop < start");
      if (geometric && step < 2) bad(what, text, "has a geometric step below x2");
      for (int64_t v = start; v <= stop;) {
        push(out, v, what, text);
        if (geometric) {
          if (v > stop / step) break;
          v *= step;
        } else {
          if (v > stop - step) break;
          v += step;
        }
      }
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace gemmbench
