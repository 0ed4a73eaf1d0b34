/* Helpers of the C ABI tests (tests/c_api): checks that report the file,
 * line and ge_last_error(), and the demo model's files. */
#ifndef GE_TESTS_C_API_C_TEST_H_
#define GE_TESTS_C_API_C_TEST_H_

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ge_c/ge_c.h"

#define CHECK(condition)                                                                  \
  do {                                                                                    \
    if (!(condition)) {                                                                   \
      fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__, __LINE__, \
              #condition, ge_last_error());                                               \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

/* A call that must succeed. */
#define CHECK_OK(call) CHECK((call) == GE_OK)

/* A call that must fail with `status` and a message containing `text`. */
#define CHECK_FAILS(call, status, text)                                                          \
  do {                                                                                           \
    ge_status got_ = (call);                                                                     \
    if (got_ != (status) || strstr(ge_last_error(), (text)) == NULL) {                          \
      fprintf(stderr, "%s:%d: %s gave %s \"%s\"; expected %s with \"%s\"\n", __FILE__, __LINE__, \
              #call, ge_status_name(got_), ge_last_error(), #status, (text));                     \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

/* Sets the graph's outputs, compiles it with default options and releases it. */
static inline ge_model* compile_outputs(ge_graph* graph, ge_value* const* outputs, size_t count) {
  CHECK_OK(ge_graph_set_outputs(graph, outputs, count));
  ge_model* model = NULL;
  CHECK_OK(ge_compile(graph, NULL, NULL, 0, &model));
  ge_graph_release(graph);
  return model;
}

/* The whole file, malloc'ed; *size receives its length. */
static inline char* read_file(const char* path, size_t* size) {
  FILE* file = fopen(path, "rb");
  CHECK(file != NULL);
  CHECK(fseek(file, 0, SEEK_END) == 0);
  long length = ftell(file);
  CHECK(length >= 0 && fseek(file, 0, SEEK_SET) == 0);
  char* data = malloc((size_t)length + 1);
  CHECK(data != NULL && fread(data, 1, (size_t)length, file) == (size_t)length);
  fclose(file);
  *size = (size_t)length;
  return data;
}

/* The last `count` float32 values of a little-endian .npy file (its data
 * follows the header), into `values`. */
static inline void read_npy_floats(const char* path, float* values, size_t count) {
  size_t size = 0;
  char* data = read_file(path, &size);
  CHECK(size >= count * sizeof(float) && memcmp(data, "\x93NUMPY", 6) == 0 && strstr(data + 10, "'<f4'") != NULL);
  memcpy(values, data + size - count * sizeof(float), count * sizeof(float));
  free(data);
}

#define DEMO_MODEL GE_SOURCE_DIR "/models/demo_cnn.onnx"
#define DEMO_INPUT GE_SOURCE_DIR "/models/demo_cnn.input.npy"
#define DEMO_EXPECTED GE_SOURCE_DIR "/models/demo_cnn.expected.npy"
enum { DEMO_INPUT_COUNT = 3 * 32 * 32, DEMO_OUTPUT_COUNT = 10 };

#endif /* GE_TESTS_C_API_C_TEST_H_ */
