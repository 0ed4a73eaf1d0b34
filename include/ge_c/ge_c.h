/* ge_c.h: the stable C ABI of ge (C11; also usable from C++).
 *
 * Conventions (docs/c-abi.md states the compatibility rules):
 * - Every object is an opaque handle made by a ge_*_create / import / load /
 *   compile call and freed by its ge_*_release, which accepts NULL.
 * - Functions that can fail return a ge_status. On failure nothing is written
 *   to their out-parameters, and ge_last_error() describes the failure (the
 *   node and op it concerns, the file, the option...). No C++ exception ever
 *   crosses this interface.
 * - Strings passed in are copied; strings and arrays handed out stay valid as
 *   long as the handle they came from, unless said otherwise.
 * - Options are parallel arrays of `count` keys and values (`ge.*` keys of
 *   docs/options.md); count 0 allows NULL arrays.
 */
#ifndef GE_C_GE_C_H_
#define GE_C_GE_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GE_C_EXPORT __attribute__((visibility("default")))
#else
#define GE_C_EXPORT
#endif

/* The ABI this header describes: the major changes only on an incompatible
 * change (and is the SONAME of libge_c.so), the minor on every addition. */
#define GE_C_ABI_MAJOR 0
#define GE_C_ABI_MINOR 5

/* ---- status and errors --------------------------------------------------- */

typedef enum ge_status {
  GE_OK = 0,
  GE_INVALID_ARGUMENT = 1, /* bad argument, option, tensor, shape or dtype */
  GE_INVALID_MODEL = 2,    /* malformed model file, graph verification failure */
  GE_UNSUPPORTED = 3,      /* unknown op, unsupported dtype or attribute */
  GE_NOT_FOUND = 4,        /* missing file or graph id */
  GE_IO_ERROR = 5,         /* reading or writing a file failed */
  GE_INTERNAL = 6,         /* a bug in ge */
  GE_OUT_OF_MEMORY = 7     /* an allocation failed */
} ge_status;

/* The message of the last failed call on this thread ("" when that call
 * succeeded). Valid until the next ge_* call on this thread. Never NULL. */
GE_C_EXPORT const char* ge_last_error(void);

/* A static name for a status ("GE_INVALID_ARGUMENT"); "GE_UNKNOWN_STATUS" for others. */
GE_C_EXPORT const char* ge_status_name(ge_status status);

/* ---- versions ------------------------------------------------------------ */

/* The runtime version, "major.minor.patch" of the ge release. Static string. */
GE_C_EXPORT const char* ge_version(void);

/* The ABI the loaded library implements. A program built against this header
 * works with it when the majors are equal and the library's minor is >= the
 * header's GE_C_ABI_MINOR. Either pointer may be NULL. */
GE_C_EXPORT void ge_abi_version(uint32_t* major, uint32_t* minor);

/* ---- tensors ------------------------------------------------------------- */

/* Element types; the numbering is ge::DataType's (ACL's aclDataType). */
typedef enum ge_dtype {
  GE_DTYPE_UNDEFINED = -1,
  GE_DTYPE_FLOAT32 = 0,
  GE_DTYPE_FLOAT16 = 1,
  GE_DTYPE_INT8 = 2,
  GE_DTYPE_INT32 = 3,
  GE_DTYPE_UINT8 = 4,
  GE_DTYPE_INT16 = 6,
  GE_DTYPE_UINT16 = 7,
  GE_DTYPE_UINT32 = 8,
  GE_DTYPE_INT64 = 9,
  GE_DTYPE_UINT64 = 10,
  GE_DTYPE_FLOAT64 = 11,
  GE_DTYPE_BOOL = 12,
  GE_DTYPE_BFLOAT16 = 27,
  /* Values holding other values (ONNX's sequence and optional types): made
   * by ge_tensor_sequence_create / ge_tensor_optional_create, read with
   * ge_tensor_element. Their rank is 1, dims[0] the number of elements. */
  GE_DTYPE_SEQUENCE = 100,
  GE_DTYPE_OPTIONAL = 101,
  /* Not a dtype: makes the enum a full 32-bit int, so that any value a caller
   * passes is representable and can be refused with GE_INVALID_ARGUMENT. */
  GE_DTYPE_FORCE_INT32_ = 0x7fffffff
} ge_dtype;

typedef struct ge_tensor ge_tensor;

/* A new zero-filled tensor whose buffer ge owns (64-byte aligned). dims may be
 * NULL when rank is 0 (a scalar); every dim must be >= 0. */
GE_C_EXPORT ge_status ge_tensor_create(ge_dtype dtype, const int64_t* dims, size_t rank, ge_tensor** out);

/* A tensor over caller-owned memory: nothing is copied or freed, and `data`
 * (at least the tensor's byte size) must outlive every use of the tensor. */
GE_C_EXPORT ge_status ge_tensor_wrap(ge_dtype dtype, const int64_t* dims, size_t rank, void* data,
                                     ge_tensor** out);

/* Frees the handle (and the buffer when ge owns it and nothing shares it). */
GE_C_EXPORT void ge_tensor_release(ge_tensor* tensor);

/* Inspection; a NULL tensor gives GE_DTYPE_UNDEFINED, 0 or NULL. dims stay
 * valid as long as the tensor. A sequence or optional has 0 bytes and NULL data. */
GE_C_EXPORT ge_dtype ge_tensor_dtype(const ge_tensor* tensor);
GE_C_EXPORT size_t ge_tensor_rank(const ge_tensor* tensor);
GE_C_EXPORT const int64_t* ge_tensor_dims(const ge_tensor* tensor);
GE_C_EXPORT size_t ge_tensor_nbytes(const ge_tensor* tensor);
GE_C_EXPORT void* ge_tensor_data(ge_tensor* tensor);

/* A sequence of `count` tensors of element_dtype, or of sequences
 * (GE_DTYPE_SEQUENCE); the elements are shared, not copied, and their
 * handles may be released at once. Another element dtype is
 * GE_INVALID_ARGUMENT naming the element. */
GE_C_EXPORT ge_status ge_tensor_sequence_create(ge_dtype element_dtype, ge_tensor* const* elements, size_t count,
                                                ge_tensor** out);
/* An optional holding `element` (shared), or none when element is NULL. */
GE_C_EXPORT ge_status ge_tensor_optional_create(ge_dtype element_dtype, const ge_tensor* element, ge_tensor** out);
/* The dtype of a sequence's or optional's elements. */
GE_C_EXPORT ge_status ge_tensor_element_dtype(const ge_tensor* container, ge_dtype* out);
/* A new handle (the caller releases it) sharing element `index` of a
 * sequence or optional; index < ge_tensor_dims(container)[0]. */
GE_C_EXPORT ge_status ge_tensor_element(const ge_tensor* container, size_t index, ge_tensor** out);

/* ---- graphs -------------------------------------------------------------- */

typedef struct ge_graph ge_graph;
/* A value (an edge) of a graph; owned by the graph, never released. */
typedef struct ge_value ge_value;
/* Typed attributes for ge_graph_add_node. */
typedef struct ge_attrs ge_attrs;

GE_C_EXPORT ge_status ge_attrs_create(ge_attrs** out);
GE_C_EXPORT void ge_attrs_release(ge_attrs* attrs);
/* Each setter copies its arguments and replaces an attribute of that name. */
GE_C_EXPORT ge_status ge_attrs_set_int(ge_attrs* attrs, const char* name, int64_t value);
GE_C_EXPORT ge_status ge_attrs_set_float(ge_attrs* attrs, const char* name, float value);
GE_C_EXPORT ge_status ge_attrs_set_bool(ge_attrs* attrs, const char* name, int value);
GE_C_EXPORT ge_status ge_attrs_set_string(ge_attrs* attrs, const char* name, const char* value);
GE_C_EXPORT ge_status ge_attrs_set_dtype(ge_attrs* attrs, const char* name, ge_dtype value);
GE_C_EXPORT ge_status ge_attrs_set_ints(ge_attrs* attrs, const char* name, const int64_t* values, size_t count);
GE_C_EXPORT ge_status ge_attrs_set_floats(ge_attrs* attrs, const char* name, const float* values, size_t count);
/* The tensor's contents are copied. */
GE_C_EXPORT ge_status ge_attrs_set_tensor(ge_attrs* attrs, const char* name, const ge_tensor* value);

/* An empty graph to build with the calls below. */
GE_C_EXPORT ge_status ge_graph_create(const char* name, ge_graph** out);
GE_C_EXPORT void ge_graph_release(ge_graph* graph);

/* A graph input; inputs are numbered in the order they are added. A dim of
 * -1 is unknown until run time. */
GE_C_EXPORT ge_status ge_graph_add_input(ge_graph* graph, const char* name, ge_dtype dtype, const int64_t* dims,
                                         size_t rank, ge_value** out);
/* A constant; the tensor's contents are copied. */
GE_C_EXPORT ge_status ge_graph_add_constant(ge_graph* graph, const char* name, const ge_tensor* value,
                                            ge_value** out);
/* A node of any op of docs/op-set.md. `inputs` may hold NULL for an absent
 * optional input; `attrs` may be NULL; `name` may be NULL or "" (generated).
 * The node is checked at once (attribute defaults, dtype and shape
 * inference): on failure it is not added and the message names node and op.
 * Its num_outputs values are written to outputs[0..num_outputs). */
GE_C_EXPORT ge_status ge_graph_add_node(ge_graph* graph, const char* op_type, const char* name,
                                        ge_value* const* inputs, size_t num_inputs, const ge_attrs* attrs,
                                        size_t num_outputs, ge_value** outputs);
/* Appends values to the graph outputs (a graph needs at least one). */
GE_C_EXPORT ge_status ge_graph_set_outputs(ge_graph* graph, ge_value* const* values, size_t count);

/* Inspection of a value; NULL gives GE_DTYPE_UNDEFINED, 0, NULL or "". The
 * rank is SIZE_MAX when unknown. */
GE_C_EXPORT const char* ge_value_name(const ge_value* value);
GE_C_EXPORT ge_dtype ge_value_dtype(const ge_value* value);
GE_C_EXPORT size_t ge_value_rank(const ge_value* value);
GE_C_EXPORT const int64_t* ge_value_dims(const ge_value* value);

/* ONNX import: the model is read, checked and translated into a new graph.
 * Imported graphs are complete: nodes cannot be added to them. External data
 * is resolved in the model's folder (from memory: in base_dir, which may be
 * NULL to refuse external data). */
GE_C_EXPORT ge_status ge_onnx_import_file(const char* path, ge_graph** out);
GE_C_EXPORT ge_status ge_onnx_import_memory(const void* data, size_t size, const char* base_dir, ge_graph** out);

/* ---- compiled models ------------------------------------------------------- */

typedef struct ge_model ge_model;

/* Verifies and compiles a copy of the graph. The graph is then complete (no
 * more nodes or outputs) but stays usable for other compiles. */
GE_C_EXPORT ge_status ge_compile(ge_graph* graph, const char* const* option_keys,
                                 const char* const* option_values, size_t option_count, ge_model** out);
/* Destroying a model waits for its queued asynchronous runs: do not release a
 * model from one of its own run callbacks. */
GE_C_EXPORT void ge_model_release(ge_model* model);

/* .gem files: the file appears whole or not at all. Load options may override
 * the run-time options stored in the file (docs/model-file.md). */
GE_C_EXPORT ge_status ge_model_save(const ge_model* model, const char* path);
GE_C_EXPORT ge_status ge_model_load(const char* path, const char* const* option_keys,
                                    const char* const* option_values, size_t option_count, ge_model** out);
GE_C_EXPORT ge_status ge_model_load_memory(const void* data, size_t size, const char* const* option_keys,
                                           const char* const* option_values, size_t option_count,
                                           ge_model** out);

/* One graph input or output. Versioned by size: set struct_size to
 * sizeof(ge_tensor_info) before the call; ge fills the members that fit and
 * sets struct_size to the bytes it wrote. */
typedef struct ge_tensor_info {
  size_t struct_size;
  const char* name;
  ge_dtype dtype;
  size_t rank;
  const int64_t* dims; /* -1: known at run time only */
  /* (0.4) Inputs: rank names, the name the model gives each dim (ONNX
   * dim_param, "batch"), "" for a dim without one; NULL when no dim is named.
   * Dims named alike must have one size in a run. (0.5) Outputs of a model with
   * dims known at run time only: the expression over those names that gives
   * each dim ("sequence + past"), "" for a constant dim or one that depends
   * on data; NULL when none has one. */
  const char* const* dim_names;
} ge_tensor_info;

/* The number of inputs / outputs (0 for NULL). */
GE_C_EXPORT size_t ge_model_input_count(const ge_model* model);
GE_C_EXPORT size_t ge_model_output_count(const ge_model* model);
/* Pointers in *out stay valid as long as the model. */
GE_C_EXPORT ge_status ge_model_input_info(const ge_model* model, size_t index, ge_tensor_info* out);
GE_C_EXPORT ge_status ge_model_output_info(const ge_model* model, size_t index, ge_tensor_info* out);

/* What the memory planner decided, in bytes. Versioned like ge_tensor_info. */
typedef struct ge_memory_summary {
  size_t struct_size;
  uint64_t const_bytes;       /* weights and other constants */
  uint64_t arena_bytes;       /* planned activation arena of one run */
  uint64_t no_reuse_bytes;    /* activations without any reuse */
  uint64_t lower_bound_bytes; /* peak of simultaneously live activation bytes */
  int32_t dynamic;            /* 1: shapes known at run time only, nothing planned */
  const char* placement_strategy; /* valid as long as the model; "" when dynamic */
} ge_memory_summary;

GE_C_EXPORT ge_status ge_model_memory_summary(const ge_model* model, ge_memory_summary* out);

/* What the model's runs so far did besides kernels: the work a steady state
 * no longer does (docs/runtime.md, "Dynamic models"). Versioned like
 * ge_tensor_info. */
typedef struct ge_run_stats {
  size_t struct_size;
  uint64_t runs;
  uint64_t planned_runs;       /* runs of a static plan (a dynamic model's per-shape plans included) */
  uint64_t node_by_node_runs;  /* a dynamic model's runs without a plan */
  uint64_t plans_compiled;     /* static plans a dynamic model compiled for input-shape signatures */
  uint64_t kernels_built;      /* kernels built during runs (dynamic models) */
  uint64_t buffer_allocations; /* activation memory taken from the system: arenas, or tensor buffers */
  uint64_t shape_inferences;   /* (0.5) a dynamic model's steps whose shapes a schema inferred, those not
                                * computed from symbolic dims nor repeating their last shapes */
} ge_run_stats;

GE_C_EXPORT ge_status ge_model_run_stats(const ge_model* model, ge_run_stats* out);

/* Runs the model; thread-safe. inputs[i] is the model's input i. For each
 * output, outputs[i] is either NULL, and then receives a new tensor that the
 * caller releases (engine-owned buffer), or a caller-made tensor (e.g.
 * ge_tensor_wrap over its own buffer) of the output's dtype and shape, which
 * the result is copied into. On failure no output is written. */
GE_C_EXPORT ge_status ge_model_run(const ge_model* model, ge_tensor* const* inputs, size_t num_inputs,
                                   ge_tensor** outputs, size_t num_outputs);

/* Receives an asynchronous run's outcome on a run thread of the model. On
 * success `outputs` holds num_outputs new tensors that the callback owns (it
 * releases them, or keeps them); the array itself is valid only during the
 * call. On failure outputs is NULL and `message` says why ("" on success). */
typedef void (*ge_run_callback)(void* user_data, ge_status status, const char* message, ge_tensor** outputs,
                                size_t num_outputs);

/* Queues a run and returns at once. The input buffers are shared, not copied:
 * keep them unchanged until the callback (the handles may be released at
 * once). On failure (bad arguments) the callback is never called. */
GE_C_EXPORT ge_status ge_model_run_async(const ge_model* model, ge_tensor* const* inputs, size_t num_inputs,
                                         ge_run_callback callback, void* user_data);

/* ---- IO binding ------------------------------------------------------------ */

/* A model's inputs and outputs bound by name to tensors (ONNX Runtime's
 * IoBinding). Inputs are shared, not copied. An output bound to a tensor (e.g.
 * ge_tensor_wrap over the caller's buffer) is written there by the kernel
 * that makes it; a buffer overlapping an input is written after every read
 * of the inputs, so binding one buffer as a state's input and output (an
 * LSTM's h) updates it in place. A bound buffer's shape must equal the
 * output's shape in the run: bind anew when shapes change. The handles
 * passed in may be released at once; the memory they wrap must stay. One
 * binding serves one run at a time. */
typedef struct ge_io_binding ge_io_binding;

/* The binding keeps the model alive (the model handle may be released). */
GE_C_EXPORT ge_status ge_io_binding_create(const ge_model* model, ge_io_binding** out);
GE_C_EXPORT void ge_io_binding_release(ge_io_binding* binding);
/* An unknown name, another dtype or a shape the model's known dims refuse
 * fail with GE_INVALID_ARGUMENT; the message lists the valid names. tensor
 * NULL unbinds the input. */
GE_C_EXPORT ge_status ge_io_binding_bind_input(ge_io_binding* binding, const char* name, const ge_tensor* tensor);
/* tensor NULL: the output comes back in a buffer of ge's own again. */
GE_C_EXPORT ge_status ge_io_binding_bind_output(ge_io_binding* binding, const char* name, const ge_tensor* tensor);
/* Runs with the bound tensors; every input must be bound. After a failure
 * the bound output buffers hold undefined values. */
GE_C_EXPORT ge_status ge_io_binding_run(ge_io_binding* binding);
/* A new handle (the caller releases it) on output `index` of the last
 * successful run: the bound tensor's buffer, or ge's own. */
GE_C_EXPORT ge_status ge_io_binding_output(const ge_io_binding* binding, size_t index, ge_tensor** out);

/* ---- sessions -------------------------------------------------------------- */

typedef struct ge_session ge_session;

/* A session with `ge.*` options that apply to every graph it holds. */
GE_C_EXPORT ge_status ge_session_create(const char* const* option_keys, const char* const* option_values,
                                        size_t option_count, ge_session** out);
/* Waits for the session's queued runs. */
GE_C_EXPORT void ge_session_release(ge_session* session);
/* Adds a copy of the graph under graph_id, with per-graph options; the graph
 * is then complete, as after ge_compile. */
GE_C_EXPORT ge_status ge_session_add_graph(ge_session* session, uint32_t graph_id, ge_graph* graph,
                                           const char* const* option_keys, const char* const* option_values,
                                           size_t option_count);
/* Compiles the graph (once) and hands out its model, which the caller releases. */
GE_C_EXPORT ge_status ge_session_compile_graph(ge_session* session, uint32_t graph_id, ge_model** out);
/* Runs the graph (compiling on first use); outputs as for ge_model_run. */
GE_C_EXPORT ge_status ge_session_run_graph(ge_session* session, uint32_t graph_id, ge_tensor* const* inputs,
                                           size_t num_inputs, ge_tensor** outputs, size_t num_outputs);

/* ---- testing --------------------------------------------------------------- */

/* Makes the next ge_* call on this thread that can fail throw, inside the
 * library, an exception of the given kind: 1 ge::Error(kInternal), 2
 * std::bad_alloc, 3 a std::exception, 4 a non-std exception; 0 disarms. For
 * tests that check no exception escapes; returns GE_INVALID_ARGUMENT for an
 * unknown kind. */
GE_C_EXPORT ge_status ge_test_inject_failure(int kind);

#ifdef __cplusplus
}
#endif

#endif /* GE_C_GE_C_H_ */
