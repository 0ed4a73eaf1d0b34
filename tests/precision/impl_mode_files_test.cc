// The shipped implementation-mode files (data/impl_mode/) against the CPU
// kernel registry: all_ops_impl_mode.ini lists exactly the ops whose kernels
// offer a choice, with exactly their modes, and the other files only name
// modes an op may take.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "device/device.h"
#include "graph/op_schema.h"
#include "passes/impl_mode_ini.h"
#include "test_support.h"

namespace {

// Op type -> the union of its kernels' modes, the first kernel's default first.
ge::passes::OpImplModes RegistryModes() {
  ge::passes::OpImplModes modes;
  for (const ge::device::KernelDef* def : ge::device::CpuDevice().kernels().All()) {
    std::vector<std::string>& listed = modes[def->op_type];
    for (const std::string& mode : def->impl_modes) {
      if (std::find(listed.begin(), listed.end(), mode) == listed.end()) listed.push_back(mode);
    }
  }
  std::erase_if(modes, [](const auto& entry) { return entry.second.size() < 2; });
  return modes;
}

// The file content that would agree, for the failure message.
std::string IniText(const ge::passes::OpImplModes& modes) {
  std::string text;
  for (const auto& [op_type, list] : modes) text += fmt::format("{}={}\n", op_type, fmt::join(list, ","));
  return text;
}

// The mode an op takes under a *_for_all file: the first of `preferred` it
// offers, else its default.
std::string Preferred(const std::vector<std::string>& offered, const std::vector<std::string>& preferred) {
  for (const std::string& mode : preferred) {
    if (std::find(offered.begin(), offered.end(), mode) != offered.end()) return mode;
  }
  return offered.front();
}

const std::map<std::string, std::vector<std::string>>& ForAllPreferences() {
  static const std::map<std::string, std::vector<std::string>> preferences = {
      {"high_precision_for_all", {"high_precision", "enable_float_32_execution", "support_out_of_bound_index"}},
      {"high_performance_for_all",
       {"high_performance", "enable_hi_float_32_execution", "super_performance", "keep_fp16"}}};
  return preferences;
}

// The comment block a built-in file starts with (kept when regenerating).
std::string Header(const std::string& file_name) {
  std::string_view text = ge::passes::BuiltinImplModeText(file_name);
  std::string header;
  size_t start = 0;
  while (start < text.size() && text[start] == '#') {
    size_t end = std::min(text.find('\n', start), text.size());
    header += std::string(text.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return header;
}

}  // namespace

// Hidden (run it by its tag): rewrites data/impl_mode/all_ops_impl_mode.ini
// and the *_for_all files from the kernel registry after kernels gain modes.
TEST_CASE("impl-mode files: regenerate from the kernel registry", "[.generate]") {
  ge::passes::OpImplModes registry = RegistryModes();
  std::filesystem::path dir = ge::test::SourceDir() / "data" / "impl_mode";
  std::ofstream(dir / "all_ops_impl_mode.ini") << Header("all_ops_impl_mode.ini") << IniText(registry);
  for (const auto& [name, preferred] : ForAllPreferences()) {
    std::ofstream out(dir / (name + ".ini"));
    out << Header(name + ".ini");
    for (const auto& [op_type, offered] : registry) out << op_type << "=" << Preferred(offered, preferred) << "\n";
  }
}

TEST_CASE("impl-mode files: all_ops_impl_mode.ini agrees with the kernel registry", "[precision]") {
  ge::passes::OpImplModes registry = RegistryModes();
  const ge::passes::OpImplModes& listed = ge::passes::AllOpsImplModes();
  for (const auto& [op_type, modes] : registry) {
    auto it = listed.find(op_type);
    INFO("data/impl_mode/all_ops_impl_mode.ini should read:\n" << IniText(registry));
    CHECK(it != listed.end());
    if (it == listed.end()) continue;
    CHECK(std::set<std::string>(it->second.begin(), it->second.end()) ==
          std::set<std::string>(modes.begin(), modes.end()));
    CHECK(it->second.front() == modes.front());  // the default
  }
  for (const auto& [op_type, modes] : listed) {
    INFO(op_type << " is listed but no kernel offers a choice for it");
    CHECK(registry.count(op_type) == 1);
  }
}

TEST_CASE("impl-mode files: the *_for_all files cover every op with a choice", "[precision]") {
  const ge::passes::OpImplModes& all = ge::passes::AllOpsImplModes();
  for (const auto& [name, preferred] : ForAllPreferences()) {
    const ge::passes::ImplModeFile& file = ge::passes::BuiltinImplModeFile(name);
    std::string expected;
    for (const auto& [op_type, offered] : all)
      expected += fmt::format("{}={}\n", op_type, Preferred(offered, preferred));
    INFO("data/impl_mode/" << name << ".ini should list:\n" << expected);
    CHECK(file.by_node_name.empty());
    CHECK(file.by_op_type.size() == all.size());
    for (const auto& [op_type, offered] : all) {
      auto it = file.by_op_type.find(op_type);
      CHECK(it != file.by_op_type.end());
      if (it != file.by_op_type.end()) CHECK(it->second.mode == Preferred(offered, preferred));
    }
  }
}

TEST_CASE("impl-mode files: high_precision.ini and high_performance.ini name known op types", "[precision]") {
  // These lists are frozen; an op listed there whose kernel has no choice
  // keeps its single implementation (reported, not an error).
  for (const char* name : {"high_precision", "high_performance"}) {
    const ge::passes::ImplModeFile& file = ge::passes::BuiltinImplModeFile(name);
    CHECK_FALSE(file.by_op_type.empty());
    CHECK(file.by_node_name.empty());
    for (const auto& [op_type, entry] : file.by_op_type) {
      INFO(name << ".ini:" << entry.line << ": " << op_type);
      CHECK(ge::OpRegistry::Global().Find(op_type) != nullptr);
    }
  }
}
