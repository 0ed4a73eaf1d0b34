// The products quantization may target (ATC's --soc_version, CANN's
// spellings) and the rules the seed gives per product: IPV350 has a layer
// table of its own, weight-only quantization exists on Atlas inference and
// A2 products only (FFN's on A2 only), two-tensor BatchMatMulV2 quantization
// pays off only on A3, A2 and 200I/500 A2, and Caffe is no longer maintained
// on A3, A2 and IPV350. The default target is this CPU, which has none of
// these restrictions.
#pragma once

#include <string>

namespace ge::quant {

enum class ProductFamily {
  kCpu,             // ge's CPU runtime: no product restrictions
  kAtlas200_300_500,  // Ascend310: Atlas 200/300/500 inference products
  kAtlasInference,  // Ascend310P*: Atlas inference series
  kAtlasTraining,   // Ascend910, Ascend910A, ...: Atlas training series
  kAtlasA2,         // Ascend910B*: Atlas A2 training/inference series
  kAtlasA3,         // Ascend910_93*: Atlas A3 training/inference series
  kAtlas200I500A2,  // Ascend310B*: Atlas 200I/500 A2 inference products
  kIpv350,          // IPV350
};

struct Product {
  std::string soc_version;  // as given ("" for the CPU)
  ProductFamily family = ProductFamily::kCpu;
  std::string name;  // "Atlas A2 training/inference series", ...

  // IPV350's own table replaces the TensorFlow and ONNX tables.
  bool UsesIpv350Table() const { return family == ProductFamily::kIpv350; }
  bool HasWeightOnly() const;
  bool HasFfnWeightOnly() const;
  // Two variable inputs of a BatchMatMulV2 quantized: faster only here, less accurate elsewhere.
  bool TwoTensorMatMulPays() const;
  bool MaintainsCaffe() const;
};

// The product --soc_version names; empty: the CPU. Throws kInvalidArgument
// naming the value and the valid spellings.
Product ProductFromSocVersion(const std::string& soc_version);

}  // namespace ge::quant
