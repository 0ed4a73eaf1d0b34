// Edits a saved .gem file as an attacker would: fields are changed in place
// and the file is sealed again with the checksum, which anyone can compute
// (it is public and unkeyed). Only the loader's own validation then stands
// between the edit and the kernels.
#pragma once

#include <functional>
#include <string>

#include <catch2/catch.hpp>

#include "gem_generated.h"
#include "ge/compiled_model.h"

namespace ge::test {

// The bytes of `model` saved as a .gem file.
std::string SavedGem(const CompiledModel& model);

// `bytes` after `edit` changed its tables in place (the generated mutable
// API), with the checksum recomputed so that only validation can refuse it.
std::string Tampered(std::string bytes, const std::function<void(gem::Model&)>& edit);

// Lookups for edits; each fails the test when there is no such thing.
gem::NodeDef& NodeNamed(gem::Model& model, const std::string& name);
gem::ValueDef& ValueNamed(gem::Model& model, const std::string& name);
gem::Attr& AttrNamed(gem::NodeDef& node, const std::string& name);
// The value table of that attribute, which must be a `Data` (gem::IntAttr, gem::IntsAttr, ...).
template <typename Data>
Data& AttrData(gem::NodeDef& node, const std::string& name) {
  gem::Attr& attr = AttrNamed(node, name);
  const gem::AttrData expected = gem::AttrDataTraits<Data>::enum_value;  // a copy: the trait is declared only
  REQUIRE(attr.data_type() == expected);
  return *static_cast<Data*>(attr.mutable_data());
}
// The plan step that runs the node of that name.
gem::StepDef& StepOf(gem::Model& model, const std::string& node_name);
// The plan's storage entry of the value of that name.
gem::ValueStorage& StorageOf(gem::Model& model, const std::string& value_name);

// Overwrites a string of the file with another of the same length.
void Overwrite(flatbuffers::String& string, const std::string& same_length);

}  // namespace ge::test
