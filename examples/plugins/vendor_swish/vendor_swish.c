/* An example ge plugin (include/ge_c/ge_plugin.h), in C11: the custom op
 * VendorSwish, y = x * sigmoid(beta * x), with a float attribute beta
 * (default 1), its shape inference (y has x's dtype and shape) and a float32
 * CPU kernel. Built as a MODULE library; load it with ge_plugin_load() or
 * through GE_PLUGIN_PATH. */
#include <math.h>
#include <stdint.h>

#include "ge_c/ge_plugin.h"

#if defined(__GNUC__)
#define PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define PLUGIN_EXPORT
#endif

/* The example plugins built for the tests declare other versions with this. */
#ifndef VENDOR_SWISH_ABI_VERSION
#define VENDOR_SWISH_ABI_VERSION GE_PLUGIN_ABI_VERSION
#endif

static const ge_plugin_host* host;

static int InferSwish(void* user_data, ge_plugin_infer_context* context) {
  (void)user_data;
  if (host->infer_input_dtype(context, 0) != GE_DTYPE_FLOAT32) {
    host->set_error("VendorSwish takes float32 input x");
    return 1;
  }
  return host->infer_set_output(context, 0, GE_DTYPE_FLOAT32, host->infer_input_dims(context, 0),
                                host->infer_input_rank(context, 0)) == GE_OK ? 0 : 1;
}

static int RunSwishFloat32(void* user_data, const ge_plugin_kernel_context* context) {
  (void)user_data;
  double beta = 1.0;
  host->attr_float(host->kernel_attrs(context), "beta", &beta);  /* always present: the schema has a default */
  const float* x = (const float*)host->kernel_input_data(context, 0);
  float* y = (float*)host->kernel_output_data(context, 0);
  const int64_t* dims = host->kernel_input_dims(context, 0);
  int64_t count = 1;
  for (size_t i = 0; i < host->kernel_input_rank(context, 0); ++i) count *= dims[i];
  for (int64_t i = 0; i < count; ++i) y[i] = x[i] / (1.0f + expf(-(float)beta * x[i]));
  return 0;
}

PLUGIN_EXPORT uint32_t ge_plugin_abi_version(void) { return VENDOR_SWISH_ABI_VERSION; }

PLUGIN_EXPORT int ge_plugin_register(const ge_plugin_host* plugin_host) {
  host = plugin_host;
  static const ge_plugin_attr_decl attrs[] = {{"beta", GE_PLUGIN_ATTR_FLOAT, 0, 0, 1.0, NULL}};
  ge_plugin_op_def op = {sizeof(ge_plugin_op_def), "VendorSwish", 1, 1, attrs, 1, InferSwish, NULL,
                         "y = x * sigmoid(beta * x), elementwise; attribute beta (float, default 1)"};
  if (host->register_op(&op) != GE_OK) return 1;
  ge_plugin_kernel_def kernel = {sizeof(ge_plugin_kernel_def), "VendorSwish", GE_DTYPE_FLOAT32, RunSwishFloat32, NULL};
  return host->register_cpu_kernel(&kernel) == GE_OK ? 0 : 1;
}
