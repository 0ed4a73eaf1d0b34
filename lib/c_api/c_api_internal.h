// Shared pieces of the C ABI implementation: the structs behind the opaque
// handles and Guard(), the catch-all that every fallible entry point runs its
// body in, so that no exception crosses into C.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ge/attr.h"
#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/graph.h"
#include "ge/io_binding.h"
#include "ge/plugin.h"
#include "ge/session.h"
#include "ge/tensor.h"
#include "ge_c/ge_c.h"

namespace ge::capi {

// The objects behind the opaque handles. They are not named ge_tensor, ...:
// the C types stay incomplete in the library too, so its debug info (which
// abidiff compares with abi/ge_c.abi) shows no C++ internals behind them.
struct TensorHandle {
  Tensor tensor;
};

struct AttrsHandle {
  std::map<std::string, AttrValue> values;
};

// A graph is built through a GraphBuilder until something needs the finished
// graph (compile, a session); then the builder's Build() verifies it once and
// the graph is complete. Imported graphs are complete from the start.
struct GraphHandle {
  std::string name;
  std::unique_ptr<GraphBuilder> builder;  // null once complete
  std::unique_ptr<Graph> complete;
};

struct ModelHandle {
  std::shared_ptr<const CompiledModel> model;
  MemorySummary memory;  // cached, so that placement_strategy outlives the call
  // Per input and output, its TensorInfo::dim_names as C strings (empty when
  // none), for ge_tensor_info.
  std::vector<std::vector<const char*>> input_dim_names, output_dim_names;
};

struct IoBindingHandle {
  IoBinding binding;
};

struct SessionHandle {
  Session session;
  explicit SessionHandle(Options options) : session(std::move(options)) {}
};

// Records the failure for ge_last_error() and returns its status.
ge_status Fail(ge_status status, const std::string& message);
void ClearError();
ge_status StatusOf(ErrorCode code);
// Throws the armed test failure (ge_test_inject_failure) once, if any.
void ThrowInjectedFailure();

// Runs body() and turns whatever it throws into a status and a message that
// starts with the entry point's name.
template <typename Body>
ge_status Guard(const char* function, Body&& body) noexcept {
  // The plugins GE_PLUGIN_PATH names load before any entry point's work, so
  // that their ops exist on first use.
  LoadPluginsFromEnvironment();
  try {
    ThrowInjectedFailure();
    body();
    ClearError();
    return GE_OK;
  } catch (const Error& e) {
    return Fail(StatusOf(e.code()), std::string(function) + ": " + e.what());
  } catch (const std::bad_alloc&) {
    return Fail(GE_OUT_OF_MEMORY, std::string(function) + ": out of memory");
  } catch (const std::exception& e) {
    return Fail(GE_INTERNAL, std::string(function) + ": internal error: " + e.what());
  } catch (...) {
    return Fail(GE_INTERNAL, std::string(function) + ": internal error: unknown exception");
  }
}

// Throws kInvalidArgument naming the argument when it is null.
void Require(const void* pointer, const char* argument);
// A string argument that must be non-null.
std::string RequireString(const char* text, const char* argument);

Options ToOptions(const char* const* keys, const char* const* values, size_t count);
Shape ToShape(const int64_t* dims, size_t rank);
DataType ToDataType(ge_dtype dtype);
std::vector<Tensor> ToTensors(ge_tensor* const* tensors, size_t count, const char* argument);

// The finished graph, completing (building and verifying) it on first use.
const Graph& CompleteGraph(GraphHandle& graph);

// A model handle (which caches the memory summary).
ge_model* NewModel(std::shared_ptr<const CompiledModel> compiled);

// Hands the results over as for ge_model_run: new tensors into null slots,
// copies into caller-made ones. Checks every slot before writing any.
void DeliverOutputs(std::vector<Tensor> results, ge_tensor** outputs, size_t num_outputs);

}  // namespace ge::capi

// Conversions between the C handles and the objects behind them.
#define GE_CAPI_HANDLE(c_type, impl_type)                                                                \
  inline c_type* ToC(impl_type* impl) { return reinterpret_cast<c_type*>(impl); }                        \
  inline impl_type* FromC(c_type* handle) { return reinterpret_cast<impl_type*>(handle); }               \
  inline const impl_type* FromC(const c_type* handle) { return reinterpret_cast<const impl_type*>(handle); }
GE_CAPI_HANDLE(ge_tensor, ge::capi::TensorHandle)
GE_CAPI_HANDLE(ge_attrs, ge::capi::AttrsHandle)
GE_CAPI_HANDLE(ge_graph, ge::capi::GraphHandle)
GE_CAPI_HANDLE(ge_model, ge::capi::ModelHandle)
GE_CAPI_HANDLE(ge_session, ge::capi::SessionHandle)
GE_CAPI_HANDLE(ge_io_binding, ge::capi::IoBindingHandle)
GE_CAPI_HANDLE(ge_value, ge::Value)
#undef GE_CAPI_HANDLE
