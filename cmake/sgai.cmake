# Helpers shared by every module of sgai.

# Compiler flags applied to every sgai target (not to third-party code).
add_library(sgai_flags INTERFACE)
target_compile_options(sgai_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                            -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wformat=2)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC 12 false positives in std::string concatenation
  target_compile_options(sgai_flags INTERFACE -Wno-restrict)
endif()
if(SGAI_WERROR)
  target_compile_options(sgai_flags INTERFACE -Werror)
endif()
if(SGAI_FUZZ)
  target_compile_options(sgai_flags INTERFACE -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  target_link_options(sgai_flags INTERFACE -fsanitize=address,undefined)
endif()
if(SGAI_SANITIZE)
  target_compile_options(sgai_flags INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                              -fno-sanitize-recover=undefined)
  target_link_options(sgai_flags INTERFACE -fsanitize=address,undefined)
endif()

# sgai_add_library(NAME <name> SOURCES ... [DEPS ...] [PRIVATE_DEPS ...])
# Creates the static library sgai_<name> with the alias sgai::<name>. Headers are included as
# "<module>/<header>.hpp" from the repository root.
function(sgai_add_library)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(sgai_${ARG_NAME} STATIC ${ARG_SOURCES})
  add_library(sgai::${ARG_NAME} ALIAS sgai_${ARG_NAME})
  target_include_directories(sgai_${ARG_NAME} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(sgai_${ARG_NAME} PUBLIC ${ARG_DEPS} PRIVATE sgai_flags ${ARG_PRIVATE_DEPS})
endfunction()

# sgai_add_gtest(NAME <name> SOURCES ... DEPS ... [LABELS ...] [SIMULATION])
# A GoogleTest executable registered with gtest_discover_tests, so that ctest runs every TEST in
# its own process (SimGrid allows one Engine per process). Tests run from the repository root
# so that fixture paths and ../shared/data resolve the same way everywhere.
function(sgai_add_gtest)
  cmake_parse_arguments(ARG "SIMULATION" "NAME" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main sgai_flags)
  set(labels ${ARG_LABELS})
  if(ARG_SIMULATION)
    list(APPEND labels simulation)
  else()
    list(APPEND labels unit)
  endif()
  gtest_discover_tests(${ARG_NAME} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                       PROPERTIES LABELS "${labels}" ENVIRONMENT "SGAI_BUILD_DIR=${PROJECT_BINARY_DIR}"
                       DISCOVERY_TIMEOUT 60)
endfunction()
