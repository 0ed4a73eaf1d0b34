#include "quant/product_rules.h"

#include <array>
#include <string_view>

#include <fmt/format.h>

#include "ge/error.h"

namespace ge::quant {
namespace {

// How a family's soc_version values are spelled.
enum class Match {
  kExact,       // the name itself (Ascend310, IPV350, CPU)
  kSuffixed,    // the prefix and a grade (Ascend910B1, Ascend310P3, Ascend910_9391)
  kPrefixOrSelf,  // the prefix alone or with a grade (Ascend910, Ascend910A, Ascend910ProB)
};

struct Spelling {
  std::string_view prefix;
  Match match;
  ProductFamily family;
  const char* name;
};

// Longest prefixes first: Ascend910B1 is A2, Ascend910_9391 A3, Ascend910A the training series.
constexpr std::array<Spelling, 8> kSpellings = {{
    {"Ascend910_93", Match::kSuffixed, ProductFamily::kAtlasA3, "Atlas A3 training/inference series"},
    {"Ascend910B", Match::kSuffixed, ProductFamily::kAtlasA2, "Atlas A2 training/inference series"},
    {"Ascend910", Match::kPrefixOrSelf, ProductFamily::kAtlasTraining, "Atlas training series"},
    {"Ascend310P", Match::kSuffixed, ProductFamily::kAtlasInference, "Atlas inference series"},
    {"Ascend310B", Match::kSuffixed, ProductFamily::kAtlas200I500A2, "Atlas 200I/500 A2 inference products"},
    {"Ascend310", Match::kExact, ProductFamily::kAtlas200_300_500, "Atlas 200/300/500 inference products"},
    {"IPV350", Match::kExact, ProductFamily::kIpv350, "IPV350"},
    {"CPU", Match::kExact, ProductFamily::kCpu, "ge's CPU runtime"},
}};

bool Matches(const Spelling& spelling, std::string_view value) {
  switch (spelling.match) {
    case Match::kExact: return value == spelling.prefix;
    case Match::kSuffixed: return value.size() > spelling.prefix.size() && value.substr(0, spelling.prefix.size()) == spelling.prefix;
    default: return value.substr(0, spelling.prefix.size()) == spelling.prefix;
  }
}

}  // namespace

bool Product::HasWeightOnly() const {
  return family == ProductFamily::kCpu || family == ProductFamily::kAtlasInference ||
         family == ProductFamily::kAtlasA2;
}

bool Product::HasFfnWeightOnly() const { return family == ProductFamily::kCpu || family == ProductFamily::kAtlasA2; }

bool Product::TwoTensorMatMulPays() const {
  return family == ProductFamily::kCpu || family == ProductFamily::kAtlasA3 || family == ProductFamily::kAtlasA2 ||
         family == ProductFamily::kAtlas200I500A2;
}

bool Product::MaintainsCaffe() const {
  return family != ProductFamily::kAtlasA3 && family != ProductFamily::kAtlasA2 && family != ProductFamily::kIpv350;
}

Product ProductFromSocVersion(const std::string& soc_version) {
  if (soc_version.empty()) return Product{"", ProductFamily::kCpu, "ge's CPU runtime"};
  for (const Spelling& spelling : kSpellings) {
    if (Matches(spelling, soc_version)) return Product{soc_version, spelling.family, spelling.name};
  }
  throw Error(ErrorCode::kInvalidArgument,
              fmt::format("--soc_version '{}' is not a product ge knows (valid: CPU; Ascend310; Ascend310P1, "
                          "Ascend310P3, ... (Atlas inference series); Ascend910, Ascend910A, ... (Atlas training "
                          "series); Ascend910B1 ... Ascend910B4 (Atlas A2); Ascend910_9391, ... (Atlas A3); "
                          "Ascend310B1 ... Ascend310B4 (Atlas 200I/500 A2); IPV350)",
                          soc_version));
}

}  // namespace ge::quant
