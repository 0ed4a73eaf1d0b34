/* Imports models/demo_cnn.onnx from its file and from memory, compiles and
 * runs it through the C ABI, and compares the output with ONNX Runtime's
 * (models/demo_cnn.expected.npy, the independent reference). */
#include "c_test.h"

static void run_and_compare(ge_graph* graph) {
  static float input_values[DEMO_INPUT_COUNT];
  float expected[DEMO_OUTPUT_COUNT];
  read_npy_floats(DEMO_INPUT, input_values, DEMO_INPUT_COUNT);
  read_npy_floats(DEMO_EXPECTED, expected, DEMO_OUTPUT_COUNT);

  ge_model* model = NULL;
  CHECK_OK(ge_compile(graph, NULL, NULL, 0, &model));
  ge_tensor_info info = {sizeof(ge_tensor_info), NULL, GE_DTYPE_UNDEFINED, 0, NULL, NULL};
  CHECK_OK(ge_model_input_info(model, 0, &info));
  CHECK(strcmp(info.name, "image") == 0 && info.rank == 4 && info.dims[1] == 3);
  CHECK(info.dim_names == NULL); /* every dim of the demo model has a size */
  CHECK_OK(ge_model_output_info(model, 0, &info));
  CHECK(strcmp(info.name, "probabilities") == 0 && info.rank == 2 && info.dims[1] == DEMO_OUTPUT_COUNT);

  const int64_t dims[] = {1, 3, 32, 32};
  ge_tensor* input = NULL;
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, dims, 4, input_values, &input));
  ge_tensor* output = NULL;
  CHECK_OK(ge_model_run(model, &input, 1, &output, 1));
  const float* y = ge_tensor_data(output);
  for (int i = 0; i < DEMO_OUTPUT_COUNT; ++i) CHECK(fabs(y[i] - expected[i]) < 1e-5);
  ge_tensor_release(output);
  ge_tensor_release(input);
  ge_model_release(model);
}

int main(void) {
  ge_graph* graph = NULL;
  CHECK_OK(ge_onnx_import_file(DEMO_MODEL, &graph));
  run_and_compare(graph);
  ge_graph_release(graph);

  size_t size = 0;
  char* bytes = read_file(DEMO_MODEL, &size);
  graph = NULL;
  CHECK_OK(ge_onnx_import_memory(bytes, size, NULL, &graph));
  free(bytes);
  run_and_compare(graph);
  ge_graph_release(graph);
  puts("onnx_run: ok");
  return 0;
}
