#include "report/report_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <zlib.h>

namespace gemmbench {

namespace {

// "a\n  b" for dump(2) output nested one level down: JSON strings never hold a raw newline, so
// every newline in the dump is layout.
std::string indent_nested(const std::string& s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

void append_member(std::string& out, bool& first, const std::string& key,
                   const std::string& value) {
  out += first ? "\n  " : ",\n  ";
  first = false;
  out += nlohmann::json(key).dump();
  out += ": ";
  out += value;
}

std::string rows_text(const std::vector<std::string>& rows) {
  if (rows.empty()) return "[]";
  std::string out = "[";
  for (size_t i = 0; i < rows.size(); ++i) {
    out += i == 0 ? "\n    " : ",\n    ";
    out += rows[i];
  }
  return out + "\n  ]";
}

}  // namespace

std::string read_text_file(const std::string& path) {
  errno = 0;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr)
    throw ReportFileError(
        ReportFileError::Kind::unreadable,
        path + ": cannot read (" + (errno != 0 ? std::strerror(errno) : "out of memory") + ")");
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(f, buf, sizeof buf);
    if (n > 0) out.append(buf, size_t(n));
    if (n < int(sizeof buf)) break;
  }
  int code = Z_OK;
  const char* msg = gzerror(f, &code);
  std::string why = code == Z_ERRNO ? std::strerror(errno) : (msg != nullptr ? msg : "");
  gzclose(f);
  if (code != Z_OK && code != Z_STREAM_END)
    throw ReportFileError(ReportFileError::Kind::unreadable, path + ": cannot read (" + why + ")");
  return out;
}

nlohmann::json read_json_file(const std::string& path) {
  const std::string text = read_text_file(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw ReportFileError(ReportFileError::Kind::not_json, path + ": not JSON");
  }
}

bool is_gzip_path(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  if (is_gzip_path(path)) {
    // zlib writes a fixed header (no file name, time stamp 0), so the same report gives the
    // same bytes, as `gzip -9 -n` does.
    gzFile f = gzopen(tmp.c_str(), "wb9");
    if (f == nullptr) throw std::runtime_error("cannot write '" + tmp + "'");
    const bool ok =
        text.empty() || gzwrite(f, text.data(), unsigned(text.size())) == int(text.size());
    if (gzclose(f) != Z_OK || !ok) throw std::runtime_error("cannot write '" + tmp + "'");
  } else {
    std::ofstream out(tmp, std::ios::out | std::ios::trunc | std::ios::binary);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("cannot write '" + tmp + "'");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error("cannot rename '" + tmp + "' to '" + path +
                             "': " + std::strerror(errno));
}

std::string report_text(const nlohmann::json& metadata, const std::vector<std::string>& rows,
                        const nlohmann::json& summary) {
  std::string out = "{";
  bool first = true;
  append_member(out, first, "metadata", indent_nested(metadata.dump(2)));
  append_member(out, first, "results", rows_text(rows));
  append_member(out, first, "summary", indent_nested(summary.dump(2)));
  return out + "\n}\n";
}

std::string report_text(const nlohmann::json& doc) {
  if (!doc.is_object()) return doc.dump(2) + "\n";
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : doc.items()) {
    if (key == "results" && value.is_array()) {
      std::vector<std::string> rows;
      rows.reserve(value.size());
      for (const auto& r : value) rows.push_back(r.dump());
      append_member(out, first, key, rows_text(rows));
    } else {
      append_member(out, first, key, indent_nested(value.dump(2)));
    }
  }
  return out + (first ? "}\n" : "\n}\n");
}

}  // namespace gemmbench
