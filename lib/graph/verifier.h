// Structural and schema checks of a graph. Errors name the node and op type.
#pragma once

#include "ge/graph.h"

namespace ge {

struct VerifyOptions {
  // Unknown op types are an error unless allowed (the importer reports them itself).
  bool allow_unknown_ops = false;
  // Check dtypes against schema constraints (needs inferred dtypes).
  bool check_dtypes = true;
};

// Throws ge::Error (kInvalidModel) on: inputs from values of another graph or
// removed nodes, use lists out of sync, cycles, graph outputs not produced in
// the graph, input/output counts or attributes that contradict the schema,
// dtypes outside the schema's constraints.
void VerifyGraph(const Graph& graph, const VerifyOptions& options = {});

}  // namespace ge
