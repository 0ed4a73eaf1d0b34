// aclopExecuteV2 and aclopCompileAndExecute: validate the descriptors and
// buffers, compile the op once per (op type, descriptors, attributes), and run
// ge's CPU kernel on the stream's worker.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>
#include <cstring>
#include <map>
#include <variant>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "device/acl/emulator/compiled_op.h"
#include "device/acl/emulator/emulator_state.h"
#include "device/acl/emulator/op_attr.h"
#include "device/acl/emulator/type_mapping.h"
#include "ge/error.h"

namespace ge::acl_emulator {
namespace {

std::mutex cache_mutex;
std::map<std::string, std::shared_ptr<const CompiledOp>>& Cache() {
  static std::map<std::string, std::shared_ptr<const CompiledOp>> cache;
  return cache;
}

// An error code and message for the API's caller.
struct CallError {
  aclError code;
  std::string message;
};

void AppendAttr(std::string& key, const AttrValue& value) {
  std::visit(
      [&key](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, bool>) {
          key += fmt::format("{}", v);
        } else if constexpr (std::is_same_v<T, float>) {
          key += fmt::format("f{:x}", std::bit_cast<uint32_t>(v));  // bits: -0.0 and NaN payloads stay distinct
        } else if constexpr (std::is_same_v<T, std::string>) {
          key += fmt::format("{}:{}", v.size(), v);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          for (int64_t item : v) key += fmt::format("{},", item);
        } else if constexpr (std::is_same_v<T, std::vector<float>>) {
          for (float item : v) key += fmt::format("f{:x},", std::bit_cast<uint32_t>(item));
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          for (const std::string& item : v) key += fmt::format("{}:{},", item.size(), item);
        } else if constexpr (std::is_same_v<T, DataType>) {
          key += fmt::format("{}", static_cast<int>(v));
        }
        // Tensor and graph attributes cannot be set through aclopAttr.
      },
      value);
}

std::string CacheKey(const std::string& op_type, const std::vector<const aclTensorDesc*>& inputs,
                     const std::vector<const aclTensorDesc*>& outputs, const AttrMap& attrs) {
  std::string key = op_type;
  for (const auto* list : {&inputs, &outputs}) {
    key += "|";
    for (const aclTensorDesc* desc : *list) {
      key += fmt::format("{}/{}/{}", static_cast<int>(desc->dtype), static_cast<int>(desc->format),
                         fmt::join(desc->dims, ","));
      if (desc->constant) {  // constant content shapes the compiled op: it is part of the key
        key += fmt::format("=c{}:", desc->constant->size());
        key.append(reinterpret_cast<const char*>(desc->constant->data()), desc->constant->size());
      }
      key += ";";
    }
  }
  for (const auto& [name, value] : attrs.entries()) {
    key += fmt::format("|{}={}:", name, static_cast<int>(TypeOf(value)));
    AppendAttr(key, value);
  }
  return key;
}

// The tensor a descriptor states, or the error naming `call`, the op and the descriptor.
std::variant<TensorSpec, CallError> ReadDescriptor(const char* call, const std::string& op_type, const char* role,
                                                   int index, const aclTensorDesc* desc, bool may_be_absent) {
  auto fail = [&](aclError code, const std::string& what) {
    return CallError{code, fmt::format("{}: op '{}': {} {}: {}", call, op_type, role, index, what)};
  };
  if (desc == nullptr) return fail(ACL_ERROR_INVALID_PARAM, "the descriptor is null");
  if (desc->dtype == ACL_DT_UNDEFINED && may_be_absent)
    return TensorSpec{false, DataType::kUndefined, Shape(), std::nullopt};
  std::optional<DataType> dtype = ToGeDataType(desc->dtype);
  if (!dtype) {
    return fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
                fmt::format("aclDataType {} is not one the emulator runs", static_cast<int>(desc->dtype)));
  }
  if (!IsPlainFormat(desc->format)) {
    return fail(ACL_ERROR_FORMAT_NOT_MATCH,
                fmt::format("aclFormat {} is not a plain layout; the emulator runs ND, NCHW, NHWC, NC, NCL, HWCN, "
                            "NCDHW and NDHWC",
                            static_cast<int>(desc->format)));
  }
  for (int64_t dim : desc->dims) {
    if (dim < 0) {
      return fail(ACL_ERROR_INVALID_PARAM, fmt::format("dims [{}] are not static; the emulator runs static shapes only",
                                                       fmt::join(desc->dims, ",")));
    }
  }
  TensorSpec spec{true, *dtype, Shape(desc->dims), std::nullopt};
  if (desc->constant) {
    if (desc->constant->size() != spec.bytes()) {
      return fail(ACL_ERROR_INVALID_PARAM,
                  fmt::format("aclSetTensorConst gave {} bytes, the descriptor ({} {}) needs {}",
                              desc->constant->size(), DataTypeName(spec.dtype), spec.shape.ToString(), spec.bytes()));
    }
    Tensor constant(spec.dtype, spec.shape);
    if (spec.bytes() > 0) std::memcpy(constant.data(), desc->constant->data(), spec.bytes());
    spec.constant = std::move(constant);
  }
  return spec;
}

// Checks that a buffer is device memory holding `spec`; the caller holds the emulator's mutex.
std::optional<CallError> CheckBuffer(const Emulator& emulator, const char* call, const std::string& op_type,
                                     const char* role, int index, const aclDataBuffer* buffer, const TensorSpec& spec) {
  auto fail = [&](const std::string& what) {
    return CallError{ACL_ERROR_INVALID_PARAM, fmt::format("{}: op '{}': {} {}: {}", call, op_type, role, index, what)};
  };
  // An absent input needs no buffer; a constant one reads its aclSetTensorConst copy.
  if (!spec.present || spec.constant) return std::nullopt;
  if (buffer == nullptr) return fail("the data buffer is null");
  const size_t bytes = spec.bytes();
  if (buffer->size < bytes) {
    return fail(fmt::format("the buffer holds {} bytes, the descriptor ({} {}) needs {}", buffer->size,
                            DataTypeName(spec.dtype), spec.shape.ToString(), bytes));
  }
  if (bytes == 0) return std::nullopt;
  if (buffer->data == nullptr) return fail("the buffer's address is null");
  switch (emulator.Locate(buffer->data, bytes)) {
    case RangePlace::kHost:
      return fail(fmt::format("the buffer's address {} is not device memory (from aclrtMalloc)", buffer->data));
    case RangePlace::kPastEnd:
      return fail(
          fmt::format("the buffer {} plus {} bytes runs past the end of its device allocation", buffer->data, bytes));
    case RangePlace::kDevice:
      break;
  }
  return std::nullopt;
}

aclError ErrorCodeFor(const Error& error) {
  switch (error.code()) {
    case ErrorCode::kNotFound:
    case ErrorCode::kUnsupported:
      return ACL_ERROR_OP_NOT_FOUND;
    case ErrorCode::kInternal:
      return ACL_ERROR_INTERNAL_ERROR;
    default:
      return ACL_ERROR_INVALID_PARAM;
  }
}

// The cached op, or a new one compiled and checked against the output descriptors.
std::variant<std::shared_ptr<const CompiledOp>, CallError> FindOrCompile(
    const char* call, const std::string& op_type, const std::vector<const aclTensorDesc*>& input_descs,
    const std::vector<TensorSpec>& inputs, const std::vector<const aclTensorDesc*>& output_descs,
    const std::vector<TensorSpec>& outputs, const AttrMap& attrs) {
  const std::string key = CacheKey(op_type, input_descs, output_descs, attrs);
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    auto found = Cache().find(key);
    if (found != Cache().end()) return found->second;
  }
  std::shared_ptr<const CompiledOp> op;
  try {
    op = CompiledOp::Compile(op_type, inputs, outputs, attrs);
  } catch (const OutputMismatch& error) {
    return CallError{ACL_ERROR_OP_OUTPUT_NOT_MATCH, fmt::format("{}: op '{}': {}", call, op_type, error.what())};
  } catch (const Error& error) {
    return CallError{ErrorCodeFor(error), fmt::format("{}: op '{}': {}", call, op_type, error.what())};
  }
  std::lock_guard<std::mutex> lock(cache_mutex);
  return Cache().emplace(key, op).first->second;
}

aclError RunOp(const std::shared_ptr<const CompiledOp>& op, const std::string& op_type,
               const std::vector<void*>& inputs, const std::vector<void*>& outputs, std::string& message) {
  try {
    op->Run(inputs, outputs);
    return ACL_SUCCESS;
  } catch (const std::exception& error) {
    message = fmt::format("op '{}' failed: {}", op_type, error.what());
    return ACL_ERROR_RT_FAILURE;
  }
}

aclError Execute(const char* call, const char* op_type_arg, int num_inputs, const aclTensorDesc* const input_desc[],
                 const aclDataBuffer* const input_buffers[], int num_outputs, const aclTensorDesc* const output_desc[],
                 const aclDataBuffer* const output_buffers[], const aclopAttr* attr, aclrtStream stream) {
  if (aclError status = LockedCall(call).status()) return status;  // the lock is held again to launch
  if (op_type_arg == nullptr || op_type_arg[0] == '\0') {
    return Fail(ACL_ERROR_INVALID_PARAM, fmt::format("{}: opType is null or empty", call));
  }
  const std::string op_type = op_type_arg;
  if (num_inputs < 0 || num_outputs < 0 || (num_inputs > 0 && (input_desc == nullptr || input_buffers == nullptr)) ||
      (num_outputs > 0 && (output_desc == nullptr || output_buffers == nullptr))) {
    return Fail(ACL_ERROR_INVALID_PARAM, fmt::format("{}: op '{}': numInputs {} / numOutputs {} do not match the "
                                                     "descriptor and buffer arrays (null where entries are needed)",
                                                     call, op_type, num_inputs, num_outputs));
  }
  std::vector<const aclTensorDesc*> input_descs(input_desc, input_desc + num_inputs);
  std::vector<const aclTensorDesc*> output_descs(output_desc, output_desc + num_outputs);
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  for (int i = 0; i < num_inputs; ++i) {
    auto spec = ReadDescriptor(call, op_type, "input", i, input_descs[i], /*may_be_absent=*/true);
    if (auto* error = std::get_if<CallError>(&spec)) return Fail(error->code, error->message);
    inputs.push_back(std::get<TensorSpec>(spec));
  }
  for (int i = 0; i < num_outputs; ++i) {
    auto spec = ReadDescriptor(call, op_type, "output", i, output_descs[i], /*may_be_absent=*/false);
    if (auto* error = std::get_if<CallError>(&spec)) return Fail(error->code, error->message);
    outputs.push_back(std::get<TensorSpec>(spec));
  }
  static const AttrMap kNoAttrs;
  auto compiled = FindOrCompile(call, op_type, input_descs, inputs, output_descs, outputs,
                                attr != nullptr ? attr->attrs : kNoAttrs);
  if (auto* error = std::get_if<CallError>(&compiled)) return Fail(error->code, error->message);
  std::shared_ptr<const CompiledOp> op = std::get<std::shared_ptr<const CompiledOp>>(compiled);

  std::vector<void*> input_addresses;
  std::vector<void*> output_addresses;
  Emulator& emulator = Emulator::Get();
  std::unique_lock<std::mutex> lock(emulator.mutex);
  for (int i = 0; i < num_inputs; ++i) {
    if (auto error = CheckBuffer(emulator, call, op_type, "input", i, input_buffers[i], inputs[i])) {
      return Fail(error->code, error->message);
    }
    input_addresses.push_back(inputs[i].present && !inputs[i].constant ? input_buffers[i]->data : nullptr);
  }
  for (int i = 0; i < num_outputs; ++i) {
    if (auto error = CheckBuffer(emulator, call, op_type, "output", i, output_buffers[i], outputs[i])) {
      return Fail(error->code, error->message);
    }
    output_addresses.push_back(output_buffers[i]->data);
  }
  EmulatedStream* target = nullptr;
  if (stream != nullptr && (target = emulator.FindStream(stream)) == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                fmt::format("{}: op '{}': stream {} is not a live stream", call, op_type, stream));
  }
  if (emulator.op_failure_pending && (emulator.failing_op_type.empty() || emulator.failing_op_type == op_type)) {
    emulator.op_failure_pending = false;
    return Fail(ACL_ERROR_INTERNAL_ERROR, fmt::format("{}: op '{}' failed to launch (failure injected by "
                                                      "ge::acl_emulator::FailNextOp)",
                                                      call, op_type));
  }
  if (target == nullptr) {  // the default stream runs its work at launch
    lock.unlock();
    std::string message;
    if (aclError status = RunOp(op, op_type, input_addresses, output_addresses, message)) {
      return Fail(status, fmt::format("{}: {}", call, message));
    }
    return ACL_SUCCESS;
  }
  target->Launch([op, op_type, inputs = std::move(input_addresses), outputs = std::move(output_addresses)](
                     std::string& message) { return RunOp(op, op_type, inputs, outputs, message); });
  return ACL_SUCCESS;
}

}  // namespace

void ClearOpCache() {
  std::lock_guard<std::mutex> lock(cache_mutex);
  Cache().clear();
}

size_t OpCacheSize() {
  std::lock_guard<std::mutex> lock(cache_mutex);
  return Cache().size();
}

}  // namespace ge::acl_emulator

extern "C" {

aclError aclopExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                        int numOutputs, aclTensorDesc* outputDesc[], aclDataBuffer* outputs[], aclopAttr* attr,
                        aclrtStream stream) {
  return ge::acl_emulator::Execute("aclopExecuteV2", opType, numInputs, inputDesc, inputs, numOutputs, outputDesc,
                                   outputs, attr, stream);
}

aclError aclopCompileAndExecute(const char* opType, int numInputs, const aclTensorDesc* const inputDesc[],
                                const aclDataBuffer* const inputs[], int numOutputs,
                                const aclTensorDesc* const outputDesc[], aclDataBuffer* const outputs[],
                                const aclopAttr* attr, aclopEngineType engineType, aclopCompileType compileFlag,
                                const char* opPath, aclrtStream stream) {
  if (engineType < ACL_ENGINE_SYS || engineType > ACL_ENGINE_VECTOR) {
    return ge::acl_emulator::Fail(ACL_ERROR_INVALID_PARAM,
                                  fmt::format("aclopCompileAndExecute: engineType {} is not an aclopEngineType (0..2)",
                                              static_cast<int>(engineType)));
  }
  if (compileFlag != ACL_COMPILE_SYS && compileFlag != ACL_COMPILE_UNREGISTERED) {
    return ge::acl_emulator::Fail(
        ACL_ERROR_INVALID_PARAM,
        fmt::format(
            "aclopCompileAndExecute: compileFlag {} is neither ACL_COMPILE_SYS (0) nor ACL_COMPILE_UNREGISTERED "
            "(1)",
            static_cast<int>(compileFlag)));
  }
  // opPath names custom op implementations; the emulator runs ge's built-in kernels only.
  return ge::acl_emulator::Execute("aclopCompileAndExecute", opType, numInputs, inputDesc, inputs, numOutputs,
                                   outputDesc, outputs, attr, stream);
}

}  // extern "C"
