// CompiledModel::RunAsync and Session::RunGraphAsync: results as Run gives
// them, errors in the callback, a bounded number of run threads, callbacks
// that throw, and destruction waiting for the runs in flight.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/session.h"
#include "runtime/execute/async_runner.h"
#include "test_models.h"
#include "test_support.h"

using ge::ErrorCode;
using ge::RunResult;
using ge::Tensor;

namespace {

// Counts callbacks and lets the test wait for a number of them.
class Countdown {
 public:
  explicit Countdown(int count) : left_(count) {}
  void Done() {
    std::lock_guard lock(mutex_);
    --left_;
    changed_.notify_all();
  }
  bool Wait() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(60), [&] { return left_ <= 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int left_;
};


std::vector<Tensor> ConvInputs(int count, uint32_t seed) {
  std::vector<Tensor> inputs;
  for (int i = 0; i < count; ++i) {
    inputs.push_back(ge::test::RandomTensor(ge::test::ConvReluModel::InputShape(), seed + static_cast<uint32_t>(i)));
  }
  return inputs;
}

}  // namespace

TEST_CASE("async: RunAsync gives what Run gives", "[async]") {
  ge::test::ConvReluModel conv;
  auto model = ge::CompiledModel::Compile(conv.Build(), {{"ge.exec.asyncWorkers", "4"}});
  std::vector<Tensor> inputs = ConvInputs(24, 700);
  std::vector<RunResult> results(inputs.size());
  Countdown done(static_cast<int>(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    model->RunAsync({inputs[i]}, [&, i](RunResult result) {
      results[i] = std::move(result);
      done.Done();
    });
  }
  REQUIRE(done.Wait());
  for (size_t i = 0; i < inputs.size(); ++i) {
    REQUIRE(results[i].ok());
    REQUIRE(results[i].outputs.size() == 1);
    CHECK(ge::test::BitIdentical(results[i].outputs[0], model->Run({inputs[i]})[0]));
    CHECK(ge::test::MaxAbsDiff(results[i].outputs[0], conv.Reference(inputs[i])) < 1e-5);
  }
}

TEST_CASE("async: Session::RunGraphAsync compiles on first use and gives what RunGraph gives", "[async][session]") {
  ge::test::MlpModel mlp;
  ge::Session session(ge::Options{{"ge.exec.asyncWorkers", "3"}});
  session.AddGraph(5, mlp.Build());
  std::vector<Tensor> inputs;
  for (uint32_t seed = 0; seed < 12; ++seed) inputs.push_back(ge::test::RandomTensor(mlp.InputShape(), 800 + seed));
  std::vector<RunResult> results(inputs.size());
  Countdown done(static_cast<int>(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    session.RunGraphAsync(5, {inputs[i]}, [&, i](RunResult result) {
      results[i] = std::move(result);
      done.Done();
    });
  }
  REQUIRE(done.Wait());
  for (size_t i = 0; i < inputs.size(); ++i) {
    REQUIRE(results[i].ok());
    CHECK(ge::test::BitIdentical(results[i].outputs[0], session.RunGraph(5, {inputs[i]})[0]));
    CHECK(ge::test::MaxAbsDiff(results[i].outputs[0], mlp.Reference(inputs[i])) < 1e-5);
  }
}

TEST_CASE("async: errors reach the callback with their code and message", "[async]") {
  auto model = ge::CompiledModel::Compile(ge::test::ConvReluModel().Build());
  std::optional<RunResult> bad_shape;
  Countdown done(1);
  model->RunAsync({ge::test::RandomTensor({1, 2, 5, 4}, 1)}, [&](RunResult result) {
    bad_shape = std::move(result);
    done.Done();
  });
  REQUIRE(done.Wait());
  REQUIRE_FALSE(bad_shape->ok());
  CHECK(bad_shape->outputs.empty());
  CHECK(bad_shape->error->code() == ErrorCode::kInvalidArgument);
  CHECK_THAT(bad_shape->error->what(), Catch::Contains("'x'") && Catch::Contains("[1,2,5,4]"));

  // A compile error of the session's graph (pass names are checked when
  // compiling), met on the run thread.
  ge::Session session;
  session.AddGraph(1, ge::test::MlpModel().Build(), {{"ge.disablePasses", "no_such_pass"}});
  std::optional<RunResult> compile_error;
  Countdown compiled(1);
  session.RunGraphAsync(1, {ge::test::RandomTensor(ge::test::MlpModel::InputShape(), 3)}, [&](RunResult result) {
    compile_error = std::move(result);
    compiled.Done();
  });
  REQUIRE(compiled.Wait());
  REQUIRE_FALSE(compile_error->ok());
  CHECK(compile_error->error->code() == ErrorCode::kInvalidArgument);
  CHECK_THAT(compile_error->error->what(), Catch::Contains("no_such_pass"));

  // Refused right away: an unknown graph, an empty callback.
  CHECK(ge::test::ErrorCodeOf([&] { session.RunGraphAsync(9, {}, [](RunResult) {}); }) == ErrorCode::kNotFound);
  CHECK(ge::test::ErrorCodeOf([&] { session.RunGraphAsync(1, {}, nullptr); }) == ErrorCode::kInvalidArgument);
  CHECK(ge::test::ErrorCodeOf([&] { model->RunAsync({}, nullptr); }) == ErrorCode::kInvalidArgument);
}

TEST_CASE("async: a callback that throws does not stop the run threads", "[async]") {
  auto model = ge::CompiledModel::Compile(ge::test::ConvReluModel().Build(), {{"ge.exec.asyncWorkers", "1"}});
  std::vector<Tensor> inputs = ConvInputs(3, 900);
  Countdown done(3);
  std::atomic<int> ok{0};
  model->RunAsync({inputs[0]}, [&](RunResult) {
    done.Done();
    throw std::runtime_error("callback failure (expected by the test)");
  });
  model->RunAsync({inputs[1]}, [&](RunResult) {
    done.Done();
    throw 42;  // not even an exception type
  });
  model->RunAsync({inputs[2]}, [&](RunResult result) {
    ok += result.ok();
    done.Done();
  });
  REQUIRE(done.Wait());
  CHECK(ok == 1);
}

TEST_CASE("async: at most ge.exec.asyncWorkers run threads", "[async]") {
  auto model = ge::CompiledModel::Compile(ge::test::ConvReluModel().Build(), {{"ge.exec.asyncWorkers", "3"}});
  std::vector<Tensor> inputs = ConvInputs(40, 1000);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  int running = 0, most_running = 0;
  Countdown done(static_cast<int>(inputs.size()));
  for (const Tensor& input : inputs) {
    model->RunAsync({input}, [&](RunResult) {
      {
        std::lock_guard lock(mutex);
        threads.insert(std::this_thread::get_id());
        most_running = std::max(most_running, ++running);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      {
        std::lock_guard lock(mutex);
        --running;
      }
      done.Done();
    });
  }
  REQUIRE(done.Wait());
  CHECK(threads.size() <= 3);
  CHECK(most_running <= 3);
  CHECK_FALSE(threads.count(std::this_thread::get_id()));
}

TEST_CASE("async: destroying a model or a session waits for its runs", "[async]") {
  constexpr int kRuns = 20;
  std::vector<Tensor> inputs = ConvInputs(kRuns, 1100);
  std::atomic<int> finished{0};
  auto slow_callback = [&](RunResult result) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    finished += result.ok();
  };
  {
    auto model = ge::CompiledModel::Compile(ge::test::ConvReluModel().Build(), {{"ge.exec.asyncWorkers", "2"}});
    for (const Tensor& input : inputs) model->RunAsync({input}, slow_callback);
  }
  CHECK(finished == kRuns);

  finished = 0;
  {
    ge::Session session(ge::Options{{"ge.exec.asyncWorkers", "2"}});
    session.AddGraph(1, ge::test::ConvReluModel().Build());
    for (const Tensor& input : inputs) session.RunGraphAsync(1, {input}, slow_callback);
  }
  CHECK(finished == kRuns);
}

TEST_CASE("async: a callback may drop the last reference to its model", "[async]") {
  // One worker: the callback that destroys the model runs on the only run
  // thread, which must then run the queued runs itself.
  std::shared_ptr<const ge::CompiledModel> holder =
      ge::CompiledModel::Compile(ge::test::ConvReluModel().Build(), {{"ge.exec.asyncWorkers", "1"}});
  std::vector<Tensor> inputs = ConvInputs(5, 1200);
  std::mutex mutex;
  std::promise<void> all_submitted;
  std::shared_future<void> submitted = all_submitted.get_future().share();
  Countdown done(static_cast<int>(inputs.size()));
  std::atomic<int> ok{0};
  for (size_t i = 0; i < inputs.size(); ++i) {
    holder->RunAsync({inputs[i]}, [&, i](RunResult result) {
      if (i == 0) submitted.wait();  // the later runs stay queued
      ok += result.ok();
      done.Done();
      if (i == 1) {
        std::lock_guard lock(mutex);
        holder.reset();
      }
    });
  }
  all_submitted.set_value();
  REQUIRE(done.Wait());
  CHECK(ok == static_cast<int>(inputs.size()));
  std::lock_guard lock(mutex);
  CHECK(holder == nullptr);
}

TEST_CASE("async: the run-thread pool starts threads only for work", "[async]") {
  ge::runtime::AsyncRunner runner(4);
  CHECK(runner.workers() == 0);
  Countdown done(1);
  runner.Submit([&] { done.Done(); });
  REQUIRE(done.Wait());
  CHECK(runner.workers() == 1);
}

TEST_CASE("async: run-concurrency options are validated", "[async][options]") {
  auto compile = [](const std::string& key, const std::string& value) {
    return ge::test::ErrorCodeOf([&] { ge::CompiledModel::Compile(ge::test::MlpModel().Build(), {{key, value}}); });
  };
  for (const char* bad : {"0", "-1", "two", "", "3x"}) {
    CHECK(compile("ge.exec.asyncWorkers", bad) == ErrorCode::kInvalidArgument);
  }
  for (const char* bad : {"-1", "many", "1.5"}) CHECK(compile("ge.exec.maxArenas", bad) == ErrorCode::kInvalidArgument);
  for (const char* bad : {"-5", "1e9", "256MiB"}) {
    CHECK(compile("ge.exec.dynamicPlanCacheBytes", bad) == ErrorCode::kInvalidArgument);
  }
  CHECK(compile("ge.exec.asyncWorkers", "2") == ErrorCode::kOk);
  CHECK(compile("ge.exec.maxArenas", "0") == ErrorCode::kOk);
  CHECK(compile("ge.exec.dynamicPlanCacheBytes", "0") == ErrorCode::kOk);
  for (const char* bad : {"0", "-1", "twice"}) {
    CHECK(compile("ge.exec.dynamicPlanAfterRuns", bad) == ErrorCode::kInvalidArgument);
  }
  CHECK(compile("ge.exec.dynamicPlanAfterRuns", "1") == ErrorCode::kOk);
  for (const char* bad : {"2", "yes", ""}) CHECK(compile("ge.exec.dynamicPackWeights", bad) == ErrorCode::kInvalidArgument);
  CHECK(compile("ge.exec.dynamicPackWeights", "1") == ErrorCode::kOk);
  CHECK(ge::test::ErrorCodeOf([] { ge::Session session(ge::Options{{"ge.exec.asyncWorkers", "0"}}); }) == ErrorCode::kInvalidArgument);
  try {
    ge::CompiledModel::Compile(ge::test::MlpModel().Build(), {{"ge.exec.maxArenas", "many"}});
  } catch (const ge::Error& error) {
    CHECK_THAT(error.what(), Catch::Contains("ge.exec.maxArenas") && Catch::Contains("many"));
  }
}
