// Typed node attributes for ge_graph_add_node.
#include "c_api_internal.h"

namespace {

template <typename Value>
ge_status SetAttr(const char* function, ge_attrs* attrs, const char* name, Value make_value) {
  return ge::capi::Guard(function, [&] {
    ge::capi::Require(attrs, "attrs");
    const std::string key = ge::capi::RequireString(name, "name");
    FromC(attrs)->values[key] = make_value();
  });
}

}  // namespace

extern "C" {

ge_status ge_attrs_create(ge_attrs** out) {
  return ge::capi::Guard("ge_attrs_create", [&] {
    ge::capi::Require(out, "out");
    *out = ToC(new ge::capi::AttrsHandle());
  });
}

void ge_attrs_release(ge_attrs* attrs) { delete FromC(attrs); }

ge_status ge_attrs_set_int(ge_attrs* attrs, const char* name, int64_t value) {
  return SetAttr("ge_attrs_set_int", attrs, name, [&] { return ge::AttrValue(value); });
}

ge_status ge_attrs_set_float(ge_attrs* attrs, const char* name, float value) {
  return SetAttr("ge_attrs_set_float", attrs, name, [&] { return ge::AttrValue(value); });
}

ge_status ge_attrs_set_bool(ge_attrs* attrs, const char* name, int value) {
  return SetAttr("ge_attrs_set_bool", attrs, name, [&] { return ge::AttrValue(value != 0); });
}

ge_status ge_attrs_set_string(ge_attrs* attrs, const char* name, const char* value) {
  return SetAttr("ge_attrs_set_string", attrs, name,
                 [&] { return ge::AttrValue(ge::capi::RequireString(value, "value")); });
}

ge_status ge_attrs_set_dtype(ge_attrs* attrs, const char* name, ge_dtype value) {
  return SetAttr("ge_attrs_set_dtype", attrs, name, [&] { return ge::AttrValue(ge::capi::ToDataType(value)); });
}

ge_status ge_attrs_set_ints(ge_attrs* attrs, const char* name, const int64_t* values, size_t count) {
  return SetAttr("ge_attrs_set_ints", attrs, name, [&] {
    if (count > 0) ge::capi::Require(values, "values");
    return ge::AttrValue(std::vector<int64_t>(values, values + count));
  });
}

ge_status ge_attrs_set_floats(ge_attrs* attrs, const char* name, const float* values, size_t count) {
  return SetAttr("ge_attrs_set_floats", attrs, name, [&] {
    if (count > 0) ge::capi::Require(values, "values");
    return ge::AttrValue(std::vector<float>(values, values + count));
  });
}

ge_status ge_attrs_set_tensor(ge_attrs* attrs, const char* name, const ge_tensor* value) {
  return SetAttr("ge_attrs_set_tensor", attrs, name, [&] {
    ge::capi::Require(value, "value");
    return ge::AttrValue(FromC(value)->tensor.Clone());
  });
}

}  // extern "C"
