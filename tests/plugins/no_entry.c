/* A shared library that is no gemmbench plugin: it exports no gemmbench_plugin_v1. */
#include "gemmbench/plugin.h"

GEMMBENCH_PLUGIN_EXPORT int not_a_gemmbench_plugin(void) {
  return 1;
}
