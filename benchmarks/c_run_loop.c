/* The per-run latency of ge_model_run through the C ABI: the baseline that
 * benchmarks/python_overhead.py subtracts from the Python bindings' runs.
 *
 *   ge_c_run_loop MODEL INPUT.npy [RUNS [WARMUP]]
 *
 * MODEL is an ONNX model (imported and compiled) or a .gem file; INPUT.npy the
 * float32 value of its single input. Each timed run is what a Python run
 * costs the C side: ge_model_run with an engine-allocated output, then the
 * release of that output. One intra-op thread (ge.exec.intraOpThreads=1), as
 * python_overhead.py uses, so that the numbers are stable on a shared machine.
 * Prints one JSON line: {"median_us": ..., "runs": ...}. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime in strict C11 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ge_c/ge_c.h"

static void fail(const char* what, const char* detail) {
  fprintf(stderr, "ge_c_run_loop: %s%s%s\n", what, detail[0] ? ": " : "", detail);
  exit(1);
}

static void check(ge_status status, const char* what) {
  if (status != GE_OK) fail(what, ge_last_error());
}

/* The data of a little-endian float32, C-order .npy file of `count` values. */
static float* read_npy_floats(const char* path, size_t count) {
  FILE* file = fopen(path, "rb");
  if (!file) fail("cannot open", path);
  unsigned char preamble[10];
  if (fread(preamble, 1, sizeof preamble, file) != sizeof preamble || memcmp(preamble, "\x93NUMPY", 6) != 0 ||
      preamble[6] != 1) {
    fail("not a version 1 .npy file", path);
  }
  size_t header_size = (size_t)preamble[8] | (size_t)preamble[9] << 8;
  char* header = calloc(header_size + 1, 1);
  float* values = malloc(count * sizeof(float));
  if (!header || !values) fail("out of memory", "");
  if (fread(header, 1, header_size, file) != header_size) fail("truncated .npy header", path);
  if (!strstr(header, "'descr': '<f4'") || !strstr(header, "'fortran_order': False")) {
    fail("expected little-endian float32 in C order", path);
  }
  if (fread(values, sizeof(float), count, file) != count || fgetc(file) != EOF) {
    fail("the .npy file does not hold exactly the model input's element count", path);
  }
  free(header);
  fclose(file);
  return values;
}

static ge_model* open_model(const char* path) {
  const char* keys[] = {"ge.exec.intraOpThreads"};
  const char* values[] = {"1"};
  ge_model* model = NULL;
  size_t length = strlen(path);
  if (length > 4 && strcmp(path + length - 4, ".gem") == 0) {
    check(ge_model_load(path, keys, values, 1, &model), "ge_model_load");
    return model;
  }
  ge_graph* graph = NULL;
  check(ge_onnx_import_file(path, &graph), "ge_onnx_import_file");
  check(ge_compile(graph, keys, values, 1, &model), "ge_compile");
  ge_graph_release(graph);
  return model;
}

static double now_us(void) {
  struct timespec time;
  clock_gettime(CLOCK_MONOTONIC, &time);
  return (double)time.tv_sec * 1e6 + (double)time.tv_nsec / 1e3;
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    fprintf(stderr, "usage: ge_c_run_loop MODEL INPUT.npy [RUNS [WARMUP]]\n");
    return 2;
  }
  long runs = argc > 3 ? atol(argv[3]) : 10000;
  long warmup = argc > 4 ? atol(argv[4]) : 1000;
  if (runs < 1 || warmup < 0) fail("RUNS must be >= 1 and WARMUP >= 0", "");

  ge_model* model = open_model(argv[1]);
  if (ge_model_input_count(model) != 1 || ge_model_output_count(model) != 1) {
    fail("expected a model with one input and one output", argv[1]);
  }
  ge_tensor_info info = {sizeof(ge_tensor_info), NULL, GE_DTYPE_UNDEFINED, 0, NULL, NULL};
  check(ge_model_input_info(model, 0, &info), "ge_model_input_info");
  size_t count = 1;
  for (size_t d = 0; d < info.rank; ++d) count *= (size_t)info.dims[d];
  float* data = read_npy_floats(argv[2], count);
  ge_tensor* input = NULL;
  check(ge_tensor_wrap(GE_DTYPE_FLOAT32, info.dims, info.rank, data, &input), "ge_tensor_wrap");

  double* times = malloc((size_t)runs * sizeof(double));
  if (!times) fail("out of memory", "");
  for (long i = -warmup; i < runs; ++i) {
    double start = now_us();
    ge_tensor* output = NULL;
    check(ge_model_run(model, &input, 1, &output, 1), "ge_model_run");
    ge_tensor_release(output);
    if (i >= 0) times[i] = now_us() - start;
  }
  qsort(times, (size_t)runs, sizeof(double), by_value);
  printf("{\"median_us\": %.3f, \"runs\": %ld}\n", times[runs / 2], runs);

  free(times);
  ge_tensor_release(input);
  free(data);
  ge_model_release(model);
  return 0;
}
