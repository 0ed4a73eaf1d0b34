// Typed node attributes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ge/export.h"
#include "ge/tensor.h"
#include "ge/types.h"

namespace ge {

class Graph;

enum class AttrType : int {
  kInt = 0,
  kFloat,
  kString,
  kBool,
  kInts,
  kFloats,
  kStrings,
  kTensor,
  kDataType,
  kGraph,  // a subgraph (If branches, Loop and Scan bodies); immutable, shared by copies of the node
};

GE_API std::string_view AttrTypeName(AttrType type);

// The alternatives are in AttrType order, so AttrValue::index() == AttrType.
using AttrValue = std::variant<int64_t, float, std::string, bool, std::vector<int64_t>, std::vector<float>,
                               std::vector<std::string>, Tensor, DataType, std::shared_ptr<const Graph>>;

inline AttrType TypeOf(const AttrValue& value) { return static_cast<AttrType>(value.index()); }

// Attribute dictionary of a node. Getters throw ge::Error (naming the attribute
// and the expected type) when the attribute is absent or has another type.
class GE_API AttrMap {
 public:
  void Set(const std::string& name, AttrValue value) { attrs_[name] = std::move(value); }
  bool Has(const std::string& name) const { return attrs_.count(name) != 0; }
  void Erase(const std::string& name) { attrs_.erase(name); }
  const AttrValue* Find(const std::string& name) const;

  int64_t GetInt(const std::string& name) const;
  float GetFloat(const std::string& name) const;
  const std::string& GetString(const std::string& name) const;
  bool GetBool(const std::string& name) const;
  const std::vector<int64_t>& GetInts(const std::string& name) const;
  const std::vector<float>& GetFloats(const std::string& name) const;
  const std::vector<std::string>& GetStrings(const std::string& name) const;
  const Tensor& GetTensor(const std::string& name) const;
  DataType GetDataType(const std::string& name) const;
  // Never null: a null graph attribute is reported as missing.
  const Graph& GetGraph(const std::string& name) const;

  const std::map<std::string, AttrValue>& entries() const { return attrs_; }

 private:
  std::map<std::string, AttrValue> attrs_;
};

}  // namespace ge
