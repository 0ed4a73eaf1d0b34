// Session: graph ids, option validation and merging, concurrent RunGraph.
#include <catch2/catch.hpp>

#include <thread>

#include "ge/builder.h"
#include "ge/error.h"
#include "ge/session.h"
#include "test_models.h"
#include "test_support.h"

using ge::ErrorCode;
using ge::Session;
using ge::Tensor;

TEST_CASE("session: add, compile, run and remove a graph", "[session]") {
  Session session;
  ge::test::MlpModel reference;
  session.AddGraph(1, reference.Build());
  session.CompileGraph(1);
  session.CompileGraph(1);  // a no-op the second time
  Tensor x = ge::test::RandomTensor(ge::test::MlpModel::InputShape(), 4);
  std::vector<Tensor> y = session.RunGraph(1, {x});
  REQUIRE(y.size() == 1);
  CHECK(ge::test::MaxAbsDiff(y[0], reference.Reference(x)) < 1e-5);
  CHECK(session.GetCompiledModel(1) == session.GetCompiledModel(1));
  session.RemoveGraph(1);
  CHECK(ge::test::ErrorCodeOf([&] { session.RunGraph(1, {x}); }) == ErrorCode::kNotFound);
}

TEST_CASE("session: unknown ids are not found, taken ids are invalid", "[session]") {
  Session session;
  CHECK(ge::test::ErrorCodeOf([&] { session.RunGraph(7, {}); }) == ErrorCode::kNotFound);
  CHECK(ge::test::ErrorCodeOf([&] { session.CompileGraph(7); }) == ErrorCode::kNotFound);
  CHECK(ge::test::ErrorCodeOf([&] { session.RemoveGraph(7); }) == ErrorCode::kNotFound);
  CHECK(ge::test::ErrorCodeOf([&] { session.GetCompiledModel(7); }) == ErrorCode::kNotFound);
  session.AddGraph(7, ge::test::MlpModel().Build());
  try {
    session.AddGraph(7, ge::test::MlpModel().Build());
    FAIL("added graph id 7 twice");
  } catch (const ge::Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK_THAT(error.what(), Catch::Contains("7"));
  }
  CHECK(ge::test::ErrorCodeOf([&] { session.AddGraph(8, nullptr); }) == ErrorCode::kInvalidArgument);
}

TEST_CASE("session: bad options are rejected when given", "[session]") {
  CHECK(ge::test::ErrorCodeOf([] { Session session(ge::Options{{"ge.noSuchOption", "1"}}); }) == ErrorCode::kInvalidArgument);
  Session session;
  CHECK(ge::test::ErrorCodeOf([&] { session.AddGraph(1, ge::test::MlpModel().Build(), {{"ge.exec.disableReuseMemory", "9"}}); }) ==
        ErrorCode::kInvalidArgument);
  // The rejected graph was not added.
  CHECK(ge::test::ErrorCodeOf([&] { session.CompileGraph(1); }) == ErrorCode::kNotFound);
}

TEST_CASE("session: graph options override session options", "[session]") {
  Session session(ge::Options{{"ge.exec.disableReuseMemory", "1"}});
  session.AddGraph(1, ge::test::ConvReluModel().Build());
  session.AddGraph(2, ge::test::ConvReluModel().Build(), {{"ge.exec.disableReuseMemory", "0"}});
  ge::MemorySummary inherited = session.GetCompiledModel(1)->memory();
  ge::MemorySummary overridden = session.GetCompiledModel(2)->memory();
  CHECK(inherited.arena_bytes == inherited.no_reuse_bytes);
  CHECK(overridden.arena_bytes <= overridden.no_reuse_bytes);
}

TEST_CASE("session: a failed compile reports the same error to every caller", "[session]") {
  Session session;
  auto graph = std::make_unique<ge::Graph>("unknown_op");
  ge::Node* node = graph->AddNode("NoSuchOp", "mystery", {graph->AddInput("x", ge::DataType::kFloat, {2, 3})});
  graph->SetOutputs({node->output(0)});
  session.AddGraph(3, std::move(graph));
  CHECK(ge::test::ErrorCodeOf([&] { session.CompileGraph(3); }) == ErrorCode::kUnsupported);
  CHECK(ge::test::ErrorCodeOf([&] { session.RunGraph(3, {}); }) == ErrorCode::kUnsupported);
}

TEST_CASE("session: concurrent RunGraph compiles once and agrees", "[session][concurrency]") {
  Session session(ge::Options{{"ge.exec.intraOpThreads", "1"}});
  ge::test::ConvReluModel reference;
  session.AddGraph(5, reference.Build());
  Tensor x = ge::test::RandomTensor(ge::test::ConvReluModel::InputShape(), 9);
  Tensor expected = reference.Reference(x);
  std::vector<Tensor> results(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 10; ++round) results[t] = session.RunGraph(5, {x})[0];
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const Tensor& result : results) {
    CHECK(ge::test::BitIdentical(result, results[0]));
    CHECK(ge::test::MaxAbsDiff(result, expected) < 1e-5);
  }
}
