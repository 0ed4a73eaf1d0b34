/* Sequences and optionals through the C ABI: a model taking a sequence
 * (SequenceLength, SequenceAt, SequenceInsert) run on one made here from
 * caller buffers, its sequence output read element by element, an
 * optional, and the refusals (wrapping memory as a sequence, mixed element
 * dtypes, an index out of range). */
#include "c_test.h"

static ge_model* compile_model(void) {
  ge_graph* graph = NULL;
  CHECK_OK(ge_graph_create("sequences", &graph));
  const int64_t unknown[] = {-1}, row[] = {2};
  ge_value *seq = NULL, *x = NULL, *length = NULL, *last = NULL, *longer = NULL, *minus_one = NULL;
  CHECK_OK(ge_graph_add_input(graph, "seq", GE_DTYPE_SEQUENCE, unknown, 1, &seq));
  CHECK_OK(ge_graph_add_input(graph, "x", GE_DTYPE_FLOAT32, row, 1, &x));
  CHECK_OK(ge_graph_add_node(graph, "SequenceLength", "length", &seq, 1, NULL, 1, &length));
  const int64_t minus_one_value = -1;
  ge_tensor* position = NULL;
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_INT64, NULL, 0, (void*)&minus_one_value, &position));
  CHECK_OK(ge_graph_add_constant(graph, "minus_one", position, &minus_one));
  ge_tensor_release(position);
  ge_attrs* attrs = NULL;
  CHECK_OK(ge_attrs_create(&attrs));
  CHECK_OK(ge_attrs_set_dtype(attrs, "dtype", GE_DTYPE_FLOAT32));
  ge_value* at_inputs[] = {seq, minus_one};
  CHECK_OK(ge_graph_add_node(graph, "SequenceAt", "last", at_inputs, 2, attrs, 1, &last));
  ge_attrs_release(attrs);
  ge_value* insert_inputs[] = {seq, x};
  CHECK_OK(ge_graph_add_node(graph, "SequenceInsert", "longer", insert_inputs, 2, NULL, 1, &longer));
  ge_value* outputs[] = {length, last, longer};
  return compile_outputs(graph, outputs, 3);
}

int main(void) {
  ge_model* model = compile_model();
  float a[2] = {1, 2}, b[2] = {3, 4}, x[2] = {5, 6};
  const int64_t row[] = {2};
  ge_tensor *ta = NULL, *tb = NULL, *tx = NULL, *seq = NULL;
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, row, 1, a, &ta));
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, row, 1, b, &tb));
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_FLOAT32, row, 1, x, &tx));
  ge_tensor* elements[] = {ta, tb};
  CHECK_OK(ge_tensor_sequence_create(GE_DTYPE_FLOAT32, elements, 2, &seq));
  CHECK(ge_tensor_dtype(seq) == GE_DTYPE_SEQUENCE && ge_tensor_rank(seq) == 1 && ge_tensor_dims(seq)[0] == 2);
  CHECK(ge_tensor_data(seq) == NULL && ge_tensor_nbytes(seq) == 0);

  ge_tensor* inputs[] = {seq, tx};
  ge_tensor* outputs[3] = {NULL, NULL, NULL};
  CHECK_OK(ge_model_run(model, inputs, 2, outputs, 3));
  CHECK(*(const int64_t*)ge_tensor_data(outputs[0]) == 2);
  const float* last = ge_tensor_data(outputs[1]);
  CHECK(last[0] == 3 && last[1] == 4);
  ge_dtype element_dtype = GE_DTYPE_UNDEFINED;
  CHECK_OK(ge_tensor_element_dtype(outputs[2], &element_dtype));
  CHECK(element_dtype == GE_DTYPE_FLOAT32 && ge_tensor_dims(outputs[2])[0] == 3);
  ge_tensor* appended = NULL;
  CHECK_OK(ge_tensor_element(outputs[2], 2, &appended));
  const float* values = ge_tensor_data(appended);
  CHECK(values[0] == 5 && values[1] == 6);
  ge_tensor_release(appended);
  CHECK_FAILS(ge_tensor_element(outputs[2], 3, &appended), GE_INVALID_ARGUMENT, "index 3 is out of range");
  CHECK_FAILS(ge_tensor_element(tx, 0, &appended), GE_INVALID_ARGUMENT, "holds no elements");
  for (int i = 0; i < 3; ++i) ge_tensor_release(outputs[i]);

  ge_tensor *optional = NULL, *element = NULL;
  CHECK_OK(ge_tensor_optional_create(GE_DTYPE_FLOAT32, tx, &optional));
  CHECK(ge_tensor_dtype(optional) == GE_DTYPE_OPTIONAL && ge_tensor_dims(optional)[0] == 1);
  CHECK_OK(ge_tensor_element(optional, 0, &element));
  CHECK(ge_tensor_data(element) == (void*)x);
  ge_tensor_release(element);
  ge_tensor_release(optional);
  CHECK_OK(ge_tensor_optional_create(GE_DTYPE_FLOAT32, NULL, &optional));
  CHECK(ge_tensor_dims(optional)[0] == 0);
  ge_tensor_release(optional);

  int64_t ids[2] = {1, 2};
  ge_tensor *tids = NULL, *mixed = NULL, *wrapped = NULL;
  CHECK_OK(ge_tensor_wrap(GE_DTYPE_INT64, row, 1, ids, &tids));
  ge_tensor* mixed_elements[] = {ta, tids};
  CHECK_FAILS(ge_tensor_sequence_create(GE_DTYPE_FLOAT32, mixed_elements, 2, &mixed), GE_INVALID_ARGUMENT,
              "element 1 is int64");
  CHECK_FAILS(ge_tensor_wrap(GE_DTYPE_SEQUENCE, row, 1, a, &wrapped), GE_INVALID_ARGUMENT, "cannot wrap memory");
  CHECK_FAILS(ge_tensor_create(GE_DTYPE_OPTIONAL, row, 1, &wrapped), GE_UNSUPPORTED, "dtype optional");

  ge_tensor_release(tids);
  ge_tensor_release(seq);
  ge_tensor_release(ta);
  ge_tensor_release(tb);
  ge_tensor_release(tx);
  ge_model_release(model);
  puts("sequences: ok");
  return 0;
}
