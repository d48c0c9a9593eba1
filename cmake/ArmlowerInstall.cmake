# Install rules: headers, exported targets, package config and version files.
include(CMakePackageConfigHelpers)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/armlower DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ${armlower_targets} EXPORT armlowerTargets)
install(EXPORT armlowerTargets NAMESPACE armlower:: DESTINATION ${CMAKE_INSTALL_DATADIR}/armlower/cmake)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/armlowerConfig.cmake.in
  ${PROJECT_BINARY_DIR}/armlowerConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_DATADIR}/armlower/cmake)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/armlowerConfigVersion.cmake
  COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/armlowerConfig.cmake ${PROJECT_BINARY_DIR}/armlowerConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_DATADIR}/armlower/cmake)

# `cmake --build` followed by `cmake --install` must work for plain CMake users: files that are
# generated at build time and installed (armlower::serialize's flatc headers) are made part of
# the default build when install rules are on.
if(TARGET armlower_serialize_schema)
  add_custom_target(armlower_install_prerequisites ALL DEPENDS armlower_serialize_schema)
endif()
