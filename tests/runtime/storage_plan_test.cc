// Storage decisions of compiled models, and the workspace fix-up of loaded plans.
#include <catch2/catch.hpp>

#include "device/device.h"
#include "ge/builder.h"
#include "ge/error.h"
#include "runtime/compile/compiler.h"
#include "runtime/compile/storage_plan.h"
#include "test_models.h"
#include "test_support.h"

using ge::DataType;
using ge::runtime::Storage;
using ge::runtime::StorageKind;
using ge::test::StorageOf;

namespace {


}  // namespace

TEST_CASE("storage: inputs, constants, views, outputs and intermediates", "[storage_plan]") {
  ge::GraphBuilder b("kinds");
  ge::Value* x = b.Input("x", DataType::kFloat, {2, 3});
  ge::Value* c = b.Constant("c", ge::test::RandomTensor({2, 3}, 1));
  ge::Value* hidden = b.Add(x, c, "hidden");
  ge::Value* view = b.Reshape(hidden, {3, 2}, "view");
  b.Outputs({b.Relu(view, "out"), b.Reshape(x, {6}, "input_view")});
  auto impl = ge::runtime::CompileGraph(b.Build(), {{"ge.disablePasses", "constant_folding"}});

  CHECK(StorageOf(*impl, "x") == Storage{StorageKind::kGraphInput, 0, 0});
  CHECK(StorageOf(*impl, "c") == Storage{StorageKind::kConstant, 0, 0});
  CHECK(StorageOf(*impl, "hidden").kind == StorageKind::kArena);
  CHECK(StorageOf(*impl, "view") == StorageOf(*impl, "hidden"));
  CHECK(StorageOf(*impl, "out") == Storage{StorageKind::kGraphOutput, 0, 0});
  CHECK(StorageOf(*impl, "input_view") == Storage{StorageKind::kGraphInput, 0, 0});  // copied out after the run
  CHECK(impl->memory.arena_bytes == 64);  // only "hidden" (24 bytes, aligned)
  CHECK_NOTHROW(ge::runtime::CheckStorage(*impl));
}

TEST_CASE("storage: a stored plan that writes into a constant is rejected", "[storage_plan]") {
  auto impl = ge::runtime::CompileGraph(ge::test::MlpModel().Build(), {});
  for (size_t id = 0; id < impl->values.size(); ++id) {
    if (impl->storage[id].kind == StorageKind::kArena) impl->storage[id] = Storage{StorageKind::kConstant, 0, 0};
  }
  CHECK_THROWS_AS(ge::runtime::CheckStorage(*impl), ge::Error);
}

TEST_CASE("storage: workspaces a stored plan made too small move past the arena", "[storage_plan]") {
  ge::test::ConvReluModel reference;
  auto impl = ge::runtime::CompileGraph(reference.Build(), {});
  ge::runtime::Step* step = nullptr;
  for (ge::runtime::Step& candidate : impl->steps) {
    if (candidate.kernel->WorkspaceBytes() > 0) step = &candidate;
  }
  if (step == nullptr) GE_SKIP("no kernel of the model uses a workspace on this host");
  const size_t needed = step->kernel->WorkspaceBytes();
  const size_t arena = impl->memory.arena_bytes;
  step->workspace_bytes = needed / 2;  // as planned on a host with fewer cores

  ge::runtime::GrowWorkspaces(*impl);
  CHECK(step->workspace_bytes == needed);
  CHECK(step->workspace_offset >= arena);
  CHECK(step->workspace_offset % 64 == 0);
  CHECK(impl->memory.arena_bytes >= step->workspace_offset + needed);

  impl->arenas = std::make_unique<ge::runtime::ArenaPool>(ge::device::CpuDevice().allocator(), impl->memory.arena_bytes,
                                                         impl->settings.max_arenas);
  ge::CompiledModel model(std::move(impl));
  ge::Tensor x = ge::test::RandomTensor(ge::test::ConvReluModel::InputShape(), 3);
  CHECK(ge::test::MaxAbsDiff(model.Run({x})[0], reference.Reference(x)) < 1e-5);
}
