// What a report records about the process that wrote it, for more than one driver folder (main's
// run, the --devices parent in src/fleet).
#pragma once

#include <string>
#include <vector>

namespace gemmbench {

// The arguments as one POSIX shell command line: each quoted with '' where the shell would read it
// otherwise, so that the recorded command can be pasted back.
std::string shell_join(const std::vector<std::string>& args);

// This machine's host name (gethostname), "" where it has none.
std::string host_name();

}  // namespace gemmbench
