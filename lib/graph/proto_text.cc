#include "graph/proto_text.h"

#include <fmt/core.h>
#include <google/protobuf/io/tokenizer.h>

#include "graph/escape_for_message.h"

namespace ge {
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

void ParseProtoText(const std::string& text, const std::string& origin, google::protobuf::Message* message,
                    ErrorCode code, google::protobuf::TextFormat::ParseInfoTree* tree) {
  FirstErrorCollector errors(origin);
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (tree != nullptr) parser.WriteLocationsTo(tree);
  if (!parser.ParseFromString(text, message)) {
    const std::string& message_text = errors.message();
    throw Error(code, message_text.empty() ? fmt::format("{}: not valid protobuf text format", origin) : message_text);
  }
}

}  // namespace ge
