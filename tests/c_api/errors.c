/* Every error path of the C ABI: each call fails with the right status and a
 * message naming what is wrong (the node and op for graph errors), leaves its
 * out-parameters untouched, and no exception escapes, including exceptions
 * forced inside the library with ge_test_inject_failure. */
#include <threads.h>

#include "c_test.h"

/* Sentinels that a failing call must leave as they are. */
static ge_tensor* const kTensorSentinel = (ge_tensor*)(uintptr_t)0x5e5e;
static ge_value* const kValueSentinel = (ge_value*)(uintptr_t)0x5e5e;

static const int64_t kDims23[] = {2, 3};

static ge_graph* small_graph(ge_value** x_out) {
  ge_graph* graph = NULL;
  ge_value *x = NULL, *y = NULL;
  CHECK_OK(ge_graph_create("small", &graph));
  CHECK_OK(ge_graph_add_input(graph, "x", GE_DTYPE_FLOAT32, kDims23, 2, &x));
  CHECK_OK(ge_graph_add_node(graph, "Relu", "relu", &x, 1, NULL, 1, &y));
  CHECK_OK(ge_graph_set_outputs(graph, &y, 1));
  if (x_out != NULL) *x_out = x;
  return graph;
}

static void status_and_messages(void) {
  CHECK(strcmp(ge_status_name(GE_OK), "GE_OK") == 0);
  CHECK(strcmp(ge_status_name(GE_OUT_OF_MEMORY), "GE_OUT_OF_MEMORY") == 0);
  CHECK(strcmp(ge_status_name((ge_status)99), "GE_UNKNOWN_STATUS") == 0);
  ge_tensor* tensor = kTensorSentinel;
  CHECK_FAILS(ge_tensor_create(GE_DTYPE_UNDEFINED, kDims23, 2, &tensor), GE_INVALID_ARGUMENT,
              "ge_tensor_create: dtype -1");
  CHECK(tensor == kTensorSentinel);
  ge_abi_version(NULL, NULL); /* both out-parameters are optional */
  CHECK_OK(ge_tensor_create(GE_DTYPE_FLOAT32, kDims23, 2, &tensor));
  CHECK(ge_last_error()[0] == '\0'); /* a success clears the message */
  ge_tensor_release(tensor);
}

static int message_is_per_thread(void* argument) {
  (void)argument;
  CHECK(ge_last_error()[0] == '\0');
  return 0;
}

static void thread_local_message(void) {
  CHECK_FAILS(ge_graph_create("g", NULL), GE_INVALID_ARGUMENT, "argument 'out' is NULL");
  thrd_t thread;
  CHECK(thrd_create(&thread, message_is_per_thread, NULL) == thrd_success);
  CHECK(thrd_join(thread, NULL) == thrd_success);
  CHECK(strstr(ge_last_error(), "argument 'out' is NULL") != NULL);
}

static void release_and_inspect_null(void) {
  ge_tensor_release(NULL);
  ge_attrs_release(NULL);
  ge_graph_release(NULL);
  ge_model_release(NULL);
  ge_session_release(NULL);
  CHECK(ge_tensor_dtype(NULL) == GE_DTYPE_UNDEFINED && ge_tensor_rank(NULL) == 0 && ge_tensor_dims(NULL) == NULL);
  CHECK(ge_tensor_nbytes(NULL) == 0 && ge_tensor_data(NULL) == NULL);
  CHECK(strcmp(ge_value_name(NULL), "") == 0 && ge_value_dtype(NULL) == GE_DTYPE_UNDEFINED);
  CHECK(ge_value_rank(NULL) == 0 && ge_value_dims(NULL) == NULL);
  CHECK(ge_model_input_count(NULL) == 0 && ge_model_output_count(NULL) == 0);
}

static void tensor_errors(void) {
  ge_tensor* tensor = kTensorSentinel;
  float data[6];
  const int64_t negative[] = {2, -1};
  CHECK_FAILS(ge_tensor_create(GE_DTYPE_FLOAT32, kDims23, 2, NULL), GE_INVALID_ARGUMENT, "'out'");
  CHECK_FAILS(ge_tensor_create((ge_dtype)5, kDims23, 2, &tensor), GE_INVALID_ARGUMENT, "dtype 5");
  CHECK_FAILS(ge_tensor_create(GE_DTYPE_FLOAT32, negative, 2, &tensor), GE_INVALID_ARGUMENT, "negative dim");
  CHECK_FAILS(ge_tensor_create(GE_DTYPE_FLOAT32, NULL, 2, &tensor), GE_INVALID_ARGUMENT, "'dims'");
  CHECK_FAILS(ge_tensor_wrap(GE_DTYPE_FLOAT32, kDims23, 2, NULL, &tensor), GE_INVALID_ARGUMENT, "'data'");
  CHECK_FAILS(ge_tensor_wrap(GE_DTYPE_FLOAT32, negative, 2, data, &tensor), GE_INVALID_ARGUMENT, "negative dim");
  CHECK(tensor == kTensorSentinel);
  CHECK_OK(ge_tensor_create(GE_DTYPE_INT64, NULL, 0, &tensor)); /* a scalar */
  CHECK(ge_tensor_rank(tensor) == 0 && ge_tensor_nbytes(tensor) == 8);
  ge_tensor_release(tensor);
}

static void attrs_errors(void) {
  ge_attrs* attrs = NULL;
  CHECK_FAILS(ge_attrs_create(NULL), GE_INVALID_ARGUMENT, "'out'");
  CHECK_OK(ge_attrs_create(&attrs));
  CHECK_FAILS(ge_attrs_set_int(NULL, "a", 1), GE_INVALID_ARGUMENT, "ge_attrs_set_int: argument 'attrs'");
  CHECK_FAILS(ge_attrs_set_float(attrs, NULL, 1.0f), GE_INVALID_ARGUMENT, "'name'");
  CHECK_FAILS(ge_attrs_set_bool(NULL, "a", 1), GE_INVALID_ARGUMENT, "'attrs'");
  CHECK_FAILS(ge_attrs_set_string(attrs, "a", NULL), GE_INVALID_ARGUMENT, "'value'");
  CHECK_FAILS(ge_attrs_set_dtype(attrs, "a", (ge_dtype)99), GE_INVALID_ARGUMENT, "dtype 99");
  CHECK_FAILS(ge_attrs_set_ints(attrs, "a", NULL, 2), GE_INVALID_ARGUMENT, "'values'");
  CHECK_FAILS(ge_attrs_set_floats(attrs, "a", NULL, 2), GE_INVALID_ARGUMENT, "'values'");
  CHECK_FAILS(ge_attrs_set_tensor(attrs, "a", NULL), GE_INVALID_ARGUMENT, "'value'");
  CHECK_OK(ge_attrs_set_ints(attrs, "empty", NULL, 0));
  ge_attrs_release(attrs);
}

static void graph_errors(void) {
  ge_graph* graph = NULL;
  ge_value *x = NULL, *out = kValueSentinel;
  const int64_t dims45[] = {4, 5};
  CHECK_FAILS(ge_graph_create("g", NULL), GE_INVALID_ARGUMENT, "'out'");
  CHECK_OK(ge_graph_create(NULL, &graph)); /* a default name */
  CHECK_FAILS(ge_graph_add_input(NULL, "x", GE_DTYPE_FLOAT32, kDims23, 2, &out), GE_INVALID_ARGUMENT, "'graph'");
  CHECK_FAILS(ge_graph_add_input(graph, NULL, GE_DTYPE_FLOAT32, kDims23, 2, &out), GE_INVALID_ARGUMENT, "'name'");
  CHECK_FAILS(ge_graph_add_input(graph, "x", (ge_dtype)42, kDims23, 2, &out), GE_INVALID_ARGUMENT, "dtype 42");
  CHECK_FAILS(ge_graph_add_input(graph, "x", GE_DTYPE_FLOAT32, kDims23, 2, NULL), GE_INVALID_ARGUMENT, "'out'");
  CHECK_FAILS(ge_graph_add_constant(graph, "c", NULL, &out), GE_INVALID_ARGUMENT, "'value'");
  CHECK(out == kValueSentinel);
  CHECK_OK(ge_graph_add_input(graph, "x", GE_DTYPE_FLOAT32, kDims23, 2, &x));
  ge_value* z = NULL;
  CHECK_OK(ge_graph_add_input(graph, "z", GE_DTYPE_FLOAT32, dims45, 2, &z));

  CHECK_FAILS(ge_graph_add_node(graph, NULL, "n", &x, 1, NULL, 1, &out), GE_INVALID_ARGUMENT, "'op_type'");
  CHECK_FAILS(ge_graph_add_node(graph, "NoSuchOp", "n", &x, 1, NULL, 1, &out), GE_UNSUPPORTED, "'NoSuchOp'");
  ge_value* mismatched[] = {x, z};
  CHECK_FAILS(ge_graph_add_node(graph, "Add", "bad_add", mismatched, 2, NULL, 1, &out), GE_INVALID_ARGUMENT,
              "bad_add");
  CHECK(strstr(ge_last_error(), "Add") != NULL);
  CHECK_FAILS(ge_graph_add_node(graph, "Relu", "no_inputs", NULL, 0, NULL, 1, &out), GE_INVALID_MODEL,
              "no_inputs");
  ge_attrs* attrs = NULL;
  CHECK_OK(ge_attrs_create(&attrs));
  CHECK_OK(ge_attrs_set_string(attrs, "axes", "not ints"));
  CHECK_FAILS(ge_graph_add_node(graph, "SoftmaxV2", "bad_attr", &x, 1, attrs, 1, &out), GE_INVALID_MODEL,
              "node 'bad_attr' (SoftmaxV2): attribute 'axes'");
  ge_attrs_release(attrs);
  CHECK_FAILS(ge_graph_add_node(graph, "Relu", "r", NULL, 1, NULL, 1, &out), GE_INVALID_ARGUMENT, "'inputs'");
  CHECK_FAILS(ge_graph_add_node(graph, "Relu", "r", &x, 1, NULL, 1, NULL), GE_INVALID_ARGUMENT, "'outputs'");
  ge_value* foreign = NULL;
  ge_graph* other = small_graph(&foreign);
  CHECK_FAILS(ge_graph_add_node(graph, "Relu", "r", &foreign, 1, NULL, 1, &out), GE_INVALID_ARGUMENT,
              "another graph");
  CHECK(out == kValueSentinel);

  CHECK_FAILS(ge_graph_set_outputs(graph, NULL, 0), GE_INVALID_ARGUMENT, "at least one output");
  CHECK_FAILS(ge_graph_set_outputs(graph, NULL, 1), GE_INVALID_ARGUMENT, "'values'");
  ge_value* null_value = NULL;
  CHECK_FAILS(ge_graph_set_outputs(graph, &null_value, 1), GE_INVALID_ARGUMENT, "values[0]");
  CHECK_FAILS(ge_graph_set_outputs(graph, &foreign, 1), GE_INVALID_ARGUMENT, "output");

  ge_model* model = NULL;
  CHECK_FAILS(ge_compile(graph, NULL, NULL, 0, &model), GE_INVALID_ARGUMENT, "no outputs");
  CHECK(model == NULL);
  CHECK_FAILS(ge_compile(NULL, NULL, NULL, 0, &model), GE_INVALID_ARGUMENT, "'graph'");
  CHECK_FAILS(ge_compile(other, NULL, NULL, 1, &model), GE_INVALID_ARGUMENT, "'option_keys'");
  const char* keys[] = {"ge.noSuchOption"}, *values[] = {"1"}, *null_key[] = {NULL};
  CHECK_FAILS(ge_compile(other, keys, values, 1, &model), GE_INVALID_ARGUMENT, "ge.noSuchOption");
  CHECK_FAILS(ge_compile(other, null_key, values, 1, &model), GE_INVALID_ARGUMENT, "option 0");
  CHECK(model == NULL);
  /* The failed compiles completed `other`: no more nodes. */
  CHECK_FAILS(ge_graph_add_node(other, "Relu", "late", &foreign, 1, NULL, 1, &out), GE_INVALID_ARGUMENT,
              "is complete");
  ge_graph_release(other);
  ge_graph_release(graph);
}

static void import_errors(void) {
  ge_graph* graph = NULL;
  CHECK_FAILS(ge_onnx_import_file(NULL, &graph), GE_INVALID_ARGUMENT, "'path'");
  CHECK_FAILS(ge_onnx_import_file(DEMO_MODEL, NULL), GE_INVALID_ARGUMENT, "'out'");
  CHECK_FAILS(ge_onnx_import_file("/no/such/model.onnx", &graph), GE_NOT_FOUND, "/no/such/model.onnx");
  const char garbage[] = "this is not an ONNX model";
  CHECK_FAILS(ge_onnx_import_memory(garbage, sizeof garbage, NULL, &graph), GE_INVALID_MODEL, "<memory>");
  CHECK_FAILS(ge_onnx_import_memory(NULL, 10, NULL, &graph), GE_INVALID_ARGUMENT, "'data'");
  CHECK(graph == NULL);
  CHECK_OK(ge_onnx_import_file(DEMO_MODEL, &graph));
  ge_value* out = kValueSentinel;
  CHECK_FAILS(ge_graph_add_input(graph, "extra", GE_DTYPE_FLOAT32, kDims23, 2, &out), GE_INVALID_ARGUMENT,
              "is complete");
  CHECK(out == kValueSentinel);
  ge_graph_release(graph);
}

static void model_errors(ge_model* model) {
  ge_model* loaded = NULL;
  ge_tensor_info info = {sizeof(ge_tensor_info), NULL, GE_DTYPE_UNDEFINED, 0, NULL, NULL};
  CHECK_FAILS(ge_model_save(NULL, "x.gem"), GE_INVALID_ARGUMENT, "'model'");
  CHECK_FAILS(ge_model_save(model, NULL), GE_INVALID_ARGUMENT, "'path'");
  CHECK_FAILS(ge_model_save(model, "/no/such/dir/x.gem"), GE_IO_ERROR, "/no/such/dir");
  CHECK_FAILS(ge_model_load("/no/such/x.gem", NULL, NULL, 0, &loaded), GE_NOT_FOUND, "/no/such/x.gem");
  CHECK_FAILS(ge_model_load(NULL, NULL, NULL, 0, &loaded), GE_INVALID_ARGUMENT, "'path'");
  const char garbage[] = "not a gem file at all, not even close";
  CHECK_FAILS(ge_model_load_memory(garbage, sizeof garbage, NULL, NULL, 0, &loaded), GE_INVALID_MODEL, "<memory>");
  CHECK_FAILS(ge_model_load_memory(NULL, 1, NULL, NULL, 0, &loaded), GE_INVALID_ARGUMENT, "'data'");
  CHECK(loaded == NULL);

  CHECK_FAILS(ge_model_input_info(model, 1, &info), GE_INVALID_ARGUMENT, "index 1 is out of range");
  CHECK_FAILS(ge_model_output_info(model, 5, &info), GE_INVALID_ARGUMENT, "index 5 is out of range");
  CHECK_FAILS(ge_model_input_info(NULL, 0, &info), GE_INVALID_ARGUMENT, "'model'");
  CHECK_FAILS(ge_model_input_info(model, 0, NULL), GE_INVALID_ARGUMENT, "'out'");
  CHECK(info.name == NULL);
  info.struct_size = 0;
  CHECK_FAILS(ge_model_input_info(model, 0, &info), GE_INVALID_ARGUMENT, "struct_size");
  ge_memory_summary memory;
  memset(&memory, 0, sizeof memory);
  CHECK_FAILS(ge_model_memory_summary(model, &memory), GE_INVALID_ARGUMENT, "struct_size");
  CHECK_FAILS(ge_model_memory_summary(NULL, &memory), GE_INVALID_ARGUMENT, "'model'");
  CHECK(memory.const_bytes == 0);
}

/* Set by the failed asynchronous run of run_errors(). */
static int async_called = 0;

static void on_async(void* user_data, ge_status status, const char* message, ge_tensor** outputs, size_t count) {
  /* The run failed: its status and message arrive here, with no outputs. */
  CHECK(status == GE_INVALID_ARGUMENT && strstr(message, "input") != NULL && outputs == NULL && count == 0);
  *(int*)user_data = 1;
}

static void run_errors(ge_model* model) {
  float data[6] = {1, -2, 3, -4, 5, -6}, result[6] = {0}, small[4] = {0};
  const int64_t dims32[] = {3, 2}, dims22[] = {2, 2};
  ge_tensor *input = NULL, *wrong_shape = NULL, *int_input = NULL, *short_output = NULL, *output = NULL;
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, kDims23, 2, data, &input));
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, dims32, 2, data, &wrong_shape));
  CHECK_OK(ge_tensor_create(GE_DTYPE_INT32, kDims23, 2, &int_input));
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, dims22, 2, small, &short_output));

  ge_tensor* slot = kTensorSentinel;
  CHECK_FAILS(ge_model_run(NULL, &input, 1, &slot, 1), GE_INVALID_ARGUMENT, "'model'");
  CHECK_FAILS(ge_model_run(model, NULL, 1, &slot, 1), GE_INVALID_ARGUMENT, "'inputs'");
  ge_tensor* null_input = NULL;
  CHECK_FAILS(ge_model_run(model, &null_input, 1, &slot, 1), GE_INVALID_ARGUMENT, "inputs[0] is NULL");
  CHECK_FAILS(ge_model_run(model, NULL, 0, &slot, 1), GE_INVALID_ARGUMENT, "input");
  CHECK_FAILS(ge_model_run(model, &wrong_shape, 1, &slot, 1), GE_INVALID_ARGUMENT, "input");
  CHECK_FAILS(ge_model_run(model, &int_input, 1, &slot, 1), GE_INVALID_ARGUMENT, "input");
  CHECK_FAILS(ge_model_run(model, &input, 1, &slot, 2), GE_INVALID_ARGUMENT, "num_outputs is 2");
  CHECK_FAILS(ge_model_run(model, &input, 1, NULL, 1), GE_INVALID_ARGUMENT, "'outputs'");
  CHECK(slot == kTensorSentinel);
  slot = short_output; /* caller-made, but of the wrong shape: nothing is written */
  CHECK_FAILS(ge_model_run(model, &input, 1, &slot, 1), GE_INVALID_ARGUMENT, "outputs[0]");
  CHECK(slot == short_output && small[0] == 0 && small[3] == 0);

  CHECK_FAILS(ge_model_run_async(model, &input, 1, NULL, NULL), GE_INVALID_ARGUMENT, "'callback'");
  CHECK_FAILS(ge_model_run_async(NULL, &input, 1, on_async, &async_called), GE_INVALID_ARGUMENT, "'model'");
  CHECK(async_called == 0);
  CHECK_OK(ge_model_run_async(model, &wrong_shape, 1, on_async, &async_called));

  /* Forced failures inside the library come back as statuses. */
  const ge_status expected[] = {GE_INTERNAL, GE_OUT_OF_MEMORY, GE_INTERNAL, GE_INTERNAL};
  for (int kind = 1; kind <= 4; ++kind) {
    CHECK_OK(ge_test_inject_failure(kind));
    slot = NULL;
    CHECK(ge_model_run(model, &input, 1, &slot, 1) == expected[kind - 1]);
    CHECK(slot == NULL && strstr(ge_last_error(), "ge_model_run: ") == ge_last_error());
  }
  CHECK_OK(ge_test_inject_failure(3));
  ge_graph* graph = (ge_graph*)kValueSentinel;
  CHECK_FAILS(ge_onnx_import_file(DEMO_MODEL, &graph), GE_INTERNAL, "internal error: injected failure");
  CHECK(graph == (ge_graph*)kValueSentinel);
  CHECK_OK(ge_test_inject_failure(2));
  CHECK_FAILS(ge_attrs_set_int(NULL, "a", 1), GE_OUT_OF_MEMORY, "out of memory");
  CHECK_OK(ge_test_inject_failure(4));
  CHECK_FAILS(ge_model_save(model, "never.gem"), GE_INTERNAL, "unknown exception");
  CHECK_FAILS(ge_test_inject_failure(5), GE_INVALID_ARGUMENT, "kind 5");
  CHECK_OK(ge_test_inject_failure(1));
  CHECK_OK(ge_test_inject_failure(0)); /* disarmed */
  CHECK_OK(ge_model_run(model, &input, 1, &slot, 1));
  output = slot;
  CHECK(ge_tensor_nbytes(output) == sizeof result);

  ge_tensor_release(output);
  ge_tensor_release(short_output);
  ge_tensor_release(int_input);
  ge_tensor_release(wrong_shape);
  ge_tensor_release(input);
}

static void session_errors(void) {
  ge_session* session = NULL;
  const char* keys[] = {"ge.noSuchOption"}, *values[] = {"1"};
  CHECK_FAILS(ge_session_create(NULL, NULL, 0, NULL), GE_INVALID_ARGUMENT, "'out'");
  CHECK_FAILS(ge_session_create(NULL, values, 1, &session), GE_INVALID_ARGUMENT, "'option_keys'");
  CHECK(session == NULL);
  CHECK_OK(ge_session_create(NULL, NULL, 0, &session));
  ge_graph* graph = small_graph(NULL);
  CHECK_FAILS(ge_session_add_graph(NULL, 1, graph, NULL, NULL, 0), GE_INVALID_ARGUMENT, "'session'");
  CHECK_FAILS(ge_session_add_graph(session, 1, NULL, NULL, NULL, 0), GE_INVALID_ARGUMENT, "'graph'");
  CHECK_FAILS(ge_session_add_graph(session, 1, graph, keys, values, 1), GE_INVALID_ARGUMENT, "ge.noSuchOption");
  CHECK_OK(ge_session_add_graph(session, 1, graph, NULL, NULL, 0));
  CHECK_FAILS(ge_session_add_graph(session, 1, graph, NULL, NULL, 0), GE_INVALID_ARGUMENT, "1");
  ge_model* model = NULL;
  CHECK_FAILS(ge_session_compile_graph(session, 2, &model), GE_NOT_FOUND, "2");
  CHECK_FAILS(ge_session_compile_graph(session, 1, NULL), GE_INVALID_ARGUMENT, "'out'");
  CHECK(model == NULL);
  ge_tensor* output = kTensorSentinel;
  CHECK_FAILS(ge_session_run_graph(session, 2, NULL, 0, &output, 1), GE_NOT_FOUND, "2");
  CHECK_FAILS(ge_session_run_graph(session, 1, NULL, 0, &output, 1), GE_INVALID_ARGUMENT, "input");
  CHECK(output == kTensorSentinel);
  ge_graph_release(graph);
  ge_session_release(session);
}

int main(void) {
  status_and_messages();
  thread_local_message();
  release_and_inspect_null();
  tensor_errors();
  attrs_errors();
  graph_errors();
  import_errors();

  ge_graph* graph = small_graph(NULL);
  ge_model* model = NULL;
  CHECK_OK(ge_compile(graph, NULL, NULL, 0, &model));
  model_errors(model);
  run_errors(model);
  ge_model_release(model); /* waits for the queued run */
  CHECK(async_called == 1);
  ge_graph_release(graph);
  session_errors();
  puts("errors: ok");
  return 0;
}
