# cmake --install: libsgai and its public headers (include/sgai/<repository path>), the CMake package
# (find_package(sgai) -> sgai::sgai), sgai.pc, the commands and sgai's data (share/sgai). Nothing
# installed names the source or build tree: the programs find the library through an RPATH
# relative to themselves and their data as ../share/sgai.
include(CMakePackageConfigHelpers)

# Headers kept inside: json_raw.hpp includes nlohmann_json (the strict reader's document),
# yaml_document.hpp yaml-cpp (the YAML readers' loading step).
set(SGAI_INTERNAL_HEADERS core/foundation/json_raw.hpp core/foundation/yaml_document.hpp)

# every module's headers, at their repository paths under include/sgai (the modules' folders are in
# SGAI_MODULE_TABLE: name|folder|dependencies)
get_property(module_table GLOBAL PROPERTY SGAI_MODULE_TABLE)
foreach(row IN LISTS module_table)
  string(REPLACE "|" ";" row "${row}")
  list(GET row 1 folder)
  file(GLOB_RECURSE headers RELATIVE ${PROJECT_SOURCE_DIR} CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${folder}/*.hpp)
  foreach(header IN LISTS headers)
    if(header IN_LIST SGAI_INTERNAL_HEADERS)
      continue()
    endif()
    get_filename_component(dir ${header} DIRECTORY)
    install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sgai/${dir})
    set_property(GLOBAL APPEND PROPERTY SGAI_PUBLIC_HEADERS sgai/${header})
  endforeach()
endforeach()
install(FILES ${SGAI_BUILD_INCLUDE}/sgai/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sgai)
set_property(GLOBAL APPEND PROPERTY SGAI_PUBLIC_HEADERS sgai/version.hpp)

# the library: sgai::sgai once found
set_target_properties(sgai_lib PROPERTIES EXPORT_NAME sgai)
# <sgai/plugins/batch/manager.hpp> for users, "core/foundation/error.hpp" inside the headers
target_include_directories(sgai_lib INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
                                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/sgai>)
target_link_libraries(sgai_lib INTERFACE PkgConfig::SimGrid)
target_compile_features(sgai_lib INTERFACE cxx_std_20)
install(TARGETS sgai_lib EXPORT sgaiTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT sgaiTargets NAMESPACE sgai:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sgai)
configure_package_config_file(cmake/sgaiConfig.cmake.in ${PROJECT_BINARY_DIR}/sgaiConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sgai)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/sgaiConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/sgaiConfig.cmake ${PROJECT_BINARY_DIR}/sgaiConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sgai)
file(RELATIVE_PATH SGAI_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(cmake/sgai.pc.in ${PROJECT_BINARY_DIR}/sgai.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/sgai.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# sgai_install_rpath(<target> <its install folder>): the library found from where it is installed.
function(sgai_install_rpath target dir)
  file(RELATIVE_PATH to_lib /prefix/${dir} /prefix/${CMAKE_INSTALL_LIBDIR})
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${to_lib}")
endfunction()

# the commands and the learning environment's server
install(TARGETS sgai RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
sgai_install_rpath(sgai ${CMAKE_INSTALL_BINDIR})
if(TARGET sgai-rl)
  install(TARGETS sgai-rl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  sgai_install_rpath(sgai-rl ${CMAKE_INSTALL_BINDIR})
endif()
install(TARGETS sgai-rl-env RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/sgai)
sgai_install_rpath(sgai-rl-env ${CMAKE_INSTALL_LIBEXECDIR}/sgai)
if(TARGET sgai_python_rl)
  sgai_install_rpath(sgai_python_rl lib/python3/dist-packages/sgai)
endif()

# the data: shipped experiments, platforms, workloads, plotting scripts
install(DIRECTORY deploy platforms workloads DESTINATION ${CMAKE_INSTALL_DATADIR}/sgai)
install(DIRECTORY tools/plot DESTINATION ${CMAKE_INSTALL_DATADIR}/sgai/tools FILES_MATCHING PATTERN "*.py"
        PATTERN __pycache__ EXCLUDE)
