/* GE_PLUGIN_PATH: ctest runs this with the variable naming a missing file and
 * the folder of the example plugin (tests/c_api/CMakeLists.txt); the first
 * call into the C ABI loads the plugins found, so VendorSwish runs without any
 * ge_plugin_load call. The missing entry is reported on stderr and skipped. */
#include "plugin_test.h"

int main(void) {
  const float x[4] = {-2.0f, -0.5f, 0.5f, 2.0f};
  const int64_t dims[] = {4};
  float y[4] = {0};
  run_unary_op("VendorSwish", NULL, NULL, x, dims, 1, y);
  for (int i = 0; i < 4; ++i) CHECK(fabs(y[i] - x[i] / (1.0 + exp(-(double)x[i]))) < 1e-6);
  printf("plugin_env: ok\n");
  return 0;
}
