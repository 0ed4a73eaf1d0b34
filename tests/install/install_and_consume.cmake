# Script for the install.consumer test (cmake -P). Inputs: GE_BUILD_DIR,
# WORK_DIR, CONSUMER_SOURCE_DIR, C_CONSUMER_SOURCE, DEMO_MODEL (with its
# .input.npy and .expected.npy beside it), CXX_COMPILER, C_COMPILER, CXX_FLAGS
# (extra compile and link flags of the consumers; may be empty), PYTHON (an
# interpreter with numpy, or empty to skip the Python step).

function(run_step description)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${description} failed (${result}):\n${output}")
  endif()
  message(STATUS "${description}: ok")
  set(step_output "${output}" PARENT_SCOPE)
endfunction()

set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/consumer-build")
file(REMOVE_RECURSE "${WORK_DIR}")

run_step("install into ${prefix}" "${CMAKE_COMMAND}" --install "${GE_BUILD_DIR}" --prefix "${prefix}")

# Nothing of the build tree may leak into the package: the exported target
# must point into the prefix only.
file(GLOB_RECURSE target_files "${prefix}/*/cmake/ge/geTargets*.cmake")
foreach(target_file IN LISTS target_files)
  file(READ "${target_file}" content)
  string(FIND "${content}" "${GE_BUILD_DIR}" leak)
  if(NOT leak EQUAL -1)
    message(FATAL_ERROR "${target_file} refers to the build tree ${GE_BUILD_DIR}")
  endif()
endforeach()

# The implementation-mode lists ship for users to copy (docs/precision.md).
foreach(name all_ops_impl_mode high_precision high_performance high_precision_for_all high_performance_for_all)
  if(NOT EXISTS "${prefix}/share/ge/impl_mode/${name}.ini")
    message(FATAL_ERROR "share/ge/impl_mode/${name}.ini is not installed")
  endif()
endforeach()

# The install is stripped: no debug sections in what users get.
foreach(library libge.so libge_c.so)
  run_step("readelf ${library}" readelf -S --wide "${prefix}/lib/${library}")
  if(step_output MATCHES "\\.debug_info")
    message(FATAL_ERROR "${prefix}/lib/${library} is installed with its debug info")
  endif()
endforeach()

# The CMake consumer sets no C++ standard: ge::ge must bring C++20 itself.
run_step("configure the consumer" "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${consumer_build}"
  "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CXX_FLAGS}")
run_step("build the consumer" "${CMAKE_COMMAND}" --build "${consumer_build}")
run_step("run the consumer" "${consumer_build}/app")
message(STATUS "${step_output}")

# The installed tool must run from the prefix (RUNPATH $ORIGIN/../lib).
run_step("installed ge run" "${prefix}/bin/ge" run "${DEMO_MODEL}" --loop 1 --json)

# pkg-config alone: a C11 program against ge_c, and the C++ consumer against ge
# (whose Cflags carry -std=c++20), with no CMake involved.
string(REGEX REPLACE "\\.onnx$" "" demo_stem "${DEMO_MODEL}")
set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
run_step("pkg-config ge_c" pkg-config --cflags --libs ge_c)
separate_arguments(ge_c_flags UNIX_COMMAND "${step_output}")
separate_arguments(extra_flags UNIX_COMMAND "${CXX_FLAGS}")
run_step("build the C11 consumer" "${C_COMPILER}" -std=c11 -Wall -Wextra -pedantic -Werror ${extra_flags}
  "${C_CONSUMER_SOURCE}" ${ge_c_flags} -lm -o "${WORK_DIR}/c_consumer")
set(ENV{LD_LIBRARY_PATH} "${prefix}/lib")
run_step("run the C11 consumer" "${WORK_DIR}/c_consumer" "${DEMO_MODEL}" "${demo_stem}.input.npy"
  "${demo_stem}.expected.npy")
message(STATUS "${step_output}")
run_step("pkg-config ge" pkg-config --cflags --libs ge)
separate_arguments(ge_flags UNIX_COMMAND "${step_output}")
run_step("build the C++ consumer with pkg-config" "${CXX_COMPILER}" ${extra_flags}
  "${CONSUMER_SOURCE_DIR}/main.cc" ${ge_flags} -o "${WORK_DIR}/pkg_config_consumer")
run_step("run the C++ consumer built with pkg-config" "${WORK_DIR}/pkg_config_consumer")
unset(ENV{LD_LIBRARY_PATH})

# Python from the prefix: no GE_C_LIBRARY, the package finds PREFIX/lib itself.
if(PYTHON)
  file(GLOB python_dirs LIST_DIRECTORIES true "${prefix}/lib/python*/dist-packages")
  if(NOT python_dirs)
    message(FATAL_ERROR "the ge Python package is not installed under ${prefix}/lib/python*/dist-packages")
  endif()
  unset(ENV{GE_C_LIBRARY})
  set(ENV{PYTHONPATH} "${python_dirs}")
  run_step("run Python from the prefix" "${PYTHON}" -c "
import numpy as np, ge
session = ge.InferenceSession('${DEMO_MODEL}')
name = session.get_inputs()[0].name
(probabilities,) = session.run(None, {name: np.load('${demo_stem}.input.npy')})
np.testing.assert_allclose(probabilities, np.load('${demo_stem}.expected.npy'), atol=1e-5)
assert ge.__file__.startswith('${prefix}'), ge.__file__
print('python: ge', ge.version(), 'from', ge.__file__)")
  message(STATUS "${step_output}")
endif()
