# Writes a C++ source defining ge::passes::EmbeddedImplModeFiles(): every
# DIR/*.ini as file name -> content, so that the library carries its built-in
# implementation-mode lists and needs no data path at run time.
# usage: cmake -D DIR=<folder> -D OUTPUT=<file.cc> -P embed_text_files.cmake
file(GLOB files "${DIR}/*.ini")
list(SORT files)
set(entries "")
foreach(path IN LISTS files)
  get_filename_component(name "${path}" NAME)
  file(READ "${path}" text)
  string(FIND "${text}" ")ge_embed\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${path} contains the raw-string delimiter )ge_embed\"")
  endif()
  string(APPEND entries "      {\"${name}\", R\"ge_embed(${text})ge_embed\"},\n")
endforeach()
set(source "// Generated from ${DIR} by cmake/embed_text_files.cmake; do not edit.
#include <map>
#include <string_view>

namespace ge::passes {

const std::map<std::string_view, std::string_view>& EmbeddedImplModeFiles() {
  static const std::map<std::string_view, std::string_view> files = {
${entries}  };
  return files;
}

}  // namespace ge::passes
")
# Rewritten only when it changes, so that an unchanged list rebuilds nothing.
file(WRITE "${OUTPUT}.tmp" "${source}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
