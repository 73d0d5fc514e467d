# Builds the examples the way a CANN user would: against an installed aclnn_upsample alone.
#
#   cmake -DBUILD_DIR=<project build> -DEXAMPLES_DIR=<examples/> -DWORK_DIR=<scratch>
#         [-DSANITIZE=<sanitizers of BUILD_DIR, e.g. address,undefined>] -P check_examples_install.cmake
#
# Installs BUILD_DIR into WORK_DIR/prefix, configures EXAMPLES_DIR as a project of its own with
# that prefix, builds it and runs its tests (each example's exit status and printed values). Any
# example or acl_example_support.h that needs more than the installed files fails to build here.

foreach(var BUILD_DIR EXAMPLES_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_examples_install.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
set(configure ${CMAKE_COMMAND} -S ${EXAMPLES_DIR} -B ${build} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release)
if(SANITIZE)
  list(APPEND configure -DCMAKE_CXX_FLAGS=-fsanitize=${SANITIZE}
       -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZE})
endif()
# Each step: its name, then its command line.
foreach(step
    "install;${CMAKE_COMMAND};--install;${BUILD_DIR};--prefix;${prefix}"
    "configure;${configure}"
    "build;${CMAKE_COMMAND};--build;${build};--parallel;2"
    "test;${CMAKE_CTEST_COMMAND};--test-dir;${build};--output-on-failure")
  list(POP_FRONT step name)
  execute_process(COMMAND ${step} RESULT_VARIABLE result OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "examples against the installed library: ${name} failed (${result}):\n"
                        "${output}")
  endif()
endforeach()
message(STATUS "the examples build and pass against the library installed in ${prefix}")
