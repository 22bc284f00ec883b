// A plugin library to load and who asked for it (--plugin, a config's "plugins"): the CLI and the
// config name them, src/plugin loads them. Plain data, so that naming one needs nothing else.
#pragma once

#include <string>

namespace gemmbench {

struct PluginSource {
  std::string path;  // a config's relative path is already resolved against the config's folder
  std::string from;  // for the error message: "--plugin", "my.json: plugins[0]"
};

}  // namespace gemmbench
