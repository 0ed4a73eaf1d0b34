// Protobuf text-format files (the quant config and record): reading them with
// errors that name the file, line and column, and finding where a field was
// written so that semantic errors can point at it too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>

namespace ge::quant {

// The whole file, at most kMaxConfigFileBytes: throws as ReadRegularFile does,
// "PATH: cannot read WHAT file: REASON" (kNotFound when it does not exist,
// kIoError when it cannot be read, is not a regular file or is too large).
// `what` names the file's role in the message ("quant config").
std::string ReadTextFile(const std::string& path, std::string_view what);

// Parses `text` into `message`, recording field locations in `tree`. Fails with
// kInvalidArgument "<origin>:<line>:<column>: <protobuf's message>" (1-based),
// control bytes escaped (EscapeForMessage).
void ParseProtoText(const std::string& text, const std::string& origin, google::protobuf::Message* message,
                    google::protobuf::TextFormat::ParseInfoTree* tree);

// One step of a field path: a field name and, for repeated fields, the index.
struct FieldStep {
  std::string name;
  int index = -1;
};

// "<origin>:<line>:<column>" of the deepest step of `path` (from `root`, the
// message parsed into `tree`) that the text wrote, or just "<origin>" when
// none. A repeated field without an index points at its first value.
std::string LocateField(const std::string& origin, const google::protobuf::Message& root,
                        const google::protobuf::TextFormat::ParseInfoTree& tree, const std::vector<FieldStep>& path);

}  // namespace ge::quant
