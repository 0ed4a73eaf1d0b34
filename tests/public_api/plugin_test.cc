// ge::LoadPlugin (ge/plugin.h) from a C++ program linked against libge.so: the
// example plugin's VendorSwish op, built and run through the public API and
// checked against y = x * sigmoid(beta * x) in float64, and the loader's errors.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ge/builder.h"
#include "ge/error.h"
#include "ge/plugin.h"
#include "ge/session.h"

namespace {

int failures = 0;

void Check(bool condition, const std::string& what) {
  if (!condition) {
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    ++failures;
  }
}

// Runs `body`, which must throw ge::Error with `code` and a message containing `text`.
template <typename Body>
void ExpectError(Body&& body, ge::ErrorCode code, const std::string& text) {
  try {
    body();
    Check(false, "no error; expected one containing '" + text + "'");
  } catch (const ge::Error& e) {
    Check(e.code() == code, std::string("error code ") + ge::ErrorCodeName(e.code()) + " for: " + e.what());
    Check(std::string(e.what()).find(text) != std::string::npos, "message '" + std::string(e.what()) +
                                                                       "' lacks '" + text + "'");
  }
}

void TestVendorSwish() {
  ge::LoadPlugin(VENDOR_SWISH_PLUGIN);
  ge::LoadPlugin(VENDOR_SWISH_PLUGIN);  // a second load of one file is a no-op

  const std::vector<float> x = {-4.0f, -1.5f, -0.25f, 0.0f, 0.5f, 1.0f, 2.5f, 6.0f};
  const float beta = 1.75f;
  ge::GraphBuilder builder("swish");
  ge::Value* input = builder.Input("x", ge::DataType::kFloat, ge::Shape({2, 4}));
  builder.Output(builder.Op("VendorSwish", {input}, {{"beta", beta}})[0]);
  ge::Session session;
  session.AddGraph(1, builder.Build());
  std::vector<ge::Tensor> outputs =
      session.RunGraph(1, {ge::Tensor::FromVector(ge::DataType::kFloat, ge::Shape({2, 4}), x)});

  Check(outputs.size() == 1 && outputs[0].shape() == ge::Shape({2, 4}), "one [2,4] output");
  const float* y = static_cast<const float*>(outputs[0].data());
  for (size_t i = 0; i < x.size(); ++i) {
    const double expected = x[i] / (1.0 + std::exp(-static_cast<double>(beta) * x[i]));
    Check(std::fabs(y[i] - expected) <= 1e-6, "swish of " + std::to_string(x[i]) + ": got " + std::to_string(y[i]) +
                                                  ", expected " + std::to_string(expected));
  }
}

void TestErrors() {
  ExpectError([] { ge::LoadPlugin("/nonexistent/libmissing.so"); }, ge::ErrorCode::kNotFound,
              "plugin '/nonexistent/libmissing.so': no such file");
  ExpectError([] { ge::LoadPlugin(NOT_A_PLUGIN); }, ge::ErrorCode::kInvalidArgument, "not a ge plugin");
  // An op no plugin registered is refused by name when the graph is built.
  ExpectError(
      [] {
        ge::GraphBuilder builder("unknown");
        builder.Output(builder.Op("NoSuchVendorOp", {builder.Input("x", ge::DataType::kFloat, ge::Shape({1}))})[0]);
      },
      ge::ErrorCode::kUnsupported, "NoSuchVendorOp");
}

}  // namespace

int main() {
  try {
    TestVendorSwish();
    TestErrors();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAILED: unexpected exception: %s\n", e.what());
    return 1;
  }
  if (failures != 0) return 1;
  std::printf("public_api.plugin: ok\n");
  return 0;
}
