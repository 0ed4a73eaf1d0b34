// Umbrella header of the ge C++ API.
#pragma once

#include "ge/attr.h"
#include "ge/builder.h"
#include "ge/compare.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/graph.h"
#include "ge/impl_mode_report.h"
#include "ge/onnx_importer.h"
#include "ge/options.h"
#include "ge/quantize.h"
#include "ge/session.h"
#include "ge/shape.h"
#include "ge/tensor.h"
#include "ge/types.h"
