// Text from files (ini lines, layer names, .npy headers, paths) echoed in an
// error message: escaped so that the message stays one printable line and a
// file cannot move the cursor, clear the screen or split the line it is on.
#pragma once

#include <string>
#include <string_view>

namespace ge {

// `text` with control bytes written as \r, \n, \t or \xNN, C1 controls
// (U+0080..U+009F) and bytes that are not valid UTF-8 as \xNN; printable
// ASCII and valid UTF-8 are kept. A backslash is kept as is, so escaping
// escaped text changes nothing and a message may be escaped where it is built
// and again where it is shown.
std::string EscapeForMessage(std::string_view text);

}  // namespace ge
