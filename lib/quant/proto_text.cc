#include "quant/proto_text.h"

#include <algorithm>

#include <fmt/core.h>
#include <google/protobuf/io/tokenizer.h>

#include "ge/error.h"
#include "graph/escape_for_message.h"
#include "graph/regular_file.h"

namespace ge::quant {
namespace {

// Keeps the first error protobuf reports (later ones usually follow from it).
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  explicit FirstErrorCollector(const std::string& origin) : origin_(origin) {}

  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    // protobuf quotes the text it could not parse, which may hold CR or binary bytes.
    if (message_.empty()) {
      message_ = EscapeForMessage(fmt::format("{}:{}:{}: {}", origin_, line + 1, column + 1, message));
    }
  }

  const std::string& message() const { return message_; }

 private:
  const std::string& origin_;
  std::string message_;
};

}  // namespace

std::string ReadTextFile(const std::string& path, std::string_view what) {
  return ReadRegularFile(path, fmt::format("{} file", what), kMaxConfigFileBytes);
}

void ParseProtoText(const std::string& text, const std::string& origin, google::protobuf::Message* message,
                    google::protobuf::TextFormat::ParseInfoTree* tree) {
  FirstErrorCollector errors(origin);
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(tree);
  if (!parser.ParseFromString(text, message)) {
    const std::string& message_text = errors.message();
    throw Error(ErrorCode::kInvalidArgument,
                message_text.empty() ? fmt::format("{}: not valid protobuf text format", origin) : message_text);
  }
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
