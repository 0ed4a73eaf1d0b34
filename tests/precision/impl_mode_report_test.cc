// The per-node implementation-mode report of compiled models (ImplModeReport),
// through compile, Save and Load.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "device/device.h"
#include "ge/builder.h"
#include "ge/impl_mode_report.h"
#include "passes/impl_mode_ini.h"
#include "test_support.h"

namespace {

// Exp, Tanh, Relu and a SoftmaxV2 on float32.
std::unique_ptr<ge::Graph> SmallGraph() {
  ge::GraphBuilder b("small");
  ge::Value* x = b.Input("x", ge::DataType::kFloat, {2, 4});
  ge::Value* e = b.Op("Exp", {x}, {}, 1, "exp_1")[0];
  ge::Value* t = b.Tanh(e, "tanh_1");
  b.Output(b.Softmax(b.Relu(t, "relu_1"), -1, "softmax_1"));
  return b.Build();
}

const ge::ImplModeRecord* Find(const std::vector<ge::ImplModeRecord>& report, const std::string& node) {
  auto it = std::find_if(report.begin(), report.end(), [&](const auto& r) { return r.node == node; });
  return it == report.end() ? nullptr : &*it;
}

// The modes the CPU kernel for op_type on float32 offers.
std::vector<std::string> Offered(const std::string& op_type) {
  const ge::device::KernelDef* def = ge::device::CpuDevice().kernels().Find(op_type, ge::DataType::kFloat);
  return def == nullptr ? std::vector<std::string>{} : def->impl_modes;
}

// What the report must say for a node that asked for `requested`.
void CheckRecord(const ge::ImplModeRecord* record, const std::string& op_type, const std::string& requested,
                 const std::string& reason_part) {
  REQUIRE(record != nullptr);
  CHECK(record->op_type == op_type);
  CHECK(record->dtype == ge::DataType::kFloat);
  CHECK(record->requested == requested);
  std::vector<std::string> offered = Offered(op_type);
  bool honoured = std::find(offered.begin(), offered.end(), requested) != offered.end();
  CHECK(record->applied == (honoured ? requested : offered.front()));
  CHECK_THAT(record->reason, Catch::Contains(reason_part));
  if (!honoured) CHECK_THAT(record->reason, Catch::Contains("ignored"));
}

}  // namespace

TEST_CASE("impl-mode report: the default asks high_performance.ini's ops", "[precision]") {
  auto model = ge::CompiledModel::Compile(SmallGraph());
  std::vector<ge::ImplModeRecord> report = ge::ImplModeReport(*model);
  CheckRecord(Find(report, "exp_1"), "Exp", "high_performance", "high_performance.ini:");
  CheckRecord(Find(report, "tanh_1"), "Tanh", "high_performance", "op_select_implmode=high_performance (default)");
  CheckRecord(Find(report, "softmax_1"), "SoftmaxV2", "high_performance", "high_performance.ini:");
  // Relu is in no list; it is reported only when its kernel offers a choice.
  CHECK((Find(report, "relu_1") != nullptr) == (Offered("Relu").size() > 1));
}

TEST_CASE("impl-mode report: optypelist_for_implmode, and the record survives Save and Load", "[precision]") {
  auto model = ge::CompiledModel::Compile(
      SmallGraph(), {{"ge.opSelectImplmode", "high_precision"}, {"ge.optypelistForImplmode", "Tanh"}});
  std::vector<ge::ImplModeRecord> report = ge::ImplModeReport(*model);
  CheckRecord(Find(report, "tanh_1"), "Tanh", "high_precision", "optypelist_for_implmode");
  const ge::ImplModeRecord* exp = Find(report, "exp_1");
  if (exp != nullptr) CHECK(exp->requested.empty());  // only the listed types ask

  std::filesystem::path path = ge::test::TempDir("impl_mode_report") / "small.gem";
  model->Save(path.string());
  auto loaded = ge::CompiledModel::Load(path.string());
  std::vector<ge::ImplModeRecord> reloaded = ge::ImplModeReport(*loaded);
  REQUIRE(reloaded.size() == report.size());
  for (size_t i = 0; i < report.size(); ++i) {
    CHECK(reloaded[i].node == report[i].node);
    CHECK(reloaded[i].requested == report[i].requested);
    CHECK(reloaded[i].applied == report[i].applied);
    CHECK(reloaded[i].reason == report[i].reason);
  }
}

TEST_CASE("impl-mode report: an op_precision_mode file replaces the other options", "[precision]") {
  const auto& all = ge::passes::AllOpsImplModes();
  if (all.count("Exp") == 0) GE_SKIP("Exp offers no choice of implementation modes yet");
  const std::vector<std::string>& modes = all.at("Exp");
  std::filesystem::path dir = ge::test::TempDir("impl_mode_report_file");
  std::ofstream(dir / "model.ini") << "[ByOpType]\nExp=" << modes[0] << "\n[ByNodeName]\nexp_1=" << modes[1] << "\n";
  auto model = ge::CompiledModel::Compile(SmallGraph(), {{"ge.opSelectImplmode", "high_precision"},
                                                         {"ge.exec.op_precision_mode", (dir / "model.ini").string()}});
  std::vector<ge::ImplModeRecord> report = ge::ImplModeReport(*model);
  CheckRecord(Find(report, "exp_1"), "Exp", modes[1], "model.ini:4 [ByNodeName]");
  const ge::ImplModeRecord* tanh = Find(report, "tanh_1");
  if (tanh != nullptr) {
    CHECK(tanh->requested.empty());
    CHECK_THAT(tanh->reason, Catch::Contains("not in op_precision_mode"));
  }
}
