// Plugins: shared libraries (--plugin PATH, a config's "plugins") whose kernels join the kernel
// registry at run time, before the plan is built, so that every feature that reaches kernels
// through the registry (list, globs, configs, presets, dry runs, shards) sees them. Each kernel of
// the C ABI (include/gemmbench/plugin.h) is adapted into a KernelInfo; docs/plugins.md is the
// user's side.
#pragma once

#include <string>
#include <vector>

#include "core/registry.hpp"
#include "plugin/source.hpp"
#include "report/reporter.hpp"
#include "report/result.hpp"

namespace gemmbench {

// The plugins loaded into one registry. Libraries are never unloaded: the registry's launchers
// point into them for the rest of the process.
class PluginSet {
 public:
  explicit PluginSet(KernelRegistry& reg);
  ~PluginSet();
  PluginSet(const PluginSet&) = delete;
  PluginSet& operator=(const PluginSet&) = delete;

  // Loads one plugin and registers its kernels; a file already loaded (same canonical path) is
  // skipped. Throws UsageError, one line naming the path and what is wrong: no such file, not a
  // shared library, no entry point, another ABI version, a malformed kernel entry, a name that
  // clashes with a built-in kernel or another plugin's. All or nothing: when one kernel of the
  // plugin is bad, none is registered.
  void load(const PluginSource& source);
  void load_all(const std::vector<PluginSource>& sources);

  // Every plugin loaded, in load order (reports record them).
  const std::vector<PluginRecord>& records() const { return records_; }
  // The plugin that registered kernel `name`, or nullptr (a built-in kernel, a baseline).
  const PluginRecord* plugin_of(const std::string& kernel_name) const;

 private:
  KernelRegistry& reg_;
  std::vector<PluginRecord> records_;
  std::vector<std::string> canonical_paths_;
};

// The plugins of the process, over KernelRegistry::instance().
PluginSet& process_plugins();

// A reporter in front of `inner` that marks the rows of plugin kernels with their plugin's path
// and hash (CaseResult::plugin_path, plugin_sha256) and passes everything else through unchanged.
class PluginRowTagger : public Reporter {
 public:
  PluginRowTagger(Reporter& inner, const PluginSet& plugins) : inner_(inner), plugins_(plugins) {}
  void begin(const RunMetadata& meta) override { inner_.begin(meta); }
  void add(const CaseResult& row) override;
  void end(const RunSummary& summary) override { inner_.end(summary); }

 private:
  Reporter& inner_;
  const PluginSet& plugins_;
};

}  // namespace gemmbench
