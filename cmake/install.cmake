# Installation and packaging, following GNUInstallDirs. Included from the
# top-level CMakeLists.txt once the targets exist. `cmake --install BUILD
# [--prefix P]` puts into the prefix:
#
#   bin/onyx                              the command
#   LIBDIR/libonyx.so.X.Y.Z, .so.X, .so   the shared library (soname libonyx.so.X;
#                                         only the ONYX_API functions exported)
#   LIBDIR/libonyx.a                      the static library
#   INCLUDEDIR/onyx.h                     the one public header
#   LIBDIR/pkgconfig/onyx.pc              for pkg-config
#   LIBDIR/cmake/onyx/                    for find_package(onyx CONFIG): targets
#                                         onyx::onyx (shared), onyx::onyx_static
#   MANDIR/man1/onyx.1                    the manual page
#
# tests/ecosystem.cmake installs into a temporary prefix and builds a program
# against it both ways (test ecosystem.install).
include(CMakePackageConfigHelpers)

set(ONYX_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/onyx)

# Exported names: onyx::onyx is the shared library, as users expect of a
# plain "onyx"; onyx::onyx_static the static one.
set_target_properties(onyx_shared PROPERTIES EXPORT_NAME onyx)
set_target_properties(onyx_static PROPERTIES EXPORT_NAME onyx_static)

install(TARGETS onyx RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS onyx_shared onyx_static EXPORT onyxTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/onyx.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/man/onyx.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

install(EXPORT onyxTargets NAMESPACE onyx:: DESTINATION ${ONYX_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/onyxConfig.cmake.in
  ${PROJECT_BINARY_DIR}/onyxConfig.cmake INSTALL_DESTINATION ${ONYX_CMAKE_DIR})
# Before 1.0, a minor release may change the API; from 1.0, a major one.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(ONYX_COMPATIBILITY SameMinorVersion)
else()
  set(ONYX_COMPATIBILITY SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/onyxConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${ONYX_COMPATIBILITY})
install(FILES ${PROJECT_BINARY_DIR}/onyxConfig.cmake ${PROJECT_BINARY_DIR}/onyxConfigVersion.cmake
  DESTINATION ${ONYX_CMAKE_DIR})

# onyx.pc holds absolute paths, so it is written when installing, for the
# prefix actually used (`cmake --install --prefix` may differ from the one
# configured); DESTDIR is not part of the paths, as packagers expect.
install(CODE "
  set(ONYX_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(ONYX_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(ONYX_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  if(IS_ABSOLUTE \"\${ONYX_LIBDIR}\")
    set(ONYX_PC_LIBDIR \"\${ONYX_LIBDIR}\")
  else()
    set(ONYX_PC_LIBDIR \"\\\${exec_prefix}/\${ONYX_LIBDIR}\")
  endif()
  if(IS_ABSOLUTE \"\${ONYX_INCLUDEDIR}\")
    set(ONYX_PC_INCLUDEDIR \"\${ONYX_INCLUDEDIR}\")
  else()
    set(ONYX_PC_INCLUDEDIR \"\\\${prefix}/\${ONYX_INCLUDEDIR}\")
  endif()
  set(ONYX_PC_VERSION \"${PROJECT_VERSION}\")
  configure_file(\"${PROJECT_SOURCE_DIR}/cmake/onyx.pc.in\" \"${PROJECT_BINARY_DIR}/onyx.pc\" @ONLY)
")
install(FILES ${PROJECT_BINARY_DIR}/onyx.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
