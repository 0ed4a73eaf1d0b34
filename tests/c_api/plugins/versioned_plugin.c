/* A test plugin that declares the plugin-ABI version TEST_PLUGIN_ABI_VERSION
 * and registers TEST_PLUGIN_OP, y = x + offset on float32 (int attribute
 * offset, default 0), and a pass TEST_PLUGIN_PASS (TEST_PLUGIN_OP "_bump"
 * unless defined) that adds 1 to the offset of every such node. The kernel
 * fails on a negative offset, the pass on offset 100.
 * tests/c_api/CMakeLists.txt builds it with an older and a newer version than
 * the host's, with a clashing op type, and with a clashing pass name. */
#include <string.h>

#include "ge_c/ge_plugin.h"

#ifndef TEST_PLUGIN_PASS
#define TEST_PLUGIN_PASS TEST_PLUGIN_OP "_bump"
#endif

static const ge_plugin_host* host;

static int InferCopy(void* user_data, ge_plugin_infer_context* context) {
  (void)user_data;
  return host->infer_set_output(context, 0, host->infer_input_dtype(context, 0), host->infer_input_dims(context, 0),
                                host->infer_input_rank(context, 0)) == GE_OK ? 0 : 1;
}

static int RunAddOffset(void* user_data, const ge_plugin_kernel_context* context) {
  (void)user_data;
  int64_t offset = 0;
  if (host->attr_int(host->kernel_attrs(context), "offset", &offset) != 0) {
    host->set_error("offset is missing");
    return 1;
  }
  size_t count = 1;
  for (size_t i = 0; i < host->kernel_input_rank(context, 0); ++i) count *= (size_t)host->kernel_input_dims(context, 0)[i];
  const float* x = host->kernel_input_data(context, 0);
  float* y = host->kernel_output_data(context, 0);
  if (offset < 0) { /* a failing kernel, for the tests of error reporting */
    host->set_error("offset must not be negative");
    return 1;
  }
  for (size_t i = 0; i < count; ++i) y[i] = x[i] + (float)offset;
  return 0;
}

static int BumpOffset(void* user_data, ge_plugin_node* node, int* changed) {
  (void)user_data;
  int64_t offset = 0;
  if (strcmp(host->node_op_type(node), TEST_PLUGIN_OP) != 0) return 0;
  if (host->attr_int(host->node_attrs(node), "offset", &offset) != 0) {
    host->set_error("offset is missing");
    return 1;
  }
  if (offset == 100) { /* a failing pass, for the tests of error reporting */
    host->set_error("offset 100 is reserved");
    return 1;
  }
  *changed = 1;
  return host->node_set_attr_int(node, "offset", offset + 1) == GE_OK ? 0 : 1;
}

__attribute__((visibility("default"))) uint32_t ge_plugin_abi_version(void) { return TEST_PLUGIN_ABI_VERSION; }

__attribute__((visibility("default"))) int ge_plugin_register(const ge_plugin_host* plugin_host) {
  host = plugin_host;
  static const ge_plugin_attr_decl attrs[] = {{"offset", GE_PLUGIN_ATTR_INT, 0, 0, 0.0, NULL}};
  ge_plugin_op_def op = {sizeof(ge_plugin_op_def), TEST_PLUGIN_OP, 1, 1, attrs, 1, InferCopy, NULL, NULL};
  if (host->register_op(&op) != GE_OK) return 1;
  ge_plugin_kernel_def kernel = {sizeof(ge_plugin_kernel_def), TEST_PLUGIN_OP, GE_DTYPE_FLOAT32, RunAddOffset, NULL};
  if (host->register_cpu_kernel(&kernel) != GE_OK) return 1;
  ge_plugin_pass_def pass = {sizeof(ge_plugin_pass_def), TEST_PLUGIN_PASS, GE_PLUGIN_PASS_AFTER_INFER_SHAPE,
                             BumpOffset, NULL};
  return host->register_pass(&pass) == GE_OK ? 0 : 1;
}
