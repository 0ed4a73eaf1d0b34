/* Helpers of the plugin tests: a graph of one plugin op on a float32 input,
 * compiled and run through the C ABI. */
#ifndef GE_TESTS_C_API_PLUGIN_TEST_H_
#define GE_TESTS_C_API_PLUGIN_TEST_H_

#include "c_test.h"

/* Runs `op_type` (attributes `attrs`, may be NULL) on x of shape dims[rank]
 * and writes its output, of x's shape, into y. `disabled_passes` (may be
 * NULL) is the ge.disablePasses compile option. */
static inline void run_unary_op(const char* op_type, const ge_attrs* attrs, const char* disabled_passes,
                                const float* x, const int64_t* dims, size_t rank, float* y) {
  ge_graph* graph = NULL;
  ge_value *input = NULL, *output = NULL;
  CHECK_OK(ge_graph_create("plugin_graph", &graph));
  CHECK_OK(ge_graph_add_input(graph, "x", GE_DTYPE_FLOAT32, dims, rank, &input));
  CHECK_OK(ge_graph_add_node(graph, op_type, "op", &input, 1, attrs, 1, &output));
  CHECK(ge_value_dtype(output) == GE_DTYPE_FLOAT32 && ge_value_rank(output) == rank);
  CHECK_OK(ge_graph_set_outputs(graph, &output, 1));
  ge_model* model = NULL;
  const char* key = "ge.disablePasses";
  CHECK_OK(ge_compile(graph, &key, &disabled_passes, disabled_passes != NULL ? 1 : 0, &model));
  ge_tensor *x_tensor = NULL, *y_tensor = NULL;
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, dims, rank, (void*)x, &x_tensor));
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, dims, rank, y, &y_tensor));
  CHECK_OK(ge_model_run(model, &x_tensor, 1, &y_tensor, 1));
  ge_tensor_release(x_tensor);
  ge_tensor_release(y_tensor);
  ge_model_release(model);
  ge_graph_release(graph);
}

#endif /* GE_TESTS_C_API_PLUGIN_TEST_H_ */
