#include "quant/proto_text.h"

#include <algorithm>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/proto_text.h"
#include "graph/regular_file.h"

namespace ge::quant {

std::string ReadTextFile(const std::string& path, std::string_view what) {
  return ReadRegularFile(path, fmt::format("{} file", what), kMaxConfigFileBytes);
}

void ParseProtoText(const std::string& text, const std::string& origin, google::protobuf::Message* message,
                    google::protobuf::TextFormat::ParseInfoTree* tree) {
  ge::ParseProtoText(text, origin, message, ErrorCode::kInvalidArgument, tree);
}

std::string LocateField(const std::string& origin, const google::protobuf::Message& root,
                        const google::protobuf::TextFormat::ParseInfoTree& tree, const std::vector<FieldStep>& path) {
  std::string location = origin;
  const google::protobuf::Message* message = &root;
  const google::protobuf::TextFormat::ParseInfoTree* level = &tree;
  for (const FieldStep& step : path) {
    const google::protobuf::FieldDescriptor* field = message->GetDescriptor()->FindFieldByName(step.name);
    if (!field) break;
    const google::protobuf::Reflection* reflection = message->GetReflection();
    int index = -1;
    if (field->is_repeated()) {
      index = std::max(step.index, 0);
      // The parse tree has no entry past the values the text wrote (and asking aborts).
      if (index >= reflection->FieldSize(*message, field)) break;
    }
    const auto where = level->GetLocation(field, index);
    if (where.line < 0) break;
    location = fmt::format("{}:{}:{}", origin, where.line + 1, where.column + 1);
    if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) break;
    level = level->GetTreeForNested(field, index);
    message = field->is_repeated() ? &reflection->GetRepeatedMessage(*message, field, index)
                                   : &reflection->GetMessage(*message, field);
    if (!level) break;
  }
  return location;
}

}  // namespace ge::quant
