// The runner's own parts: tensor comparison, exclusion rules, the
// expected-failures file, and crash/hang isolation.
#include <catch2/catch.hpp>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "case_exclusion.h"
#include "expected_failures.h"
#include "isolated_runner.h"
#include "tensor_compare.h"

namespace ge::conformance {
namespace {

Tensor Floats(std::vector<float> values) {
  return Tensor::FromVector(DataType::kFloat, Shape{static_cast<int64_t>(values.size())}, values);
}

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

TEST_CASE("ExclusionReason names sequences, strings, other domains and training ops") {
  onnx::ModelProto model;
  model.add_opset_import()->set_version(13);
  CHECK_FALSE(ExclusionReason(model));

  onnx::ModelProto sequence = model;
  auto* input = sequence.mutable_graph()->add_input();
  input->set_name("seq");
  input->mutable_type()->mutable_sequence_type();
  CHECK_THAT(*ExclusionReason(sequence), Catch::Contains("sequence type of 'seq'"));

  onnx::ModelProto strings = model;
  auto* output = strings.mutable_graph()->add_output();
  output->set_name("s");
  output->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::STRING);
  CHECK_THAT(*ExclusionReason(strings), Catch::Contains("string tensor 's'"));

  onnx::ModelProto ml = model;
  ml.mutable_graph()->add_node()->set_op_type("Adam");
  CHECK_THAT(*ExclusionReason(ml), Catch::Contains("training op Adam"));
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
      2, 1.0, [&](size_t i, const JobResult& result) { results[i] = result; });
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
