/* A plugin for a later ABI: it exports gemmbench_plugin_v2 and not v1. */
#include "gemmbench/plugin.h"

GEMMBENCH_PLUGIN_EXPORT const void* gemmbench_plugin_v2(void) {
  return 0;
}
