#include "runtime/compile/stream_assignment.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/core.h>

#include "ge/error.h"

namespace ge::runtime {
namespace {

// Vector clocks of steps added in step order (see stream_assignment.h).
class Clocks {
 public:
  explicit Clocks(int streams) : streams_(streams) {}

  // Starts the next step on `stream`, after `previous` (that stream's latest
  // step, -1 for none).
  void Begin(int stream, int previous) {
    size_t base = clock_.size();
    clock_.resize(base + streams_, -1);
    if (previous >= 0) {
      std::copy_n(clock_.begin() + Base(previous), streams_, clock_.begin() + base);
      clock_[base + stream] = previous;
    }
    stream_.push_back(stream);
  }
  // The current step already starts after `step` finished.
  bool Knows(int step) const { return clock_[clock_.size() - streams_ + stream_[step]] >= step; }
  // The current step waits for `step` (an event): it knows all `step` knew.
  void Wait(int step) {
    size_t base = clock_.size() - streams_;
    for (int k = 0; k < streams_; ++k) clock_[base + k] = std::max(clock_[base + k], clock_[Base(step) + k]);
    clock_[base + stream_[step]] = std::max(clock_[base + stream_[step]], step);
  }
  bool HappensBefore(int a, int b) const { return a < b && clock_[Base(b) + stream_[a]] >= a; }
  std::vector<int> TakeClocks() { return std::move(clock_); }

 private:
  size_t Base(int step) const { return static_cast<size_t>(step) * streams_; }
  int streams_;
  std::vector<int> stream_;
  std::vector<int> clock_;
};

// For each step, the earlier steps it depends on (data, then control), first input's producer first, no repeats.
std::vector<std::vector<int>> Dependencies(const CompiledModel::Impl& impl) {
  std::unordered_map<int, int> producer_of_value;
  std::unordered_map<const Node*, int> step_of_node;
  for (size_t s = 0; s < impl.steps.size(); ++s) {
    for (int value : impl.steps[s].outputs) producer_of_value[value] = static_cast<int>(s);
    step_of_node[impl.steps[s].node] = static_cast<int>(s);
  }
  std::vector<std::vector<int>> deps(impl.steps.size());
  for (size_t s = 0; s < impl.steps.size(); ++s) {
    auto add = [&](int producer) {
      if (std::find(deps[s].begin(), deps[s].end(), producer) == deps[s].end()) deps[s].push_back(producer);
    };
    for (int value : impl.steps[s].inputs) {
      if (auto it = producer_of_value.find(value); value >= 0 && it != producer_of_value.end()) add(it->second);
    }
    for (const Node* control : impl.steps[s].node->control_inputs()) {
      if (auto it = step_of_node.find(control); it != step_of_node.end()) add(it->second);
    }
  }
  return deps;
}

// The stream for step s: a producer's stream if the producer is its latest
// step, else a new stream, else (all open) the stream idle the longest.
int ChooseStream(const std::vector<Step>& steps, const std::vector<int>& deps, const std::vector<int>& tail,
                 int max_streams) {
  for (int producer : deps) {
    if (tail[steps[producer].stream] == producer) return steps[producer].stream;
  }
  if (static_cast<int>(tail.size()) < max_streams) return static_cast<int>(tail.size());
  return static_cast<int>(std::min_element(tail.begin(), tail.end()) - tail.begin());
}

}  // namespace

void AssignStreams(CompiledModel::Impl& impl) {
  const int max_streams = impl.settings.single_stream ? 1 : std::max(1, impl.settings.max_streams);
  std::vector<std::vector<int>> deps = Dependencies(impl);
  std::vector<int> tail;  // stream -> its latest step
  Clocks clocks(max_streams);
  for (size_t s = 0; s < impl.steps.size(); ++s) {
    Step& step = impl.steps[s];
    step.stream = ChooseStream(impl.steps, deps[s], tail, max_streams);
    step.waits.clear();
    if (step.stream == static_cast<int>(tail.size())) tail.push_back(-1);
    clocks.Begin(step.stream, tail[step.stream]);
    // Latest producers first: waiting for them often implies the older ones.
    std::vector<int> producers = deps[s];
    std::sort(producers.rbegin(), producers.rend());
    for (int producer : producers) {
      if (impl.steps[producer].stream == step.stream || clocks.Knows(producer)) continue;
      clocks.Wait(producer);
      step.waits.push_back(producer);
    }
    std::sort(step.waits.begin(), step.waits.end());
    tail[step.stream] = static_cast<int>(s);
  }
  impl.stream_count = std::max<int>(1, static_cast<int>(tail.size()));
}

StepOrder::StepOrder(const std::vector<Step>& steps, int stream_count) : streams_(std::max(1, stream_count)) {
  Clocks clocks(streams_);
  std::vector<int> tail(streams_, -1);
  for (size_t s = 0; s < steps.size(); ++s) {
    clocks.Begin(steps[s].stream, tail[steps[s].stream]);
    for (int producer : steps[s].waits) clocks.Wait(producer);
    tail[steps[s].stream] = static_cast<int>(s);
    stream_.push_back(steps[s].stream);
  }
  clock_ = clocks.TakeClocks();
}

bool StepOrder::HappensBefore(int a, int b) const {
  return a < b && clock_[static_cast<size_t>(b) * streams_ + stream_[a]] >= a;
}

void CheckStreams(const CompiledModel::Impl& impl) {
  auto fail = [](const std::string& message) { throw Error(ErrorCode::kInvalidModel, "invalid stream plan: " + message); };
  if (impl.stream_count < 1) fail(fmt::format("{} streams", impl.stream_count));
  for (size_t s = 0; s < impl.steps.size(); ++s) {
    const Step& step = impl.steps[s];
    if (step.stream < 0 || step.stream >= impl.stream_count) {
      fail(fmt::format("{} runs on stream {} of {}", step.node->Describe(), step.stream, impl.stream_count));
    }
    for (int producer : step.waits) {
      if (producer < 0 || producer >= static_cast<int>(s) || impl.steps[producer].stream == step.stream) {
        fail(fmt::format("{} waits for step {}, which is not an earlier step on another stream",
                         step.node->Describe(), producer));
      }
    }
  }
  StepOrder order(impl.steps, impl.stream_count);
  std::vector<std::vector<int>> deps = Dependencies(impl);
  for (size_t s = 0; s < impl.steps.size(); ++s) {
    for (int producer : deps[s]) {
      if (!order.HappensBefore(producer, static_cast<int>(s))) {
        fail(fmt::format("{} (stream {}) may start before {} (stream {}) that it depends on has finished",
                         impl.steps[s].node->Describe(), impl.steps[s].stream, impl.steps[producer].node->Describe(),
                         impl.steps[producer].stream));
      }
    }
  }
}

std::vector<bool> EventSources(const std::vector<Step>& steps) {
  std::vector<bool> sources(steps.size(), false);
  for (const Step& step : steps) {
    for (int producer : step.waits) sources[producer] = true;
  }
  return sources;
}

}  // namespace ge::runtime
