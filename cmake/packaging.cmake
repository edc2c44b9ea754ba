# Installation and the Debian package (`./run package`, tools/make_package.sh,
# docs/DEPLOY.md "Installing from the package").
#
# `cmake --install` and CPack both use these rules. The package installs
# under /usr (CPack's default prefix for DEB):
#   /usr/bin/zcrawl-*                  the programs of deploy/programs.txt
#   /usr/lib/systemd/system/           the units of deploy/systemd/
#   /usr/share/doc/zcrawl/             README.md, docs/*.md, examples/ (deploy/config/)
# and its postinst (deploy/debian/postinst) creates the system user zcrawl.
# The programs need nothing at run time but shared libraries: zcrawl-crawl
# finds its siblings next to itself (/proc/self/exe).
include(GNUInstallDirs)

# `make install` (and so cpack) installs what is built, without building the
# whole tree (tests and benchmarks included) first: ./run package builds the
# programs, and tools/make_package.sh checks they are there.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)

install(TARGETS ${ZCRAWL_PROGRAMS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# lib/, not GNUInstallDirs' multiarch libdir: /usr/lib/systemd/system, the
# same folder as /lib/systemd/system on Debian 12 (merged /usr). The units
# run /usr/bin/zcrawl-*, so they fit the prefix /usr only.
install(FILES
    ${PROJECT_SOURCE_DIR}/deploy/systemd/zcrawl-frontier.service
    ${PROJECT_SOURCE_DIR}/deploy/systemd/zcrawl-writer.service
    ${PROJECT_SOURCE_DIR}/deploy/systemd/zcrawl-fetcher@.service
  DESTINATION lib/systemd/system)

# README.md beside docs/ as in the repository, so their links still work.
file(GLOB zcrawl_doc_pages CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${zcrawl_doc_pages} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(FILES
    ${PROJECT_SOURCE_DIR}/deploy/config/frontier.toml
    ${PROJECT_SOURCE_DIR}/deploy/config/writer.toml
    ${PROJECT_SOURCE_DIR}/deploy/config/fetcher.toml
    ${PROJECT_SOURCE_DIR}/deploy/config/seeds.txt
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

set(ZCRAWL_PACKAGE_MAINTAINER "zcrawl maintainers <maintainers@users.noreply.a-seed-b3ade24d.example>"
    CACHE STRING "Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME zcrawl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${ZCRAWL_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "distributed web crawler over ZeroMQ")
# Lines of at most 80 characters, as Debian wants (CPack indents them).
string(JOIN "\n" CPACK_PACKAGE_DESCRIPTION
  "One frontier owns the URL queue, the visited set and per-host politeness;"
  "any number of fetchers, on any machines, fetch with libcurl and parse HTML;"
  "one writer stores pages as files, JSON lines or WARC. They talk through"
  "Protocol Buffers messages over ZeroMQ, with CURVE between machines."
  "Includes systemd units for the three roles.")
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION web)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/zcrawl/zcrawl")
# dpkg-shlibdeps declares the libraries the programs link (libzmq5, libcurl4,
# ...); CPack adds these to them. adduser: the postinst; ca-certificates:
# fetchers verify HTTPS sites.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser, ca-certificates")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/deploy/debian/postinst)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)

include(CPack)
