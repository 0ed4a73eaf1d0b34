/* The plugin API (include/ge_c/ge_plugin.h): loads the example plugin
 * (examples/plugins/vendor_swish), builds, compiles and runs a graph with its
 * VendorSwish op and compares with a float64 reference computed here; a plugin
 * declaring an older plugin-ABI version loads (with its op, kernel and pass), a
 * newer major is refused, and a missing file, a library that is no plugin and a
 * plugin whose op type exists give clear errors.
 * The paths of the plugins come from tests/c_api/CMakeLists.txt. */
#include "ge_c/ge_plugin.h"
#include "plugin_test.h"

enum { ROWS = 2, COLS = 3 };
static const float kX[ROWS * COLS] = {-3.0f, -0.5f, 0.0f, 0.25f, 1.5f, 4.0f};

/* x * sigmoid(beta * x) in float64. */
static void check_swish(const float* y, double beta) {
  for (int i = 0; i < ROWS * COLS; ++i) {
    double x = kX[i], expected = x / (1.0 + exp(-beta * x));
    if (fabs(y[i] - expected) > 1e-6) {
      fprintf(stderr, "swish(beta %g) of %g: got %g, expected %g\n", beta, x, y[i], expected);
      exit(1);
    }
  }
}

static void test_errors(void) {
  CHECK_FAILS(ge_plugin_load(NULL), GE_INVALID_ARGUMENT, "path");
  CHECK_FAILS(ge_plugin_load("/nonexistent/libmissing.so"), GE_NOT_FOUND, "'/nonexistent/libmissing.so': no such file");
  CHECK_FAILS(ge_plugin_load(NOT_A_PLUGIN), GE_INVALID_ARGUMENT, "not a ge plugin");
  CHECK_FAILS(ge_plugin_load(GE_SOURCE_DIR "/README.md"), GE_INVALID_ARGUMENT, "cannot load the library");
  /* A newer major is refused, naming both versions; its op stays unknown. */
  CHECK_FAILS(ge_plugin_load(NEWER_PLUGIN), GE_INVALID_ARGUMENT, "needs plugin ABI 2.0, newer than this ge's plugin ABI 1.");
  ge_graph* graph = NULL;
  ge_value *x = NULL, *y = NULL;
  const int64_t dims[] = {ROWS, COLS};
  CHECK_OK(ge_graph_create("refused", &graph));
  CHECK_OK(ge_graph_add_input(graph, "x", GE_DTYPE_FLOAT32, dims, 2, &x));
  CHECK(ge_graph_add_node(graph, "TestNewerAbiCopy", "copy", &x, 1, NULL, 1, &y) != GE_OK);
  ge_graph_release(graph);
}

static void check_offset(const float* y, float offset) {
  for (int i = 0; i < ROWS * COLS; ++i) CHECK(y[i] == kX[i] + offset);
}

/* The older plugin's op adds its offset attribute; its pass adds 1 to the
 * offset of every such node at compile time. */
static void test_older_plugin(void) {
  CHECK_OK(ge_plugin_load(OLDER_PLUGIN));
  const int64_t dims[] = {ROWS, COLS};
  float y[ROWS * COLS] = {0};
  run_unary_op("TestOlderAbiCopy", NULL, NULL, kX, dims, 2, y);
  check_offset(y, 1.0f);
  ge_attrs* attrs = NULL;
  CHECK_OK(ge_attrs_create(&attrs));
  CHECK_OK(ge_attrs_set_int(attrs, "offset", 2));
  run_unary_op("TestOlderAbiCopy", attrs, NULL, kX, dims, 2, y);
  check_offset(y, 3.0f);
  /* The compile option ge.disablePasses takes the pass's name. */
  run_unary_op("TestOlderAbiCopy", attrs, "TestOlderAbiCopy_bump", kX, dims, 2, y);
  check_offset(y, 2.0f);
  ge_attrs_release(attrs);
}

/* A graph of one TestOlderAbiCopy node named "node" with the given offset. */
static ge_graph* offset_graph(int64_t offset) {
  const int64_t dims[] = {ROWS, COLS};
  ge_graph* graph = NULL;
  ge_value *x = NULL, *y = NULL;
  ge_attrs* attrs = NULL;
  CHECK_OK(ge_graph_create("offset", &graph));
  CHECK_OK(ge_graph_add_input(graph, "x", GE_DTYPE_FLOAT32, dims, 2, &x));
  CHECK_OK(ge_attrs_create(&attrs));
  CHECK_OK(ge_attrs_set_int(attrs, "offset", offset));
  CHECK_OK(ge_graph_add_node(graph, "TestOlderAbiCopy", "node", &x, 1, attrs, 1, &y));
  ge_attrs_release(attrs);
  CHECK_OK(ge_graph_set_outputs(graph, &y, 1));
  return graph;
}

/* A failing plugin pass fails the compile, a failing plugin kernel the run;
 * both name the node, the op and the plugin's message. */
static void test_plugin_callback_errors(void) {
  ge_graph* graph = offset_graph(100);
  ge_model* model = NULL;
  CHECK_FAILS(ge_compile(graph, NULL, NULL, 0, &model), GE_INVALID_ARGUMENT, "plugin pass failed: offset 100 is reserved");
  CHECK(strstr(ge_last_error(), "TestOlderAbiCopy_bump") != NULL && strstr(ge_last_error(), "node") != NULL);
  CHECK(model == NULL);
  ge_graph_release(graph);

  graph = offset_graph(-5); /* the pass makes it -4 */
  CHECK_OK(ge_compile(graph, NULL, NULL, 0, &model));
  const int64_t dims[] = {ROWS, COLS};
  ge_tensor *x = NULL, *y = NULL;
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, dims, 2, (void*)kX, &x));
  CHECK_FAILS(ge_model_run(model, &x, 1, &y, 1), GE_INTERNAL, "plugin kernel failed: offset must not be negative");
  CHECK(strstr(ge_last_error(), "node") != NULL && strstr(ge_last_error(), "TestOlderAbiCopy") != NULL);
  CHECK(y == NULL);
  ge_tensor_release(x);
  ge_model_release(model);
  ge_graph_release(graph);
}

static void test_vendor_swish(void) {
  CHECK_OK(ge_plugin_load(VENDOR_SWISH_PLUGIN));
  CHECK_OK(ge_plugin_load(VENDOR_SWISH_PLUGIN)); /* a second load of one file is a no-op */
  const int64_t dims[] = {ROWS, COLS};
  float y[ROWS * COLS] = {0};
  run_unary_op("VendorSwish", NULL, NULL, kX, dims, 2, y); /* beta defaults to 1 */
  check_swish(y, 1.0);

  ge_attrs* attrs = NULL;
  CHECK_OK(ge_attrs_create(&attrs));
  CHECK_OK(ge_attrs_set_float(attrs, "beta", 0.5f));
  run_unary_op("VendorSwish", attrs, NULL, kX, dims, 2, y);
  check_swish(y, 0.5);
  ge_attrs_release(attrs);

  /* A second plugin registering VendorSwish is refused with the registry's reason. */
  CHECK_FAILS(ge_plugin_load(CLASH_PLUGIN), GE_INVALID_ARGUMENT, "registration failed");
  CHECK(strstr(ge_last_error(), "VendorSwish") != NULL);
  /* A pass named like one of the CPU device's rewrites (the device stage) is refused at registration. */
  CHECK_FAILS(ge_plugin_load(PASS_CLASH_PLUGIN), GE_INVALID_ARGUMENT, "registration failed");
  CHECK(strstr(ge_last_error(), "nhwc_layout") != NULL && strstr(ge_last_error(), "cpu device") != NULL);

  /* The plugin's inference rejects other dtypes with its own message, naming the node. */
  ge_graph* graph = NULL;
  ge_value *x = NULL, *out = NULL;
  CHECK_OK(ge_graph_create("bad_dtype", &graph));
  CHECK_OK(ge_graph_add_input(graph, "x", GE_DTYPE_INT32, dims, 2, &x));
  ge_status status = ge_graph_add_node(graph, "VendorSwish", "swish_int", &x, 1, NULL, 1, &out);
  if (status == GE_OK) { /* the builder may defer inference to completion */
    CHECK_OK(ge_graph_set_outputs(graph, &out, 1));
    ge_model* model = NULL;
    status = ge_compile(graph, NULL, NULL, 0, &model);
    CHECK(status != GE_OK);
  }
  CHECK(strstr(ge_last_error(), "VendorSwish takes float32 input x") != NULL);
  CHECK(strstr(ge_last_error(), "swish_int") != NULL);
  ge_graph_release(graph);
}

int main(void) {
  test_errors();
  test_older_plugin();
  test_plugin_callback_errors();
  test_vendor_swish();
  printf("plugin_load: ok\n");
  return 0;
}
