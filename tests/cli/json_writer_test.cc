// The CLI's JSON writer against hand-written expected documents.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "json_writer.h"

namespace ge::cli {
namespace {

TEST_CASE("nested objects and arrays get commas only between siblings") {
  JsonWriter json;
  json.BeginObject();
  json.Key("a").Int(1);
  json.Key("b").BeginArray().Int(-2).Bool(true).Null().BeginObject().EndObject().BeginArray().EndArray().EndArray();
  json.Key("c").BeginObject().Key("d").String("e").EndObject();
  json.EndObject();
  CHECK(json.str() == R"({"a":1,"b":[-2,true,null,{},[]],"c":{"d":"e"}})");
}

TEST_CASE("strings are escaped") {
  JsonWriter json;
  json.String("q\"b\\n\nt\tc\x01");
  CHECK(json.str() == R"("q\"b\\n\nt\tc\u0001")");
}

TEST_CASE("numbers are written exactly and non-finite numbers become null") {
  JsonWriter json;
  json.BeginArray().Number(0.1).Number(2.0).Number(1e300).Number(std::nan("")).Number(
      std::numeric_limits<double>::infinity()).EndArray();
  CHECK(json.str() == "[0.1,2,1e+300,null,null]");
}

}  // namespace
}  // namespace ge::cli
