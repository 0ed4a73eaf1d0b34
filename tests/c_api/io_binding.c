/* IO binding through the C ABI: a state bound as both input and output of a
 * dynamic model is updated in place, an unbound output comes back in ge's
 * own buffer, the binding outlives the model handle, and bad names, unbound
 * inputs and early reads fail with the names spelled out; the run counters
 * (ge_model_run_stats) follow the runs. The reference is computed here in
 * float64. */
#include "c_test.h"

enum { ROWS = 2, COLS = 3 };

/* a = sigmoid(h), b = a + h; h has an unknown leading dim. */
static ge_model* compile_state_model(void) {
  ge_graph* graph = NULL;
  CHECK_OK(ge_graph_create("state", &graph));
  const int64_t dims[] = {-1, COLS};
  ge_value *h = NULL, *a = NULL, *b = NULL;
  CHECK_OK(ge_graph_add_input(graph, "h", GE_DTYPE_FLOAT32, dims, 2, &h));
  CHECK_OK(ge_graph_add_node(graph, "Sigmoid", "a", &h, 1, NULL, 1, &a));
  ge_value* add_inputs[] = {a, h};
  CHECK_OK(ge_graph_add_node(graph, "Add", "b", add_inputs, 2, NULL, 1, &b));
  ge_value* outputs[] = {a, b};
  return compile_outputs(graph, outputs, 2);
}

int main(void) {
  ge_model* model = compile_state_model();
  ge_io_binding* binding = NULL;
  CHECK_OK(ge_io_binding_create(model, &binding));

  float state[ROWS * COLS] = {-2.0f, -0.5f, 0.0f, 0.25f, 1.0f, 3.0f};
  double before[ROWS * COLS];
  for (int i = 0; i < ROWS * COLS; ++i) before[i] = state[i];
  const int64_t dims[] = {ROWS, COLS};
  ge_tensor* h = NULL;
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, dims, 2, state, &h));

  CHECK_FAILS(ge_io_binding_run(binding), GE_INVALID_ARGUMENT, "input 'h' is not bound");
  ge_tensor* out = NULL;
  CHECK_FAILS(ge_io_binding_output(binding, 0, &out), GE_INVALID_ARGUMENT, "no run has succeeded");
  CHECK_FAILS(ge_io_binding_bind_input(binding, "x", h), GE_INVALID_ARGUMENT, "its inputs are 'h'");
  CHECK_FAILS(ge_io_binding_bind_output(binding, "c", h), GE_INVALID_ARGUMENT, "its outputs are 'a', 'b'");
  CHECK_FAILS(ge_io_binding_bind_input(binding, NULL, h), GE_INVALID_ARGUMENT, "name");

  CHECK_OK(ge_io_binding_bind_input(binding, "h", h));
  CHECK_OK(ge_io_binding_bind_output(binding, "a", h)); /* the state, updated in place */
  ge_tensor_release(h);                                  /* the binding shares the buffer */
  CHECK_OK(ge_io_binding_run(binding));

  ge_tensor *a = NULL, *b = NULL;
  CHECK_OK(ge_io_binding_output(binding, 0, &a));
  CHECK_OK(ge_io_binding_output(binding, 1, &b));
  CHECK(ge_tensor_data(a) == (void*)state);
  CHECK(ge_tensor_data(b) != (void*)state);
  CHECK_FAILS(ge_io_binding_output(binding, 2, &out), GE_INVALID_ARGUMENT, "out of range");
  const float* sum = ge_tensor_data(b);
  for (int i = 0; i < ROWS * COLS; ++i) {
    const double sigmoid = 1.0 / (1.0 + exp(-before[i]));
    CHECK(fabs(state[i] - sigmoid) < 1e-6);
    CHECK(fabs(sum[i] - (sigmoid + before[i])) < 1e-6);
  }
  ge_tensor_release(a);
  ge_tensor_release(b);

  /* Unbound again: a comes back in a buffer of ge's own. */
  CHECK_OK(ge_io_binding_bind_output(binding, "a", NULL));
  CHECK_OK(ge_io_binding_run(binding));
  CHECK_OK(ge_io_binding_output(binding, 0, &a));
  CHECK(ge_tensor_data(a) != (void*)state);
  ge_tensor_release(a);

  CHECK_OK(ge_io_binding_bind_input(binding, "h", NULL));
  CHECK_FAILS(ge_io_binding_run(binding), GE_INVALID_ARGUMENT, "input 'h' is not bound");

  /* Three runs, two of them successful; the node-by-node path ran the first
   * (a shape's second run compiles its static plan). */
  ge_run_stats stats = {.struct_size = sizeof stats};
  CHECK_OK(ge_model_run_stats(model, &stats));
  CHECK(stats.struct_size == sizeof stats);
  CHECK(stats.runs == 2 && stats.node_by_node_runs == 1 && stats.planned_runs == 1 && stats.plans_compiled == 1);
  ge_model_release(model); /* the binding keeps it */
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, dims, 2, state, &h));
  CHECK_OK(ge_io_binding_bind_input(binding, "h", h));
  ge_tensor_release(h);
  CHECK_OK(ge_io_binding_run(binding));

  ge_io_binding_release(binding);
  ge_io_binding_release(NULL);
  puts("io_binding: ok");
  return 0;
}
