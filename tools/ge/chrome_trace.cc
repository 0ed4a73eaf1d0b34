#include "chrome_trace.h"

#include <set>

#include "json_writer.h"

namespace ge::cli {
namespace {

constexpr int kProcess = 1;

std::string ShapeList(const std::vector<Shape>& shapes) {
  std::string text;
  for (const Shape& shape : shapes) text += (text.empty() ? "" : ", ") + shape.ToString();
  return text;
}

}  // namespace

std::string ChromeTrace(const RunProfile& profile, const std::string& model_name) {
  JsonWriter json;
  json.BeginObject();
  json.Key("displayTimeUnit").String("ms");
  json.Key("traceEvents").BeginArray();
  json.BeginObject().Key("ph").String("M").Key("pid").Int(kProcess).Key("name").String("process_name");
  json.Key("args").BeginObject().Key("name").String(model_name).EndObject().EndObject();
  std::set<int> streams;
  for (const StepProfile& step : profile.steps) streams.insert(step.stream);
  for (int stream : streams) {
    json.BeginObject().Key("ph").String("M").Key("pid").Int(kProcess).Key("tid").Int(stream);
    json.Key("name").String("thread_name");
    json.Key("args").BeginObject().Key("name").String("stream " + std::to_string(stream)).EndObject().EndObject();
  }
  for (const StepProfile& step : profile.steps) {
    json.BeginObject();
    json.Key("ph").String("X").Key("pid").Int(kProcess).Key("tid").Int(step.stream);
    json.Key("name").String(step.op_type).Key("cat").String("step");
    json.Key("ts").Number(step.start_us).Key("dur").Number(step.duration_us);
    json.Key("args").BeginObject();
    json.Key("node").String(step.node).Key("kernel").String(step.kernel);
    json.Key("inputs").String(ShapeList(step.input_shapes)).Key("outputs").String(ShapeList(step.output_shapes));
    json.EndObject();
    json.EndObject();
    json.BeginObject();
    json.Key("ph").String("C").Key("pid").Int(kProcess).Key("name").String("activation memory");
    json.Key("ts").Number(step.start_us);
    json.Key("args").BeginObject().Key("bytes").Int(static_cast<int64_t>(step.live_bytes)).EndObject();
    json.EndObject();
  }
  json.EndArray();
  json.Key("total_us").Number(profile.total_us);
  json.EndObject();
  return json.str();
}

}  // namespace ge::cli
