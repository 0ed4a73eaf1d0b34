#include "gem_tamper.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "runtime/model_file/gem_checksum.h"
#include "test_support.h"

namespace ge::test {

std::string SavedGem(const CompiledModel& model) {
  const std::filesystem::path dir = TempDir("runtime-gem-tamper-save");
  const std::filesystem::path path = dir / "model.gem";
  model.Save(path.string());
  std::ifstream in(path, std::ios::binary);
  std::string bytes(std::istreambuf_iterator<char>(in), {});
  std::filesystem::remove_all(dir);
  return bytes;
}

std::string Tampered(std::string bytes, const std::function<void(gem::Model&)>& edit) {
  auto* data = reinterpret_cast<uint8_t*>(bytes.data());
  gem::Model& model = *gem::GetMutableModel(data);
  edit(model);
  gem::Stamp& stamp = *model.mutable_header()->mutable_stamp();
  const size_t checksum_offset = reinterpret_cast<const uint8_t*>(&stamp) - data;
  stamp.mutate_checksum(runtime::GemChecksum(data, bytes.size(), checksum_offset, stamp.format_version()));
  return bytes;
}

namespace {

// The table of `tables` that `matches`; fails the test (naming `what`) when none does.
template <typename Table, typename Matches>
Table& Find(flatbuffers::Vector<flatbuffers::Offset<Table>>* tables, Matches matches, const std::string& what) {
  Table* found = nullptr;
  for (flatbuffers::uoffset_t i = 0; tables != nullptr && i < tables->size() && found == nullptr; ++i) {
    if (matches(*tables->Get(i))) found = tables->GetMutableObject(i);
  }
  INFO("the file has no " << what);
  REQUIRE(found != nullptr);
  return *found;
}

}  // namespace

gem::NodeDef& NodeNamed(gem::Model& model, const std::string& name) {
  return Find(model.mutable_graph()->mutable_nodes(), [&](const gem::NodeDef& node) { return node.name()->str() == name; },
              "node '" + name + "'");
}

gem::ValueDef& ValueNamed(gem::Model& model, const std::string& name) {
  return Find(model.mutable_graph()->mutable_values(),
              [&](const gem::ValueDef& value) { return value.name()->str() == name; }, "value '" + name + "'");
}

gem::Attr& AttrNamed(gem::NodeDef& node, const std::string& name) {
  return Find(node.mutable_attrs(), [&](const gem::Attr& attr) { return attr.name()->str() == name; },
              "attribute '" + name + "' of node '" + node.name()->str() + "'");
}

gem::StepDef& StepOf(gem::Model& model, const std::string& node_name) {
  const auto& nodes = *model.graph()->nodes();
  return Find(model.mutable_plan()->mutable_steps(),
              [&](const gem::StepDef& step) { return nodes.Get(step.node())->name()->str() == node_name; },
              "step of node '" + node_name + "'");
}

gem::ValueStorage& StorageOf(gem::Model& model, const std::string& value_name) {
  const auto& values = *model.graph()->values();
  flatbuffers::uoffset_t id = 0;
  while (id < values.size() && values.Get(id)->name()->str() != value_name) ++id;
  auto* storage = model.mutable_plan()->mutable_storage();
  INFO("the plan stores no value '" << value_name << "'");
  REQUIRE((storage != nullptr && id < storage->size()));
  return *storage->GetMutableObject(id);
}

void Overwrite(flatbuffers::String& string, const std::string& same_length) {
  REQUIRE(string.size() == same_length.size());
  std::memcpy(string.Data(), same_length.data(), same_length.size());
}

}  // namespace ge::test
