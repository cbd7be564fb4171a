# Installs the core for find_package(CertSteward 0.1 CONFIG): the model, the ports, the services,
# the memory store and the test doubles, as certsteward::domain, ::ports, ::services,
# ::store_memory and ::testing. Headers go under <prefix>/include/certsteward, so consumers
# write #include <certsteward/domain/result.hpp> and nothing collides in <prefix>/include.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CERTSTEWARD_CORE_TARGETS certsteward_domain certsteward_ports certsteward_services
                             certsteward_store_memory certsteward_testing)
install(TARGETS ${CERTSTEWARD_CORE_TARGETS} EXPORT CertStewardTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY domain ports services testing DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/certsteward
        FILES_MATCHING PATTERN "*.hpp")
# The memory store's headers, with its test-only audit tamper hook (memory_audit_log_tamper.hpp,
# header-only) that a contract suites' factory over the memory store uses.
install(DIRECTORY adapters/store/memory
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/certsteward/adapters/store
        FILES_MATCHING PATTERN "*.hpp")

set(CERTSTEWARD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/CertSteward)
install(EXPORT CertStewardTargets NAMESPACE certsteward:: DESTINATION ${CERTSTEWARD_CMAKE_DIR})
configure_package_config_file(cmake/CertStewardConfig.cmake.in
  "${PROJECT_BINARY_DIR}/CertStewardConfig.cmake" INSTALL_DESTINATION ${CERTSTEWARD_CMAKE_DIR})
# 0.x: a minor version may change the interfaces.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/CertStewardConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/CertStewardConfig.cmake"
              "${PROJECT_BINARY_DIR}/CertStewardConfigVersion.cmake"
        DESTINATION ${CERTSTEWARD_CMAKE_DIR})
