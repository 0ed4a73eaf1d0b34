# Install rules: the shared library, the public headers, the `ge` tool and a
# CMake package, so that consumers write
#   find_package(ge CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE ge::ge)     # C++ API
#   target_link_libraries(app PRIVATE ge::ge_c)   # C ABI (libge_c.so, include/ge_c)
# The static layer libraries are build-internal and not installed: libge.so
# carries all their objects. Its dependencies (fmt, ONNX, protobuf, oneDNN,
# OpenMP, FlatBuffers) are PRIVATE to a shared library, so they stay out of
# the exported link interface and the package needs no find_dependency().
include(CMakePackageConfigHelpers)

set(GE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/ge")

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
