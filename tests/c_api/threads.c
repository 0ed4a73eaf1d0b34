/* Eight C11 threads run one compiled model (the demo CNN) at once, each on
 * its own input, many times; every result must equal, bit for bit, the
 * result of a serial run of the same input. */
#include <threads.h>

#include "c_test.h"

enum { THREADS = 8, ROUNDS = 25 };

static ge_model* model;
static float inputs[THREADS][DEMO_INPUT_COUNT];
static float serial[THREADS][DEMO_OUTPUT_COUNT];

static void run_once(int index, float* result) {
  const int64_t dims[] = {1, 3, 32, 32}, out_dims[] = {1, DEMO_OUTPUT_COUNT};
  ge_tensor *input = NULL, *output = NULL;
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, dims, 4, inputs[index], &input));
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, out_dims, 2, result, &output));
  ge_tensor* slot = output;
  CHECK_OK(ge_model_run(model, &input, 1, &slot, 1));
  ge_tensor_release(output);
  ge_tensor_release(input);
}

static int worker(void* argument) {
  const int index = *(const int*)argument;
  for (int round = 0; round < ROUNDS; ++round) {
    float result[DEMO_OUTPUT_COUNT];
    run_once(index, result);
    CHECK(memcmp(result, serial[index], sizeof result) == 0);
  }
  return 0;
}

int main(void) {
  ge_graph* graph = NULL;
  CHECK_OK(ge_onnx_import_file(DEMO_MODEL, &graph));
  CHECK_OK(ge_compile(graph, NULL, NULL, 0, &model));
  ge_graph_release(graph); /* the model does not need it */

  read_npy_floats(DEMO_INPUT, inputs[0], DEMO_INPUT_COUNT);
  for (int t = 1; t < THREADS; ++t) {  /* distinct inputs, so a mixed-up result shows */
    for (int i = 0; i < DEMO_INPUT_COUNT; ++i) inputs[t][i] = inputs[0][(i + 97 * t) % DEMO_INPUT_COUNT];
  }
  for (int t = 0; t < THREADS; ++t) run_once(t, serial[t]);
  CHECK(memcmp(serial[0], serial[1], sizeof serial[0]) != 0);

  thrd_t threads[THREADS];
  int indices[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    indices[t] = t;
    CHECK(thrd_create(&threads[t], worker, &indices[t]) == thrd_success);
  }
  for (int t = 0; t < THREADS; ++t) CHECK(thrd_join(threads[t], NULL) == thrd_success);
  ge_model_release(model);
  puts("threads: ok");
  return 0;
}
