// Which mode each node asks for (option precedence) and what the impl_mode
// pass records, against kernels whose modes the test chooses.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "ge/error.h"
#include "passes/builtin_passes.h"
#include "passes/impl_mode_selection.h"
#include "test_support.h"

using ge::passes::ImplModeSelection;
using ge::passes::ParseImplModeFile;

namespace {

std::string Attr(const ge::Node& node, const char* name) {
  const ge::AttrValue* value = node.attrs().Find(name);
  return value == nullptr ? "<absent>" : std::get<std::string>(*value);
}

// Runs the impl_mode pass with kernels offering `modes` per op type.
void RunPass(ge::Graph& graph, const ImplModeSelection& selection,
             std::map<std::string, std::vector<std::string>> modes) {
  ge::PassContext ctx;
  ctx.impl_modes = &selection;
  ctx.kernel_impl_modes = [modes](const ge::Node& node) {
    auto it = modes.find(node.op_type());
    return it == modes.end() ? std::vector<std::string>{} : it->second;
  };
  ge::passes::MakeImplModePass()->Run(graph, ctx);
}

// An op type with a choice of modes in all_ops_impl_mode.ini, or "" while none has.
std::pair<std::string, std::vector<std::string>> OpWithChoice() {
  const auto& all = ge::passes::AllOpsImplModes();
  if (all.empty()) return {};
  return *all.begin();
}

}  // namespace

TEST_CASE("impl-mode selection: the default uses high_performance.ini only", "[precision]") {
  ge::Graph graph;
  ge::Node* exp = graph.AddNode("Exp", "e", {});
  ge::Node* relu = graph.AddNode("Relu", "r", {});
  ImplModeSelection selection;  // op_select_implmode not given
  ge::passes::ImplModeRequest request = selection.RequestFor(*exp);
  CHECK(request.mode == "high_performance");
  CHECK_THAT(request.reason, Catch::Contains("op_select_implmode=high_performance (default)") &&
                                 Catch::Contains("high_performance.ini:"));
  CHECK(selection.RequestFor(*relu).mode.empty());
  CHECK_THAT(selection.RequestFor(*relu).reason, Catch::Contains("not in high_performance.ini"));
}

TEST_CASE("impl-mode selection: optypelist_for_implmode limits the mode to its op types", "[precision]") {
  ge::Graph graph;
  ge::Node* exp = graph.AddNode("Exp", "e", {});
  ge::Node* relu = graph.AddNode("Relu", "r", {});
  ImplModeSelection selection = ge::passes::MakeImplModeSelection("high_precision", true, {"Relu", "Tanh"}, "");
  CHECK(selection.RequestFor(*relu).mode == "high_precision");
  CHECK_THAT(selection.RequestFor(*relu).reason, Catch::Contains("optypelist_for_implmode"));
  // Exp is in high_precision.ini, but the list replaces the file.
  CHECK(selection.RequestFor(*exp).mode.empty());
}

TEST_CASE("impl-mode selection: optypelist_for_implmode rejects unknown op types", "[precision]") {
  try {
    ge::passes::MakeImplModeSelection("high_precision", true, {"Softmax"}, "");
    FAIL("accepted an unknown op type");
  } catch (const ge::Error& error) {
    CHECK(error.code() == ge::ErrorCode::kInvalidArgument);
    CHECK_THAT(error.what(), Catch::Contains("'Softmax'") && Catch::Contains("ge.optypelistForImplmode"));
  }
}

TEST_CASE("impl-mode selection: *_for_all use their built-in files", "[precision]") {
  ge::Graph graph;
  ge::Node* relu = graph.AddNode("Relu", "r", {});
  for (const char* mode : {"high_precision_for_all", "high_performance_for_all"}) {
    ImplModeSelection selection = ge::passes::MakeImplModeSelection(mode, true, {}, "");
    const ge::passes::ImplModeFile& builtin = ge::passes::BuiltinImplModeFile(mode);
    for (const auto& [op_type, entry] : builtin.by_op_type) {
      ge::Node* node = graph.AddNode(op_type, "", {});
      CHECK(selection.RequestFor(*node).mode == entry.mode);
      CHECK_THAT(selection.RequestFor(*node).reason, Catch::Contains(std::string(mode) + ".ini:"));
    }
    CHECK(selection.RequestFor(*relu).mode.empty());
  }
}

TEST_CASE("impl-mode selection: op_precision_mode overrides the other options, ByNodeName wins", "[precision]") {
  ge::Graph graph;
  ge::Node* exp_a = graph.AddNode("Exp", "exp_a", {});
  ge::Node* tanh = graph.AddNode("Tanh", "t", {});
  ImplModeSelection selection;
  selection.select_mode = "high_precision";
  selection.select_mode_given = true;
  selection.op_precision = ParseImplModeFile("[ByOpType]\nExp=high_precision\n", "model.ini");
  CHECK(selection.RequestFor(*exp_a).mode == "high_precision");
  CHECK_THAT(selection.RequestFor(*exp_a).reason, Catch::Contains("model.ini:2 [ByOpType]"));
  // Tanh is in high_precision.ini, but the file replaces op_select_implmode.
  CHECK(selection.RequestFor(*tanh).mode.empty());
  CHECK_THAT(selection.RequestFor(*tanh).reason, Catch::Contains("not in op_precision_mode model.ini"));

  auto [op_type, modes] = OpWithChoice();
  if (op_type.empty()) GE_SKIP("no op offers a choice of implementation modes yet");
  ge::Node* chosen_a = graph.AddNode(op_type, "chosen_a", {});
  ge::Node* chosen_b = graph.AddNode(op_type, "chosen_b", {});
  selection.op_precision = ParseImplModeFile(
      fmt::format("[ByOpType]\n{}={}\n[ByNodeName]\nchosen_b={}\n", op_type, modes[0], modes[1]), "model.ini");
  CHECK(selection.RequestFor(*chosen_a).mode == modes[0]);
  CHECK(selection.RequestFor(*chosen_b).mode == modes[1]);
  CHECK_THAT(selection.RequestFor(*chosen_b).reason, Catch::Contains("model.ini:4 [ByNodeName]"));
}

TEST_CASE("impl-mode selection: a ByNodeName mode the node's op does not offer is an error", "[precision]") {
  ge::Graph graph;
  ge::Node* relu = graph.AddNode("Relu", "act", {});
  ImplModeSelection selection;
  selection.op_precision = ParseImplModeFile("[ByNodeName]\n# relu\nact=high_performance\n", "model.ini");
  try {
    selection.RequestFor(*relu);
    FAIL("accepted a mode Relu does not offer");
  } catch (const ge::Error& error) {
    CHECK(error.code() == ge::ErrorCode::kInvalidArgument);
    CHECK_THAT(error.what(), Catch::StartsWith("model.ini:3:") && Catch::Contains("act=high_performance") &&
                                 Catch::Contains("Relu") && Catch::Contains("allowed modes"));
  }
}

TEST_CASE("impl-mode selection: op_precision_mode files are checked when loaded", "[precision]") {
  std::filesystem::path dir = ge::test::TempDir("op_precision_check");
  std::ofstream(dir / "bad.ini") << "# pinned modes\nRelu=high_precision\n";
  try {
    ge::passes::MakeImplModeSelection("high_performance", false, {}, (dir / "bad.ini").string());
    FAIL("accepted a mode Relu does not offer");
  } catch (const ge::Error& error) {
    CHECK(error.code() == ge::ErrorCode::kInvalidArgument);
    CHECK_THAT(error.what(), Catch::Contains("ge.exec.op_precision_mode") && Catch::Contains("bad.ini:2:") &&
                                 Catch::Contains("Relu"));
  }
  try {
    ge::passes::MakeImplModeSelection("high_performance", false, {}, (dir / "missing.ini").string());
    FAIL("accepted a missing file");
  } catch (const ge::Error& error) {
    CHECK(error.code() == ge::ErrorCode::kNotFound);
    CHECK_THAT(error.what(), Catch::Contains("ge.exec.op_precision_mode") && Catch::Contains("missing.ini"));
  }
}

TEST_CASE("impl_mode pass: honoured, single implementation, not implemented, kernel default", "[precision]") {
  ge::Graph graph;
  ge::Node* exp = graph.AddNode("Exp", "exp", {});
  ge::Node* tanh = graph.AddNode("Tanh", "tanh", {});
  ge::Node* gelu = graph.AddNode("Gelu", "gelu", {});
  ge::Node* erf = graph.AddNode("Erf", "erf", {});
  ge::Node* relu = graph.AddNode("Relu", "relu", {});
  ImplModeSelection selection;
  selection.op_precision =
      ParseImplModeFile("Exp=high_performance\nTanh=high_performance\nGelu=super_performance\n", "m.ini");
  RunPass(graph, selection,
          {{"Exp", {"high_precision", "high_performance"}},
           {"Tanh", {"high_precision"}},
           {"Gelu", {"high_precision", "high_performance"}},
           {"Erf", {"high_precision", "high_performance"}},
           {"Relu", {"high_precision"}}});
  CHECK(Attr(*exp, ge::kImplModeAttr) == "high_performance");
  CHECK(Attr(*exp, ge::kRequestedImplModeAttr) == "high_performance");
  CHECK(Attr(*exp, ge::kImplModeReasonAttr) == "op_precision_mode m.ini:1 [ByOpType]");

  CHECK(Attr(*tanh, ge::kImplModeAttr) == "high_precision");
  CHECK_THAT(Attr(*tanh, ge::kImplModeReasonAttr),
             Catch::Contains("m.ini:2") && Catch::Contains("single implementation (high_precision)"));

  CHECK(Attr(*gelu, ge::kImplModeAttr) == "high_precision");
  CHECK_THAT(Attr(*gelu, ge::kImplModeReasonAttr),
             Catch::Contains("ignored") && Catch::Contains("high_precision, high_performance"));

  CHECK(Attr(*erf, ge::kImplModeAttr) == "high_precision");
  CHECK(Attr(*erf, ge::kRequestedImplModeAttr).empty());
  CHECK_THAT(Attr(*erf, ge::kImplModeReasonAttr), Catch::Contains("kernel default"));

  // Nothing asked and nothing to choose: left bare.
  CHECK(Attr(*relu, ge::kImplModeAttr) == "<absent>");
  CHECK(Attr(*relu, ge::kImplModeReasonAttr) == "<absent>");

  // A second run starts from scratch.
  selection.op_precision.reset();
  RunPass(graph, selection, {});
  CHECK(Attr(*erf, ge::kImplModeAttr) == "<absent>");
  CHECK(Attr(*exp, ge::kImplModeAttr) == "<absent>");
  CHECK(Attr(*exp, ge::kRequestedImplModeAttr) == "high_performance");  // high_performance.ini
}
