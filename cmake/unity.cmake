# SGAI_UNITY (tools/setup.sh turns it on): CMake's unity build, each target's sources compiled
# in batches of 8, so that the headers every file includes (SimGrid, the standard library, JSON,
# GoogleTest) are read and their templates compiled once a batch instead of once a file: a whole
# Release build took 35% less CPU (877 against 1,351 CPU s, docs/benchmarks.md). Incremental
# builds are better off without it (one edit recompiles its batch), hence OFF by default.
#
# A batch is one translation unit: the file-local names of its files share a scope. The files below
# are compiled alone, each for the reason given; a new clash shows as a "redefinition" error in the
# unity build only, and is fixed by a distinct name or a line here.
if(NOT SGAI_UNITY)
  return()
endif()

# sgai_compile_apart(DIR FILE...): FILEs (paths from the source root) of the targets defined in DIR
function(sgai_compile_apart dir)
  list(TRANSFORM ARGN PREPEND ${PROJECT_SOURCE_DIR}/)
  set_source_files_properties(${ARGN} DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()

# SimGrid's XBT_LOG_NEW_DEFAULT_SUBCATEGORY: one default log category a translation unit
sgai_compile_apart(plugins/sim plugins/sim/deployment.cpp)
sgai_compile_apart(plugins/experiment plugins/experiment/jobs_component.cpp plugins/experiment/batch_component.cpp)
# test files whose helpers share a neighbour's name and signature (job, Transfer, Case, settings,
# write) or whose using-directives make a neighbour's names ambiguous
if(SGAI_BUILD_TESTS)
  sgai_compile_apart(tests/unit tests/unit/chakra_test.cpp tests/unit/easy_model_test.cpp
                     tests/unit/training_predict_test.cpp tests/unit/conservative_test.cpp tests/unit/gpu_traces_test.cpp
                     tests/unit/training_test.cpp tests/unit/training_model_test.cpp)
  sgai_compile_apart(tests/sim tests/sim/route_test.cpp)
endif()
