# Helpers shared by every module of sgai.

# Compiler flags applied to every sgai target (not to third-party code).
add_library(sgai_flags INTERFACE)
target_compile_options(sgai_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                            -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wformat=2)
# __FILE__ (SimGrid's log macros keep it) relative to the source tree: nothing installed names it
target_compile_options(sgai_flags INTERFACE -fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC 12 false positives in std::string concatenation
  target_compile_options(sgai_flags INTERFACE -Wno-restrict)
endif()
if(SGAI_UNITY AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # a batch of files (cmake/unity.cmake) is compiled as a header each: GCC would warn of every class
  # that holds a type of a file-local namespace, which is no risk in a file of its own
  target_compile_options(sgai_flags INTERFACE -Wno-subobject-linkage)
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

# A header is included by its path in the repository ("plugins/batch/manager.hpp"): the source tree
# is on every module's include path, and the install copies the same tree under include/sgai
# (cmake/install.cmake). The one generated header, sgai/version.hpp, is in <build>/include.
set(SGAI_BUILD_INCLUDE ${PROJECT_BINARY_DIR}/include)

# sgai_add_library(NAME <name> SOURCES ... [DEPS ...] [PRIVATE_DEPS ...] [SEPARATE])
# A module of libsgai: its sources compile into the object library sgai_<name>_objects (position
# independent), which libsgai.so (target sgai_lib) gathers; sgai::<name> (alias of the interface
# library sgai_<name>) is what programs and tests link: libsgai.so and the module's public
# dependencies. SEPARATE: a static library of its own that links libsgai.so (the libtorch agents:
# libsgai.so never pulls libtorch).
function(sgai_add_library)
  cmake_parse_arguments(ARG "SEPARATE" "NAME" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  set(name sgai_${ARG_NAME})
  # name|folder|sgai modules it depends on: build/modules.txt, which tests/architecture_test.py
  # compares with docs/architecture.md's module table
  set(module_deps)
  foreach(dep IN LISTS ARG_DEPS)
    if(dep MATCHES "^sgai::(.*)$")
      list(APPEND module_deps ${CMAKE_MATCH_1})
    endif()
  endforeach()
  file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  string(REPLACE ";" "," module_deps "${module_deps}")
  set_property(GLOBAL APPEND PROPERTY SGAI_MODULE_TABLE "${ARG_NAME}|${folder}|${module_deps}")
  if(ARG_SEPARATE)
    add_library(${name} STATIC ${ARG_SOURCES})
    add_library(sgai::${ARG_NAME} ALIAS ${name})
    target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<BUILD_INTERFACE:${SGAI_BUILD_INCLUDE}>)
    target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE sgai_flags ${ARG_PRIVATE_DEPS})
    return()
  endif()
  # the objects see the other modules' objects (usage requirements only: object libraries
  # linked to object libraries add no objects)
  set(object_deps)
  foreach(dep IN LISTS ARG_DEPS)
    if(dep MATCHES "^sgai::(.*)$")
      list(APPEND object_deps sgai_${CMAKE_MATCH_1}_objects)
    else()
      list(APPEND object_deps ${dep})
    endif()
  endforeach()
  add_library(${name}_objects OBJECT ${ARG_SOURCES})
  set_target_properties(${name}_objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name}_objects PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<BUILD_INTERFACE:${SGAI_BUILD_INCLUDE}>)
  target_link_libraries(${name}_objects PUBLIC ${object_deps} PRIVATE sgai_flags ${ARG_PRIVATE_DEPS})
  add_library(${name} INTERFACE)
  add_library(sgai::${ARG_NAME} ALIAS ${name})
  target_include_directories(${name} INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<BUILD_INTERFACE:${SGAI_BUILD_INCLUDE}>)
  target_link_libraries(${name} INTERFACE sgai_lib ${ARG_DEPS})
  set_property(GLOBAL APPEND PROPERTY SGAI_OBJECT_LIBRARIES ${name}_objects)
  set_property(GLOBAL APPEND PROPERTY SGAI_MODULES ${ARG_NAME})
endfunction()

# sgai_add_shared_library(): libsgai.so from every module's objects, its SONAME carrying the ABI
# version (libsgai.so.0.1 while the version is 0.x, where each minor may break; libsgai.so.1 from
# 1.0), built into <build>/lib.
function(sgai_add_shared_library)
  get_property(objects GLOBAL PROPERTY SGAI_OBJECT_LIBRARIES)
  add_library(sgai_lib SHARED)
  target_link_libraries(sgai_lib PRIVATE ${objects} sgai_flags)
  if(PROJECT_VERSION_MAJOR EQUAL 0)
    set(soversion ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  else()
    set(soversion ${PROJECT_VERSION_MAJOR})
  endif()
  set_target_properties(sgai_lib PROPERTIES OUTPUT_NAME sgai VERSION ${PROJECT_VERSION} SOVERSION ${soversion}
                                            LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
  if(NOT SGAI_SANITIZE AND NOT SGAI_FUZZ)
    target_link_options(sgai_lib PRIVATE -Wl,--no-undefined)
  endif()
  # only sgai's own symbols are exported (cmake/libsgai.map says why)
  target_link_options(sgai_lib PRIVATE -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/libsgai.map)
  set_property(TARGET sgai_lib APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/libsgai.map)
endfunction()

# sgai_add_gtest(NAME <name> SOURCES ... DEPS ... [LABELS ...] [SIMULATION])
# A GoogleTest executable registered with gtest_discover_tests, so that ctest runs every TEST in
# its own process (SimGrid allows one Engine per process). Tests run from the repository root
# so that fixture paths and ../shared/data resolve the same way everywhere.
function(sgai_add_gtest)
  cmake_parse_arguments(ARG "SIMULATION" "NAME" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main sgai_flags)
  target_include_directories(${ARG_NAME} PRIVATE ${PROJECT_SOURCE_DIR})
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
