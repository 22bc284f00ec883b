/* A plugin for a later ABI: it exports gemmbench_plugin_v3 and no version gemmbench speaks. */
#include "gemmbench/plugin.h"

GEMMBENCH_PLUGIN_EXPORT const void* gemmbench_plugin_v3(void) {
  return 0;
}
