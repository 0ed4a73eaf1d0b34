# Script for the install.consumer test (cmake -P). Inputs: GE_BUILD_DIR,
# WORK_DIR, CONSUMER_SOURCE_DIR, DEMO_MODEL, CXX_COMPILER, CXX_FLAGS
# (extra compile and link flags of the consumer; may be empty).

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

run_step("configure the consumer" "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${consumer_build}"
  "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CXX_FLAGS}")
run_step("build the consumer" "${CMAKE_COMMAND}" --build "${consumer_build}")
run_step("run the consumer" "${consumer_build}/app")
message(STATUS "${step_output}")

# The installed tool must run from the prefix (RUNPATH $ORIGIN/../lib).
run_step("installed ge run" "${prefix}/bin/ge" run "${DEMO_MODEL}" --loop 1 --json)
