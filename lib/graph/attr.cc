#include "ge/attr.h"

#include <fmt/core.h>

#include "ge/error.h"

namespace ge {

std::string_view AttrTypeName(AttrType type) {
  switch (type) {
    case AttrType::kInt: return "int";
    case AttrType::kFloat: return "float";
    case AttrType::kString: return "string";
    case AttrType::kBool: return "bool";
    case AttrType::kInts: return "list of int";
    case AttrType::kFloats: return "list of float";
    case AttrType::kStrings: return "list of string";
    case AttrType::kTensor: return "tensor";
    case AttrType::kDataType: return "dtype";
    case AttrType::kGraph: return "graph";
  }
  return "unknown";
}

const AttrValue* AttrMap::Find(const std::string& name) const {
  auto it = attrs_.find(name);
  return it == attrs_.end() ? nullptr : &it->second;
}

namespace {

template <typename T>
const T& Get(const AttrMap& map, const std::string& name, AttrType expected) {
  const AttrValue* value = map.Find(name);
  if (!value) {
    throw Error(ErrorCode::kInvalidModel, fmt::format("attribute '{}' is missing", name));
  }
  if (const T* typed = std::get_if<T>(value)) return *typed;
  throw Error(ErrorCode::kInvalidModel, fmt::format("attribute '{}' is a {}, expected a {}", name,
                                                    AttrTypeName(TypeOf(*value)), AttrTypeName(expected)));
}

}  // namespace

int64_t AttrMap::GetInt(const std::string& name) const { return Get<int64_t>(*this, name, AttrType::kInt); }
float AttrMap::GetFloat(const std::string& name) const { return Get<float>(*this, name, AttrType::kFloat); }
const std::string& AttrMap::GetString(const std::string& name) const {
  return Get<std::string>(*this, name, AttrType::kString);
}
bool AttrMap::GetBool(const std::string& name) const { return Get<bool>(*this, name, AttrType::kBool); }
const std::vector<int64_t>& AttrMap::GetInts(const std::string& name) const {
  return Get<std::vector<int64_t>>(*this, name, AttrType::kInts);
}
const std::vector<float>& AttrMap::GetFloats(const std::string& name) const {
  return Get<std::vector<float>>(*this, name, AttrType::kFloats);
}
const std::vector<std::string>& AttrMap::GetStrings(const std::string& name) const {
  return Get<std::vector<std::string>>(*this, name, AttrType::kStrings);
}
const Tensor& AttrMap::GetTensor(const std::string& name) const {
  return Get<Tensor>(*this, name, AttrType::kTensor);
}
DataType AttrMap::GetDataType(const std::string& name) const {
  return Get<DataType>(*this, name, AttrType::kDataType);
}
const Graph& AttrMap::GetGraph(const std::string& name) const {
  const auto& graph = Get<std::shared_ptr<const Graph>>(*this, name, AttrType::kGraph);
  if (!graph) throw Error(ErrorCode::kInvalidModel, fmt::format("attribute '{}' is missing", name));
  return *graph;
}

}  // namespace ge
