// Protobuf text format with errors that name the file, line and column: the
// quant config and record, a TensorFlow .pbtxt, a Caffe .prototxt.
#pragma once

#include <string>

#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>

#include "ge/error.h"

namespace ge {

// Parses `text` into `message`, recording field locations in `tree` when it is
// given. Fails with `code` "<origin>:<line>:<column>: <protobuf's message>"
// (1-based), control bytes escaped (EscapeForMessage).
void ParseProtoText(const std::string& text, const std::string& origin, google::protobuf::Message* message,
                    ErrorCode code, google::protobuf::TextFormat::ParseInfoTree* tree = nullptr);

}  // namespace ge
