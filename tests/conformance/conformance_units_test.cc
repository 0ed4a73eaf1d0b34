// The runner's own parts: tensor comparison, exclusion rules, reading test
// data files, the expected-failures file, and crash/hang isolation.
#include <catch2/catch.hpp>
#include <onnx/onnx-data_pb.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "case_exclusion.h"
#include "case_runner.h"
#include "expected_failures.h"
#include "isolated_runner.h"
#include "tensor_compare.h"

namespace ge::conformance {
namespace {

Tensor Floats(std::vector<float> values) {
  return Tensor::FromVector(DataType::kFloat, Shape{static_cast<int64_t>(values.size())}, values);
}

// A sequence of float tensors, declared like ONNX's sequence(tensor(float)).
onnx::TypeProto FloatSequenceType() {
  onnx::TypeProto type;
  type.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return type;
}

onnx::TensorProto FloatProto(std::vector<float> values) {
  onnx::TensorProto proto;
  proto.set_data_type(onnx::TensorProto::FLOAT);
  proto.add_dims(static_cast<int64_t>(values.size()));
  for (float v : values) proto.add_float_data(v);
  return proto;
}

// `message` written to a file of the temp dir, removed with this object.
class TempProtoFile {
 public:
  explicit TempProtoFile(const google::protobuf::Message& message)
      : path_(std::filesystem::temp_directory_path() /
              ("ge_value_" + std::to_string(getpid()) + "_" + std::to_string(next_++) + ".pb")) {
    std::ofstream out(path_, std::ios::binary);
    REQUIRE(message.SerializeToOstream(&out));
  }
  ~TempProtoFile() { std::filesystem::remove(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  static inline int next_ = 0;
  std::filesystem::path path_;
};

}  // namespace

TEST_CASE("CompareTensors is allclose with rtol 1e-3, atol 1e-7 and NaN == NaN") {
  const Tolerance tol;
  CHECK_FALSE(CompareTensors(Floats({1.0f, NAN, INFINITY}), Floats({1.0009f, NAN, INFINITY}), tol));
  auto diff = CompareTensors(Floats({1.0f, 2.0f}), Floats({1.0f, 2.01f}), tol);
  REQUIRE(diff);
  CHECK_THAT(*diff, Catch::Contains("element 1") && Catch::Contains("1 of 2 elements differ"));
  CHECK(CompareTensors(Floats({NAN}), Floats({1.0f}), tol));
  CHECK(CompareTensors(Floats({-INFINITY}), Floats({INFINITY}), tol));
}

TEST_CASE("CompareTensors wants equal dtype and shape, and exact integers") {
  const Tolerance tol;
  const Tensor ints = Tensor::FromVector(DataType::kInt64, Shape{2}, std::vector<int64_t>{1, -2});
  CHECK_FALSE(CompareTensors(ints, ints, tol));
  const Tensor other = Tensor::FromVector(DataType::kInt64, Shape{2}, std::vector<int64_t>{1, -3});
  CHECK_THAT(*CompareTensors(ints, other, tol), Catch::Contains("got -2, expected -3"));
  CHECK_THAT(*CompareTensors(ints, Floats({1, -2}), tol), Catch::Contains("dtype int64, expected float32"));
  CHECK_THAT(*CompareTensors(ints, ints.Reshaped(Shape{1, 2}), tol), Catch::Contains("shape"));
}

TEST_CASE("CompareTensors compares sequences and optionals element by element") {
  const Tolerance tol;
  const Tensor sequence = Tensor::Sequence(DataType::kFloat, {Floats({1, 2}), Floats({3})});
  CHECK_FALSE(CompareTensors(sequence, Tensor::Sequence(DataType::kFloat, {Floats({1, 2}), Floats({3})}), tol));
  CHECK_THAT(*CompareTensors(sequence, Tensor::Sequence(DataType::kFloat, {Floats({1, 2})}), tol),
             Catch::Contains("a sequence of 2 elements, expected 1"));
  CHECK_THAT(*CompareTensors(sequence, Tensor::Sequence(DataType::kFloat, {Floats({1, 2}), Floats({4})}), tol),
             Catch::StartsWith("element 1 of the sequence: element 0 (flat index): got 3, expected 4"));
  CHECK_THAT(*CompareTensors(Tensor::Sequence(DataType::kFloat, {}), Tensor::Sequence(DataType::kInt64, {}), tol),
             Catch::Contains("sequence of float32, expected sequence of int64"));
  CHECK_THAT(*CompareTensors(sequence, Floats({1, 2}), tol), Catch::Contains("dtype sequence, expected float32"));

  const Tensor some = Tensor::Optional(DataType::kFloat, Floats({1}));
  const Tensor none = Tensor::Optional(DataType::kFloat, std::nullopt);
  CHECK_FALSE(CompareTensors(some, Tensor::Optional(DataType::kFloat, Floats({1})), tol));
  CHECK_FALSE(CompareTensors(none, none, tol));
  CHECK_THAT(*CompareTensors(none, some, tol), Catch::Contains("an empty optional, expected a value"));
  CHECK_THAT(*CompareTensors(some, none, tol), Catch::Contains("an optional with a value, expected none"));
  CHECK_THAT(*CompareTensors(some, Tensor::Optional(DataType::kFloat, Floats({2})), tol),
             Catch::StartsWith("the optional's value: element 0"));

  // Nested: the message leads from the outside in.
  const Tensor nested = Tensor::Optional(DataType::kSequence, sequence);
  const Tensor other = Tensor::Optional(
      DataType::kSequence, Tensor::Sequence(DataType::kFloat, {Floats({1, 2.5f}), Floats({3})}));
  CHECK_THAT(*CompareTensors(nested, other, tol),
             Catch::StartsWith("the optional's value: element 0 of the sequence: element 1 (flat index)"));
}

TEST_CASE("ReadTestValue reads SequenceProto and OptionalProto files as the model declares") {
  onnx::SequenceProto sequence;
  sequence.set_name("seq");
  sequence.set_elem_type(onnx::SequenceProto::TENSOR);
  *sequence.add_tensor_values() = FloatProto({1, 2});
  *sequence.add_tensor_values() = FloatProto({3});
  const TempProtoFile sequence_file(sequence);
  const TestValue read = ReadTestValue(sequence_file.path(), FloatSequenceType());
  CHECK(read.name == "seq");
  CHECK_FALSE(CompareTensors(read.value, Tensor::Sequence(DataType::kFloat, {Floats({1, 2}), Floats({3})}), {}));

  // An empty sequence says nothing of its elements; the model's type does.
  onnx::SequenceProto empty;
  empty.set_elem_type(onnx::SequenceProto::TENSOR);
  const TempProtoFile empty_file(empty);
  const Tensor empty_read = ReadTestValue(empty_file.path(), FloatSequenceType()).value;
  CHECK(empty_read.dtype() == DataType::kSequence);
  CHECK(empty_read.element_dtype() == DataType::kFloat);
  CHECK(empty_read.elements().empty());

  onnx::TypeProto optional_type;
  *optional_type.mutable_optional_type()->mutable_elem_type() = FloatSequenceType();
  onnx::OptionalProto some;
  some.set_elem_type(onnx::OptionalProto::SEQUENCE);
  *some.mutable_sequence_value() = sequence;
  const TempProtoFile some_file(some);
  CHECK_FALSE(CompareTensors(ReadTestValue(some_file.path(), optional_type).value,
                             Tensor::Optional(DataType::kSequence, read.value), {}));

  const TempProtoFile none_file(onnx::OptionalProto{});
  CHECK_FALSE(CompareTensors(ReadTestValue(none_file.path(), optional_type).value,
                             Tensor::Optional(DataType::kSequence, std::nullopt), {}));

  // Files that do not hold what the model declares.
  onnx::SequenceProto nested;
  nested.set_elem_type(onnx::SequenceProto::SEQUENCE);
  *nested.add_sequence_values() = sequence;
  const TempProtoFile nested_file(nested);
  CHECK_THROWS_WITH(ReadTestValue(nested_file.path(), FloatSequenceType()),
                    nested_file.path().string() + ": elem_type SEQUENCE, the model declares TENSOR");
  onnx::SequenceProto ints;
  ints.set_elem_type(onnx::SequenceProto::TENSOR);
  onnx::TensorProto* element = ints.add_tensor_values();
  element->set_data_type(onnx::TensorProto::INT64);
  element->add_int64_data(7);
  const TempProtoFile ints_file(ints);
  CHECK_THROWS_WITH(ReadTestValue(ints_file.path(), FloatSequenceType()),
                    ints_file.path().string() + ": sequence of float32: element 0 is int64");

  const auto garbage = std::filesystem::temp_directory_path() / ("ge_garbage_" + std::to_string(getpid()) + ".pb");
  std::ofstream(garbage, std::ios::binary) << "\x0f";  // field 1 with wire type 7, which does not exist
  CHECK_THROWS_WITH(ReadTestValue(garbage, FloatSequenceType()), garbage.string() + ": not a SequenceProto");
  std::filesystem::remove(garbage);
}

TEST_CASE("ExclusionReason names strings, maps, other domains and training ops") {
  onnx::ModelProto model;
  model.add_opset_import()->set_version(13);
  CHECK_FALSE(ExclusionReason(model));

  onnx::ModelProto sequence = model;
  auto* input = sequence.mutable_graph()->add_input();
  input->set_name("seq");
  *input->mutable_type() = FloatSequenceType();
  sequence.mutable_graph()->add_node()->set_op_type("SequenceAt");
  CHECK_FALSE(ExclusionReason(sequence));
  input->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_map_type();
  CHECK_THAT(*ExclusionReason(sequence), Catch::Contains("map type of 'seq' (in a sequence)"));

  onnx::ModelProto strings = model;
  auto* output = strings.mutable_graph()->add_output();
  output->set_name("s");
  output->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::STRING);
  CHECK_THAT(*ExclusionReason(strings), Catch::Contains("string tensor 's'"));

  onnx::ModelProto ml = model;
  ml.mutable_graph()->add_node()->set_op_type("Adam");
  CHECK_THAT(*ExclusionReason(ml), Catch::Contains("training op Adam"));
  ml.mutable_graph()->mutable_node(0)->set_op_type("StringNormalizer");
  CHECK_THAT(*ExclusionReason(ml), Catch::Contains("op StringNormalizer works on strings"));
  ml.mutable_graph()->mutable_node(0)->set_domain("ai.onnx.ml");
  CHECK_THAT(*ExclusionReason(ml), Catch::Contains("domain 'ai.onnx.ml'"));
}

TEST_CASE("Expected failures round-trip through the file, reasons are one trimmed line") {
  const auto path = std::filesystem::temp_directory_path() / ("ge_expected_" + std::to_string(getpid()) + ".txt");
  WriteExpectedFailures(path, {{"node/test_b", "why b"}, {"node/test_a", ""}});
  const ExpectedFailures read = ReadExpectedFailures(path);
  CHECK(read == ExpectedFailures{{"node/test_a", ""}, {"node/test_b", "why b"}});
  std::filesystem::remove(path);
  CHECK(ReadExpectedFailures(path).empty());

  CHECK(ReasonOf("first   line\nsecond") == "first line");
  const std::string reason = ReasonOf(std::string(300, 'x'));
  CHECK(reason.size() == 120);
  CHECK(reason.ends_with("..."));
}

TEST_CASE("RunIsolated reports passes, failures, exceptions, crashes and hangs per job") {
  std::map<size_t, JobResult> results;
  RunIsolated(
      5,
      [](size_t i) -> std::optional<std::string> {
        switch (i) {
          case 0: return std::nullopt;
          case 1: return "wrong answer";
          case 2: throw std::runtime_error("thrown");
          case 3: raise(SIGSEGV); return std::nullopt;
          default: sleep(30); return std::nullopt;
        }
      },
      // 5 s: under the asan preset the crash (job 3) first prints a
      // symbolized report, which took over 1 s on a loaded 2-core machine.
      2, 5.0, [&](size_t i, const JobResult& result) { results[i] = result; });
  REQUIRE(results.size() == 5);
  CHECK(results[0].passed);
  CHECK(results[1].message == "wrong answer");
  CHECK(results[2].message == "thrown");
  // AddressSanitizer catches the SIGSEGV itself and exits with status 1, so
  // under the asan preset the crash shows as an exit without a result.
  CHECK_THAT(results[3].message,
             Catch::Contains("crashed: signal 11") || Catch::Contains("without reporting a result"));
  CHECK_THAT(results[4].message, Catch::Contains("timed out"));
  for (size_t i = 1; i < 5; ++i) CHECK_FALSE(results[i].passed);
}

}  // namespace ge::conformance
