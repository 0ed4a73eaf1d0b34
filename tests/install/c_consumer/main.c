/* A C11 program that uses the installed C ABI the way the docs show, built with
 * nothing but `pkg-config --cflags --libs ge_c`: imports the demo CNN, runs it on
 * the shipped input and compares with the PyTorch-computed expected output.
 * usage: c_consumer MODEL.onnx INPUT.npy EXPECTED.npy; exit 0 on a match. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ge_c/ge_c.h>

/* The float32 payload of a little-endian .npy file (version 1 header). */
static float* read_npy_floats(const char* path, size_t* count) {
  FILE* file = fopen(path, "rb");
  if (file == NULL) return NULL;
  unsigned char prefix[10];
  float* values = NULL;
  if (fread(prefix, 1, sizeof prefix, file) == sizeof prefix && memcmp(prefix, "\x93NUMPY", 6) == 0) {
    const long header_end = 10 + (long)(prefix[8] | (prefix[9] << 8));
    fseek(file, 0, SEEK_END);
    const long payload = ftell(file) - header_end;
    values = payload > 0 ? malloc((size_t)payload) : NULL;
    if (values != NULL && (fseek(file, header_end, SEEK_SET) != 0 ||
                           fread(values, 1, (size_t)payload, file) != (size_t)payload)) {
      free(values);
      values = NULL;
    }
    *count = values != NULL ? (size_t)payload / sizeof(float) : 0;
  }
  fclose(file);
  return values;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: c_consumer MODEL.onnx INPUT.npy EXPECTED.npy\n");
    return 2;
  }
  size_t input_count = 0, expected_count = 0;
  float* pixels = read_npy_floats(argv[2], &input_count);
  float* expected = read_npy_floats(argv[3], &expected_count);
  if (pixels == NULL || expected == NULL) {
    fprintf(stderr, "c_consumer: cannot read %s or %s\n", argv[2], argv[3]);
    return 1;
  }

  ge_graph* graph = NULL;
  ge_model* model = NULL;
  ge_tensor* input = NULL;
  ge_tensor* output = NULL; /* NULL: ge allocates the output */
  const int64_t dims[] = {1, 3, 32, 32};
  int status = 1;
  if (ge_onnx_import_file(argv[1], &graph) != GE_OK || ge_compile(graph, NULL, NULL, 0, &model) != GE_OK ||
      ge_tensor_wrap(GE_DTYPE_FLOAT32, dims, 4, pixels, &input) != GE_OK ||
      ge_model_run(model, &input, 1, &output, 1) != GE_OK) {
    fprintf(stderr, "c_consumer: %s\n", ge_last_error());
  } else if (ge_tensor_nbytes(output) != expected_count * sizeof(float)) {
    fprintf(stderr, "c_consumer: output has %zu bytes, expected %zu\n", ge_tensor_nbytes(output),
            expected_count * sizeof(float));
  } else {
    const float* probabilities = ge_tensor_data(output);
    status = 0;
    for (size_t i = 0; i < expected_count; ++i) {
      if (fabsf(probabilities[i] - expected[i]) > 1e-5f) {
        fprintf(stderr, "c_consumer: probabilities[%zu] = %g, expected %g\n", i, probabilities[i], expected[i]);
        status = 1;
      }
    }
    if (status == 0) printf("c_consumer: %zu probabilities match PyTorch's through libge_c %s\n", expected_count, ge_version());
  }
  ge_tensor_release(output);
  ge_tensor_release(input);
  ge_model_release(model);
  ge_graph_release(graph);
  free(pixels);
  free(expected);
  return status;
}
