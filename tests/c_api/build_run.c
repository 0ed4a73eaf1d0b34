/* Builds a graph through the C ABI (MatMulV2 with bias, Relu, SoftmaxV2),
 * compiles and runs it with engine-owned and caller-owned outputs,
 * synchronously, asynchronously and through a session, saves and reloads it
 * as .gem, and compares every result with a float64 reference computed here. */
#include <threads.h>

#include "c_test.h"

enum { M = 2, K = 3, N = 4 };

static const float kX[M * K] = {0.5f, -1.0f, 2.0f, 1.5f, 0.25f, -0.75f};
static const float kW[K * N] = {0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f, 0.7f, -0.8f, 0.9f, 1.0f, -1.1f, 1.2f};
static const float kB[N] = {0.05f, -0.1f, 0.15f, 0.2f};

/* softmax(relu(x w + b)) over the last axis, in float64. */
static void reference(double* y) {
  for (int i = 0; i < M; ++i) {
    double max = 0, sum = 0;
    for (int j = 0; j < N; ++j) {
      double v = kB[j];
      for (int k = 0; k < K; ++k) v += (double)kX[i * K + k] * kW[k * N + j];
      y[i * N + j] = v > 0 ? v : 0;
      if (y[i * N + j] > max) max = y[i * N + j];
    }
    for (int j = 0; j < N; ++j) sum += y[i * N + j] = exp(y[i * N + j] - max);
    for (int j = 0; j < N; ++j) y[i * N + j] /= sum;
  }
}

static void check_result(const ge_tensor* tensor) {
  double expected[M * N];
  reference(expected);
  CHECK(ge_tensor_dtype(tensor) == GE_DTYPE_FLOAT32 && ge_tensor_rank(tensor) == 2);
  CHECK(ge_tensor_dims(tensor)[0] == M && ge_tensor_dims(tensor)[1] == N);
  CHECK(ge_tensor_nbytes(tensor) == M * N * sizeof(float));
  const float* y = ge_tensor_data((ge_tensor*)tensor);
  for (int i = 0; i < M * N; ++i) CHECK(fabs(y[i] - expected[i]) < 1e-6);
}

static ge_graph* build_graph(void) {
  ge_graph* graph = NULL;
  CHECK_OK(ge_graph_create("mlp", &graph));
  const int64_t x_dims[] = {M, K}, w_dims[] = {K, N}, b_dims[] = {N};
  ge_value *x = NULL, *w = NULL, *b = NULL, *y = NULL, *r = NULL, *s = NULL;
  CHECK_OK(ge_graph_add_input(graph, "x", GE_DTYPE_FLOAT32, x_dims, 2, &x));
  CHECK(strcmp(ge_value_name(x), "x") == 0 && ge_value_dtype(x) == GE_DTYPE_FLOAT32 && ge_value_rank(x) == 2);

  ge_tensor *w_tensor = NULL, *b_tensor = NULL;
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, w_dims, 2, (void*)kW, &w_tensor));
  CHECK_OK(ge_tensor_create(GE_DTYPE_FLOAT32, b_dims, 1, &b_tensor));
  memcpy(ge_tensor_data(b_tensor), kB, sizeof kB);
  CHECK_OK(ge_graph_add_constant(graph, "w", w_tensor, &w));
  CHECK_OK(ge_graph_add_constant(graph, "b", b_tensor, &b));
  ge_tensor_release(w_tensor); /* constants are copies */
  ge_tensor_release(b_tensor);

  ge_attrs* attrs = NULL;
  CHECK_OK(ge_attrs_create(&attrs));
  CHECK_OK(ge_attrs_set_bool(attrs, "transpose_x1", 0));
  ge_value* matmul_inputs[] = {x, w, b};
  CHECK_OK(ge_graph_add_node(graph, "MatMulV2", "fc", matmul_inputs, 3, attrs, 1, &y));
  ge_attrs_release(attrs);
  CHECK(ge_value_rank(y) == 2 && ge_value_dims(y)[0] == M && ge_value_dims(y)[1] == N);
  CHECK_OK(ge_graph_add_node(graph, "Relu", NULL, &y, 1, NULL, 1, &r));

  const int64_t axes[] = {-1};
  CHECK_OK(ge_attrs_create(&attrs));
  CHECK_OK(ge_attrs_set_ints(attrs, "axes", axes, 1));
  CHECK_OK(ge_graph_add_node(graph, "SoftmaxV2", "softmax", &r, 1, attrs, 1, &s));
  ge_attrs_release(attrs);
  CHECK_OK(ge_graph_set_outputs(graph, &s, 1));
  return graph;
}

static ge_tensor* make_input(void) {
  const int64_t dims[] = {M, K};
  ge_tensor* input = NULL;
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, dims, 2, (void*)kX, &input));
  return input;
}

static void check_model(const ge_model* model) {
  CHECK(ge_model_input_count(model) == 1 && ge_model_output_count(model) == 1);
  ge_tensor_info info = {sizeof(ge_tensor_info), NULL, GE_DTYPE_UNDEFINED, 0, NULL, NULL};
  CHECK_OK(ge_model_input_info(model, 0, &info));
  CHECK(strcmp(info.name, "x") == 0 && info.dtype == GE_DTYPE_FLOAT32 && info.rank == 2 && info.dims[1] == K);
  CHECK_OK(ge_model_output_info(model, 0, &info));
  CHECK(info.dtype == GE_DTYPE_FLOAT32 && info.rank == 2 && info.dims[0] == M && info.dims[1] == N);

  ge_memory_summary memory;
  memset(&memory, 0, sizeof memory);
  memory.struct_size = sizeof memory;
  CHECK_OK(ge_model_memory_summary(model, &memory));
  CHECK(memory.struct_size == sizeof memory && memory.dynamic == 0);
  CHECK(memory.const_bytes >= sizeof kW + sizeof kB);
  CHECK(memory.arena_bytes > 0 && memory.arena_bytes <= memory.no_reuse_bytes);
  CHECK(memory.lower_bound_bytes <= memory.arena_bytes && memory.placement_strategy[0] != '\0');

  /* A caller built against an older, shorter struct gets only what fits. */
  ge_memory_summary older;
  memset(&older, 0xAB, sizeof older);
  older.struct_size = offsetof(ge_memory_summary, arena_bytes);
  CHECK_OK(ge_model_memory_summary(model, &older));
  CHECK(older.const_bytes == memory.const_bytes && older.struct_size == offsetof(ge_memory_summary, arena_bytes));
  CHECK(older.arena_bytes == 0xABABABABABABABABull);

  /* One built against a newer, longer struct learns how much was written. */
  struct {
    ge_memory_summary summary;
    uint64_t appended_later;
  } newer;
  memset(&newer, 0xCD, sizeof newer);
  newer.summary.struct_size = sizeof newer;
  CHECK_OK(ge_model_memory_summary(model, &newer.summary));
  CHECK(newer.summary.struct_size == sizeof(ge_memory_summary) && newer.appended_later == 0xCDCDCDCDCDCDCDCDull);
  CHECK(newer.summary.arena_bytes == memory.arena_bytes);

  ge_tensor* input = make_input();
  ge_tensor* engine_owned = NULL;
  CHECK_OK(ge_model_run(model, &input, 1, &engine_owned, 1));
  check_result(engine_owned);
  ge_tensor_release(engine_owned);

  float buffer[M * N] = {0};
  const int64_t dims[] = {M, N};
  ge_tensor* caller_owned = NULL;
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, dims, 2, buffer, &caller_owned));
  ge_tensor* slot = caller_owned;
  CHECK_OK(ge_model_run(model, &input, 1, &slot, 1));
  CHECK(slot == caller_owned && ge_tensor_data(caller_owned) == (void*)buffer);
  check_result(caller_owned);
  ge_tensor_release(caller_owned);
  ge_tensor_release(input);
}

struct async_state {
  mtx_t mutex;
  cnd_t done_signal;
  int done;
  ge_status status;
};

static void on_done(void* user_data, ge_status status, const char* message, ge_tensor** outputs, size_t count) {
  struct async_state* state = user_data;
  CHECK(status == GE_OK && message[0] == '\0' && count == 1);
  check_result(outputs[0]);
  ge_tensor_release(outputs[0]);
  mtx_lock(&state->mutex);
  state->status = status;
  state->done = 1;
  cnd_signal(&state->done_signal);
  mtx_unlock(&state->mutex);
}

static void run_async(const ge_model* model) {
  struct async_state state;
  state.done = 0;
  state.status = GE_INTERNAL;
  CHECK(mtx_init(&state.mutex, mtx_plain) == thrd_success && cnd_init(&state.done_signal) == thrd_success);
  ge_tensor* input = make_input();
  CHECK_OK(ge_model_run_async(model, &input, 1, on_done, &state));
  ge_tensor_release(input); /* the run shares the buffer, not the handle */
  mtx_lock(&state.mutex);
  while (!state.done) cnd_wait(&state.done_signal, &state.mutex);
  mtx_unlock(&state.mutex);
  CHECK(state.status == GE_OK);
  cnd_destroy(&state.done_signal);
  mtx_destroy(&state.mutex);
}

static void save_and_load(const ge_model* model) {
  const char* path = "build_run.gem";
  CHECK_OK(ge_model_save(model, path));
  ge_model* loaded = NULL;
  const char* keys[] = {"ge.exec.maxArenas"};
  const char* values[] = {"2"};
  CHECK_OK(ge_model_load(path, keys, values, 1, &loaded));
  check_model(loaded);
  ge_model_release(loaded);

  size_t size = 0;
  char* bytes = read_file(path, &size);
  CHECK_OK(ge_model_load_memory(bytes, size, NULL, NULL, 0, &loaded));
  free(bytes);
  check_model(loaded);
  ge_model_release(loaded);
  remove(path);
}

static void run_in_session(ge_graph* graph) {
  const char* keys[] = {"ge.exec.maxArenas"};
  const char* values[] = {"4"};
  ge_session* session = NULL;
  CHECK_OK(ge_session_create(keys, values, 1, &session));
  CHECK_OK(ge_session_add_graph(session, 7, graph, NULL, NULL, 0));
  ge_tensor* input = make_input();
  ge_tensor* output = NULL;
  CHECK_OK(ge_session_run_graph(session, 7, &input, 1, &output, 1));
  check_result(output);
  ge_tensor_release(output);
  ge_tensor_release(input);
  ge_model* model = NULL;
  CHECK_OK(ge_session_compile_graph(session, 7, &model));
  check_model(model);
  ge_model_release(model);
  ge_session_release(session);
}

int main(void) {
  uint32_t major = 99, minor = 99;
  ge_abi_version(&major, &minor);
  CHECK(major == GE_C_ABI_MAJOR && minor >= GE_C_ABI_MINOR);
  CHECK(strlen(ge_version()) > 0 && strchr(ge_version(), '.') != NULL);

  ge_graph* graph = build_graph();
  ge_model* model = NULL;
  CHECK_OK(ge_compile(graph, NULL, NULL, 0, &model));
  CHECK(ge_last_error()[0] == '\0');
  check_model(model);
  run_async(model);
  save_and_load(model);
  run_in_session(graph); /* the graph stays usable after a compile */
  ge_model_release(model);
  ge_graph_release(graph);
  puts("build_run: ok");
  return 0;
}
