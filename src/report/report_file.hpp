// Report files on disk: every reader of a gemmbench report (compare, merge, the tests) goes through
// read_json_file, which takes plain or gzip-compressed JSON alike (committed reports are gzipped:
// bench_results/ must fit the 64 MiB a GPU host accepts); the writers lay a report out with one
// result row per line and rewrite it atomically, gzip-compressed when the name ends in ".gz".
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace gemmbench {

// A file that could not be read, or read but is not JSON; what() is one line naming the path.
class ReportFileError : public std::runtime_error {
 public:
  enum class Kind { unreadable, not_json };
  ReportFileError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// The whole file, gunzipped when it is gzip-compressed (zlib reads a plain file as it is).
std::string read_text_file(const std::string& path);
// read_text_file, parsed. Throws ReportFileError ("PATH: cannot read (...)" or "PATH: not JSON").
nlohmann::json read_json_file(const std::string& path);

// True when `path` names a gzip file by its extension (".gz"): the writers compress then.
bool is_gzip_path(const std::string& path);
// Writes `text` to `path` atomically (PATH.tmp, then rename), gzip-compressed (level 9, no name
// or time stamp in the header) when is_gzip_path(path). Throws std::runtime_error on failure.
void write_file_atomic(const std::string& path, const std::string& text);

// A report {"metadata", "results", "summary"} as text: the metadata and summary indented, each
// result row compact on one line (a row with --keep-samples holds thousands of numbers; indented
// it was 40% of a report's bytes). Still one JSON document.
std::string report_text(const nlohmann::json& metadata, const std::vector<std::string>& rows,
                        const nlohmann::json& summary);
// The same for a whole document; keys other than "results" are indented, an array under
// "results" is written one element per line.
std::string report_text(const nlohmann::json& doc);

}  // namespace gemmbench
