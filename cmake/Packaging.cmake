# The Debian package of the server: `cmake --build DIR --target package`, or `cpack` in DIR (-B
# for another output directory). Its files are the install component "server", excluded from a
# plain `cmake --install` (which installs the core for find_package and must never write outside
# its prefix, as the systemd unit's /lib/systemd/system would): the .deb holds the server's
# runtime only, no headers or static libraries. Files and maintainer scripts: packaging/.
set(CERTSTEWARD_PACKAGING_SOURCE "${PROJECT_SOURCE_DIR}/packaging")
set(CERTSTEWARD_PACKAGING_BINARY "${PROJECT_BINARY_DIR}/packaging")
set(CERTSTEWARD_DEB_MAINTAINER "CertSteward maintainers <packaging@certsteward.example>"
    CACHE STRING "Maintainer field of the Debian package")

# Generated at configure time: Debian wants both compressed without a name or time stamp.
set(CERTSTEWARD_DEB_VERSION ${PROJECT_VERSION})
configure_file("${CERTSTEWARD_PACKAGING_SOURCE}/changelog"
               "${CERTSTEWARD_PACKAGING_BINARY}/changelog" @ONLY)
configure_file("${CERTSTEWARD_PACKAGING_SOURCE}/certsteward.1"
               "${CERTSTEWARD_PACKAGING_BINARY}/certsteward.1" @ONLY)
foreach(doc changelog certsteward.1)
  execute_process(COMMAND gzip -9 -n -c "${CERTSTEWARD_PACKAGING_BINARY}/${doc}"
                  OUTPUT_FILE "${CERTSTEWARD_PACKAGING_BINARY}/${doc}.gz"
                  RESULT_VARIABLE gzip_status)
  if(NOT gzip_status EQUAL 0)
    message(FATAL_ERROR "gzip ${doc} for the Debian package failed: ${gzip_status}")
  endif()
endforeach()

# Fixed paths, not GNUInstallDirs': the unit and the maintainer scripts name them (a /usr prefix
# would make CMAKE_INSTALL_LIBDIR the multiarch lib/x86_64-linux-gnu).
install(TARGETS certsteward RUNTIME DESTINATION bin
        COMPONENT server EXCLUDE_FROM_ALL)
install(FILES "${CERTSTEWARD_PACKAGING_SOURCE}/certsteward.service"
        DESTINATION /lib/systemd/system COMPONENT server EXCLUDE_FROM_ALL)
install(PROGRAMS "${CERTSTEWARD_PACKAGING_SOURCE}/make-config"
        DESTINATION lib/certsteward COMPONENT server EXCLUDE_FROM_ALL)
install(FILES "${CERTSTEWARD_PACKAGING_SOURCE}/certsteward.conf.example"
        DESTINATION share/certsteward COMPONENT server EXCLUDE_FROM_ALL)
install(FILES "${CERTSTEWARD_PACKAGING_SOURCE}/copyright"
              "${CERTSTEWARD_PACKAGING_BINARY}/changelog.gz"
              "${PROJECT_SOURCE_DIR}/docs/operations.md"
              "${PROJECT_SOURCE_DIR}/docs/configuration.md"
        DESTINATION share/doc/certsteward COMPONENT server EXCLUDE_FROM_ALL)
install(FILES "${CERTSTEWARD_PACKAGING_BINARY}/certsteward.1.gz"
        DESTINATION share/man/man1 COMPONENT server EXCLUDE_FROM_ALL)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME certsteward)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "CertSteward")
set(CPACK_PACKAGE_CONTACT "${CERTSTEWARD_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "TLS certificate lifecycle service")
# Only the "server" component, installed under DESTDIR: /usr from the relative destinations,
# /lib/systemd/system as it is.
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};certsteward;server;/")
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_VERSION ${CERTSTEWARD_DEB_VERSION})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CERTSTEWARD_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The synopsis is CPACK_PACKAGE_DESCRIPTION_SUMMARY; this is the extended description.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "CertSteward issues, renews and distributes TLS certificates through ACME
(DNS-01 challenges), with a REST API and a web UI served by one process.
.
This package runs it as the systemd service certsteward.service under its
own system user, with a hardened sandbox. The configuration
/etc/certsteward/certsteward.conf is written with new secrets on first
install and never overwritten; the data (a SQLite store) is kept in
/var/lib/certsteward.")
# The libraries come from dpkg-shlibdeps (package dpkg-dev); adduser for the postinst.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
# The CAs' HTTPS needs the system trust store; libpsl reads the newest public suffix list there.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ca-certificates, publicsuffix")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${CERTSTEWARD_PACKAGING_SOURCE}/postinst"
    "${CERTSTEWARD_PACKAGING_SOURCE}/prerm" "${CERTSTEWARD_PACKAGING_SOURCE}/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)

# `package_source` (not the Debian package): the tree without builds, data or dependencies.
set(CPACK_SOURCE_IGNORE_FILES "^${PROJECT_SOURCE_DIR}/([.]git|build|data)/" "/node_modules/")

include(CPack)
