#include "util/process.hpp"

#include <unistd.h>

namespace gemmbench {

std::string shell_join(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    const bool plain =
        !a.empty() && a.find_first_of(" \t\n'\"\\$*?[]{}();&|<>`!#~") == std::string::npos;
    std::string q = plain ? a : "'" + a + "'";
    if (!plain)
      for (size_t p = 1; (p = q.find('\'', p)) != std::string::npos && p + 1 < q.size(); p += 4)
        q.replace(p, 1, "'\\''");
    out += (out.empty() ? "" : " ") + q;
  }
  return out;
}

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return host;
}

}  // namespace gemmbench
