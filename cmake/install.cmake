# Install rules: the shared library, the public headers, the `ge` tool and a
# CMake package, so that consumers write
#   find_package(ge CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE ge::ge)     # C++ API
#   target_link_libraries(app PRIVATE ge::ge_c)   # C ABI (libge_c.so, include/ge_c)
# The static layer libraries are build-internal and not installed: libge.so
# carries all their objects. Its dependencies (fmt, ONNX, protobuf, oneDNN,
# OpenMP, FlatBuffers) are PRIVATE to a shared library, so they stay out of
# the exported link interface and the package needs no find_dependency().
# pkg-config users write `pkg-config --cflags --libs ge_c` (or ge). Installed
# binaries are stripped: libge.so is about 20x smaller without its debug info,
# and users debugging ge build it themselves. `cmake --install` strips unless
# the caller sets CMAKE_INSTALL_DO_STRIP itself (-DCMAKE_INSTALL_DO_STRIP=0 keeps it).
include(CMakePackageConfigHelpers)

set(GE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/ge")
set(GE_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

install(CODE "if(NOT DEFINED CMAKE_INSTALL_DO_STRIP)\n  set(CMAKE_INSTALL_DO_STRIP 1)\nendif()")

install(TARGETS ge ge_c EXPORT geTargets
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(TARGETS ge_cli RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/ge" "${PROJECT_SOURCE_DIR}/include/ge_c"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  FILES_MATCHING PATTERN "*.h")

# The built-in implementation-mode lists (compiled into libge too), for users
# to copy as the start of an op_precision_mode file (docs/precision.md).
install(DIRECTORY "${PROJECT_SOURCE_DIR}/data/impl_mode" DESTINATION "${CMAKE_INSTALL_DATADIR}/ge"
  FILES_MATCHING PATTERN "*.ini")

install(EXPORT geTargets NAMESPACE ge:: DESTINATION "${GE_INSTALL_CMAKEDIR}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/geConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/geConfig.cmake"
  INSTALL_DESTINATION "${GE_INSTALL_CMAKEDIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/geConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/geConfig.cmake" "${PROJECT_BINARY_DIR}/geConfigVersion.cmake"
  DESTINATION "${GE_INSTALL_CMAKEDIR}")

# The .pc files find the prefix relative to their own folder (${pcfiledir}).
file(RELATIVE_PATH GE_PC_PREFIX_FROM_PCDIR "/prefix/${GE_INSTALL_PKGCONFIGDIR}" "/prefix")
get_target_property(GE_C_VERSION ge_c VERSION)
foreach(pc ge ge_c)
  configure_file("${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in" "${PROJECT_BINARY_DIR}/${pc}.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/${pc}.pc" DESTINATION "${GE_INSTALL_PKGCONFIGDIR}")
endforeach()

# The Python package, where the interpreter looks for it under this prefix
# (Debian's python3 searches PREFIX/lib/python3.X/dist-packages for /usr/local);
# it finds libge_c.so.0 in PREFIX/lib by walking up from its own folder.
find_program(GE_INSTALL_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(GE_INSTALL_PYTHON python3)
set(ge_python_version "3")
if(GE_INSTALL_PYTHON)
  execute_process(COMMAND "${GE_INSTALL_PYTHON}" -c "import sys; print('%d.%d' % sys.version_info[:2])"
    OUTPUT_VARIABLE ge_python_version OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
set(GE_PYTHON_INSTALL_DIR "lib/python${ge_python_version}/dist-packages" CACHE STRING
  "Where `cmake --install` puts the ge Python package, relative to the prefix")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/bindings/python/ge" DESTINATION "${GE_PYTHON_INSTALL_DIR}"
  FILES_MATCHING PATTERN "*.py")
