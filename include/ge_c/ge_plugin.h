/* ge_plugin.h: the plugin ABI of ge (C11; also usable from C++).
 *
 * A plugin is a shared library that framework vendors build against this
 * header alone (it needs no link to libge_c). It exports two functions:
 *
 *   uint32_t ge_plugin_abi_version(void);             returns GE_PLUGIN_ABI_VERSION
 *   int ge_plugin_register(const ge_plugin_host* host); 0 on success
 *
 * The host (libge) loads it through ge_plugin_load(), ge::LoadPlugin (the C++
 * API, ge/plugin.h) or the GE_PLUGIN_PATH environment variable, checks the
 * declared version, then calls
 * ge_plugin_register with its table of functions, through which the plugin
 * registers custom ops (schema and shape inference), CPU kernels and passes.
 *
 * Versioning: the host loads plugins declaring its own plugin-ABI major or an
 * older one and refuses a newer major. The host table only grows (members are
 * appended, never removed or reordered); host->struct_size tells a plugin which
 * members exist, so a plugin built against a newer minor checks it before
 * calling a member it knows and an older host may lack. Every struct a plugin
 * passes in starts with struct_size for the same reason in the other direction.
 * Callbacks must not let C++ exceptions escape; they report failure by
 * returning nonzero after host->set_error(message).
 * docs/c-abi.md ("Plugins") has the whole story. */
#ifndef GE_C_GE_PLUGIN_H_
#define GE_C_GE_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#include "ge_c/ge_c.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GE_PLUGIN_ABI_MAJOR 1
#define GE_PLUGIN_ABI_MINOR 0
/* A version as ge_plugin_abi_version() returns it: major in the high 16 bits. */
#define GE_PLUGIN_ABI_MAKE_VERSION(major, minor) ((uint32_t)(((uint32_t)(major) << 16) | ((uint32_t)(minor) & 0xffffu)))
#define GE_PLUGIN_ABI_VERSION GE_PLUGIN_ABI_MAKE_VERSION(GE_PLUGIN_ABI_MAJOR, GE_PLUGIN_ABI_MINOR)

/* Loads the plugin at `path` (a shared library file) and runs its
 * registration. Failures: GE_NOT_FOUND (no such file), GE_INVALID_ARGUMENT
 * (not a loadable library, not a ge plugin, a newer plugin-ABI major, a
 * registration that failed or clashes with a registered op type); the message
 * names the path. Loading the same file twice is a no-op. */
GE_C_EXPORT ge_status ge_plugin_load(const char* path);

/* ---- What a plugin sees ------------------------------------------------- */

/* A node's attributes (the schema defaults filled in), for inference and kernels. */
typedef struct ge_plugin_attrs ge_plugin_attrs;
typedef struct ge_plugin_infer_context ge_plugin_infer_context;
typedef struct ge_plugin_kernel_context ge_plugin_kernel_context;

typedef enum ge_plugin_attr_type {
  GE_PLUGIN_ATTR_INT = 0,
  GE_PLUGIN_ATTR_FLOAT = 1,
  GE_PLUGIN_ATTR_STRING = 2,
  GE_PLUGIN_ATTR_FORCE_INT32_ = 0x7fffffff
} ge_plugin_attr_type;

/* One attribute of a custom op. Without `required`, the default of its type
 * (default_int, default_float or default_string) fills it in when a node omits it. */
typedef struct ge_plugin_attr_decl {
  const char* name;
  ge_plugin_attr_type type;
  int required;
  int64_t default_int;
  double default_float;
  const char* default_string;
} ge_plugin_attr_decl;

/* Sets the output dtypes and shapes from the inputs' (and the attributes);
 * 0 on success, else nonzero after host->set_error. */
typedef int (*ge_plugin_infer_fn)(void* user_data, ge_plugin_infer_context* context);

typedef struct ge_plugin_op_def {
  size_t struct_size; /* sizeof(ge_plugin_op_def) */
  const char* op_type;
  size_t num_inputs;  /* all required; any dtype (the kernels' dtypes limit what runs) */
  size_t num_outputs;
  const ge_plugin_attr_decl* attrs;
  size_t num_attrs;
  ge_plugin_infer_fn infer;
  void* infer_user_data;
  const char* doc; /* may be NULL */
} ge_plugin_op_def;

/* Computes the outputs from the inputs; called from several threads at once.
 * 0 on success, else nonzero after host->set_error. */
typedef int (*ge_plugin_kernel_fn)(void* user_data, const ge_plugin_kernel_context* context);

typedef struct ge_plugin_kernel_def {
  size_t struct_size; /* sizeof(ge_plugin_kernel_def) */
  const char* op_type;
  ge_dtype dtype; /* of the first input */
  ge_plugin_kernel_fn run;
  void* user_data;
} ge_plugin_kernel_def;

/* A node as a pass sees it; valid during the visit only. */
typedef struct ge_plugin_node ge_plugin_node;

/* Where a pass runs in the compile pipeline (after the built-in passes of its stage). */
typedef enum ge_plugin_pass_stage {
  GE_PLUGIN_PASS_BEFORE_INFER_SHAPE = 1, /* shapes may be unknown */
  GE_PLUGIN_PASS_AFTER_INFER_SHAPE = 3,  /* dtypes and shapes known, constants folded */
  GE_PLUGIN_PASS_FINAL = 6,              /* last, before planning */
  GE_PLUGIN_PASS_FORCE_INT32_ = 0x7fffffff
} ge_plugin_pass_stage;

/* Visits one node (nodes come in topological order) and may change its
 * attributes; sets *changed when it did. 0 on success, else nonzero after
 * host->set_error (the compile then fails naming the node and the pass). */
typedef int (*ge_plugin_node_visit_fn)(void* user_data, ge_plugin_node* node, int* changed);

typedef struct ge_plugin_pass_def {
  size_t struct_size; /* sizeof(ge_plugin_pass_def) */
  const char* name;   /* unique among all passes; the compile option that disables passes takes it */
  ge_plugin_pass_stage stage;
  ge_plugin_node_visit_fn visit;
  void* user_data;
} ge_plugin_pass_def;

/* The host table. Members are only ever appended (see above). Attribute
 * getters return 0 and write *out when the attribute exists with that type,
 * else return nonzero. Strings stay valid for the duration of the callback. */
typedef struct ge_plugin_host {
  size_t struct_size;
  uint32_t abi_version; /* the host's GE_PLUGIN_ABI_VERSION */

  /* Registration (from ge_plugin_register only). */
  ge_status (*register_op)(const ge_plugin_op_def* def);
  ge_status (*register_cpu_kernel)(const ge_plugin_kernel_def* def);
  /* The message a failing callback (or ge_plugin_register) reports. */
  void (*set_error)(const char* message);

  /* Inference. */
  size_t (*infer_num_inputs)(const ge_plugin_infer_context* context);
  ge_dtype (*infer_input_dtype)(const ge_plugin_infer_context* context, size_t index);
  size_t (*infer_input_rank)(const ge_plugin_infer_context* context, size_t index);
  /* -1 for an unknown dimension. */
  const int64_t* (*infer_input_dims)(const ge_plugin_infer_context* context, size_t index);
  const ge_plugin_attrs* (*infer_attrs)(const ge_plugin_infer_context* context);
  ge_status (*infer_set_output)(ge_plugin_infer_context* context, size_t index, ge_dtype dtype,
                                const int64_t* dims, size_t rank);

  /* Kernels: static shapes, dense row-major buffers. */
  size_t (*kernel_num_inputs)(const ge_plugin_kernel_context* context);
  size_t (*kernel_num_outputs)(const ge_plugin_kernel_context* context);
  const void* (*kernel_input_data)(const ge_plugin_kernel_context* context, size_t index);
  void* (*kernel_output_data)(const ge_plugin_kernel_context* context, size_t index);
  ge_dtype (*kernel_input_dtype)(const ge_plugin_kernel_context* context, size_t index);
  size_t (*kernel_input_rank)(const ge_plugin_kernel_context* context, size_t index);
  const int64_t* (*kernel_input_dims)(const ge_plugin_kernel_context* context, size_t index);
  size_t (*kernel_output_rank)(const ge_plugin_kernel_context* context, size_t index);
  const int64_t* (*kernel_output_dims)(const ge_plugin_kernel_context* context, size_t index);
  const ge_plugin_attrs* (*kernel_attrs)(const ge_plugin_kernel_context* context);

  /* Attributes. */
  int (*attr_int)(const ge_plugin_attrs* attrs, const char* name, int64_t* out);
  int (*attr_float)(const ge_plugin_attrs* attrs, const char* name, double* out);
  int (*attr_string)(const ge_plugin_attrs* attrs, const char* name, const char** out);

  /* Passes: a per-node visitor that may set attributes. */
  ge_status (*register_pass)(const ge_plugin_pass_def* def);
  const char* (*node_op_type)(const ge_plugin_node* node);
  const char* (*node_name)(const ge_plugin_node* node);
  const ge_plugin_attrs* (*node_attrs)(const ge_plugin_node* node);
  ge_status (*node_set_attr_int)(ge_plugin_node* node, const char* name, int64_t value);
  ge_status (*node_set_attr_float)(ge_plugin_node* node, const char* name, double value);
  ge_status (*node_set_attr_string)(ge_plugin_node* node, const char* name, const char* value);
} ge_plugin_host;

/* The two functions a plugin exports (declared here so that a plugin's
 * definitions are checked against them). */
typedef uint32_t (*ge_plugin_abi_version_fn)(void);
typedef int (*ge_plugin_register_fn)(const ge_plugin_host* host);

#ifdef __cplusplus
}
#endif

#endif /* GE_C_GE_PLUGIN_H_ */
