// Recurrent layers with ONNX semantics: CommonRNN, CommonGRU, CommonLSTM.
//
// CANN's CommonLSTM and CommonGRU are its ONNX-shaped recurrent ops (inputs
// x, w, r, b, sequence_lens, initial_h[, initial_c, p]; ONNX gate orders and
// attributes); CommonRNN is the same form for ONNX's plain RNN. The
// DynamicRNN/DynamicGRUV2 family packs weights in another layout and supports
// only fixed activations, so it cannot hold ONNX's semantics.
#include <fmt/core.h>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"

namespace ge {
namespace {

// What differs between the three ops.
struct RecurrentSpec {
  int64_t gates;  // 1 (RNN), 3 (GRU: z, r, h), 4 (LSTM: i, o, f, c)
  bool cell_state;
};

int64_t Directions(InferContext& ctx) {
  const std::string& direction = infer::Attr<std::string>(ctx, "direction");
  if (direction == "forward" || direction == "reverse") return 1;
  if (direction == "bidirectional") return 2;
  ctx.Fail(fmt::format("attribute 'direction' is '{}'; valid: forward, reverse, bidirectional", direction));
}

// x [seq, batch, input] (layout 0) or [batch, seq, input] (layout 1);
// w [dirs, gates*hidden, input], r [dirs, gates*hidden, hidden].
// y [seq, dirs, batch, hidden] or [batch, seq, dirs, hidden];
// y_h, y_c [dirs, batch, hidden] or [batch, dirs, hidden].
void InferRecurrent(InferContext& ctx, const RecurrentSpec& spec) {
  const int64_t dirs = Directions(ctx);
  const int64_t hidden = infer::Attr<int64_t>(ctx, "hidden_size");
  if (hidden < 1) ctx.Fail(fmt::format("attribute 'hidden_size' must be >= 1, got {}", hidden));
  const int64_t layout = infer::Attr<int64_t>(ctx, "layout");
  if (layout != 0 && layout != 1) ctx.Fail(fmt::format("attribute 'layout' must be 0 or 1, got {}", layout));
  const Shape x = infer::WithRank(ctx.input_shape(0), 3);
  const Shape w = infer::WithRank(ctx.input_shape(1), 3);
  const Shape r = infer::WithRank(ctx.input_shape(2), 3);
  infer::RequireRank(ctx, x, 3, "x");
  infer::RequireRank(ctx, w, 3, "w");
  infer::RequireRank(ctx, r, 3, "r");
  infer::MergeDim(ctx, w.dim(0), dirs, "w's first dim and the number of directions");
  infer::MergeDim(ctx, r.dim(0), dirs, "r's first dim and the number of directions");
  const int64_t gate_rows =
      infer::CheckedDimMul(ctx, spec.gates, hidden, fmt::format("{} gates x hidden_size", spec.gates));
  infer::MergeDim(ctx, w.dim(1), gate_rows, "w's second dim and gates x hidden_size");
  infer::MergeDim(ctx, r.dim(1), gate_rows, "r's second dim and gates x hidden_size");
  infer::MergeDim(ctx, r.dim(2), hidden, "r's last dim and hidden_size");
  infer::MergeDim(ctx, w.dim(2), x.dim(2), "w's last dim and the input size");
  if (ctx.has_input(3)) {
    const Shape b = infer::WithRank(ctx.input_shape(3), 2);
    infer::RequireRank(ctx, b, 2, "b");
    infer::MergeDim(ctx, b.dim(1), infer::CheckedDimMul(ctx, 2, gate_rows, "2 x gates x hidden_size"),
                    "b's second dim and 2 x gates x hidden_size");
  }
  const int64_t seq = x.dim(layout == 0 ? 0 : 1);
  const int64_t batch = x.dim(layout == 0 ? 1 : 0);
  const Shape y = layout == 0 ? Shape({seq, dirs, batch, hidden}) : Shape({batch, seq, dirs, hidden});
  const Shape state = layout == 0 ? Shape({dirs, batch, hidden}) : Shape({batch, dirs, hidden});
  const DataType dtype = ctx.input_dtype(0);
  ctx.set_output(0, dtype, y);
  ctx.set_output(1, dtype, state);
  if (spec.cell_state) ctx.set_output(2, dtype, state);
}

OpSchema RecurrentSchema(const std::string& op_type, bool cell_state) {
  OpSchema schema(op_type);
  schema.Input("x")
      .Input("w")
      .Input("r")
      .OptionalInput("b")
      .OptionalInput("sequence_lens", "TSeq")
      .OptionalInput("initial_h");
  if (cell_state) schema.OptionalInput("initial_c").OptionalInput("p");
  schema.OptionalOutput("y").OptionalOutput("y_h");
  if (cell_state) schema.OptionalOutput("y_c");
  schema.RequiredAttr("hidden_size", AttrType::kInt)
      .Attr("direction", std::string("forward"))
      .Attr("activations", std::vector<std::string>{})
      .Attr("activation_alpha", std::vector<float>{})
      .Attr("activation_beta", std::vector<float>{})
      .Attr("clip", 0.0f)
      .Attr("layout", int64_t{0})
      .TypeConstraint("T", types::Float())
      .TypeConstraint("TSeq", {DataType::kInt32});
  return schema;
}

}  // namespace

void RegisterRecurrentOps(OpRegistry& registry) {
  registry.Register(RecurrentSchema("CommonRNN", false)
                        .Infer([](InferContext& ctx) { InferRecurrent(ctx, {1, false}); })
                        .Doc("ONNX RNN: H = f(X W^T + H R^T + Wb + Rb); clip > 0 clips pre-activations."));
  registry.Register(RecurrentSchema("CommonGRU", false)
                        .Attr("linear_before_reset", int64_t{0})
                        .Infer([](InferContext& ctx) { InferRecurrent(ctx, {3, false}); })
                        .Doc("ONNX GRU (gates z, r, h); clip > 0 clips pre-activations."));
  registry.Register(RecurrentSchema("CommonLSTM", true)
                        .Attr("input_forget", int64_t{0})
                        .Infer([](InferContext& ctx) { InferRecurrent(ctx, {4, true}); })
                        .Doc("ONNX LSTM (gates i, o, f, c; peepholes p = [Pi, Po, Pf]); clip > 0 clips pre-activations."));
}

}  // namespace ge
