# SPDX-License-Identifier: MIT
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
#   MANDIR/man1/onyx.1                    the manual page (not on Windows)
#   DOCDIR/errors.md                      the status codes it points to
#   PYTHONDIR/onyx/                       the Python package (ONYX_PYTHON_INSTALL_DIR; from
#                                         cmake/pythondir.py: lib/python3/dist-packages for
#                                         /usr on Debian), with a link to the shared library
#
# tests/ecosystem.cmake installs into a temporary prefix and builds a program
# against it both ways (test ecosystem.install).
include(CMakePackageConfigHelpers)

set(ONYX_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/onyx)

# Exported names: onyx::onyx is the shared library, as users expect of a
# plain "onyx"; onyx::onyx_static the static one.
set_target_properties(onyx_shared PROPERTIES EXPORT_NAME onyx)
set_target_properties(onyx_static PROPERTIES EXPORT_NAME onyx_static)

if(TARGET onyx)
  install(TARGETS onyx RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # Windows has no man(1): `onyx --help` and docs/cli.md serve there.
  if(NOT WIN32)
    install(FILES ${PROJECT_SOURCE_DIR}/man/onyx.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  endif()
endif()
# On Windows onyx.dll is a RUNTIME file and goes to bin/, beside the
# programs that load it; its import library libonyx.dll.a is an ARCHIVE.
install(TARGETS onyx_shared onyx_static EXPORT onyxTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/onyx.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The man page points to the list of status codes, so it goes along.
install(FILES ${PROJECT_SOURCE_DIR}/docs/errors.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

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

# Libs.private: what onyx::onyx_static links, for pkg-config --static:
# the math library, threads (not on Windows, where they are kernel32's, and
# not without ONYX_THREADS) and the dynamic loader's library (-ldl, for
# onyx_op_registry_load_library; none on Windows or where libc has it).
set(ONYX_PC_LIBS_PRIVATE -lm)
if(ONYX_THREADS AND NOT WIN32)
  list(APPEND ONYX_PC_LIBS_PRIVATE -pthread)
endif()
foreach(lib ${CMAKE_DL_LIBS})
  list(APPEND ONYX_PC_LIBS_PRIVATE -l${lib})
endforeach()
list(JOIN ONYX_PC_LIBS_PRIVATE " " ONYX_PC_LIBS_PRIVATE)

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
  set(ONYX_PC_LIBS_PRIVATE \"${ONYX_PC_LIBS_PRIVATE}\")
  configure_file(\"${PROJECT_SOURCE_DIR}/cmake/onyx.pc.in\" \"${PROJECT_BINARY_DIR}/onyx.pc\" @ONLY)
")
install(FILES ${PROJECT_BINARY_DIR}/onyx.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

if(NOT ONYX_INSTALL_PYTHON OR WIN32)
  return()
endif()

# The Python package goes where the interpreter looks for packages under
# the prefix, by its own rules (cmake/pythondir.py asks site and sysconfig:
# lib/python3/dist-packages for /usr on Debian, lib/python3.N/dist-packages
# for /usr/local, else lib/python3.N/site-packages), with a relative link to
# the installed shared library next to it, which the package's loader tries
# before the system's libraries.
set(ONYX_PYTHON_INSTALL_DIR "" CACHE STRING
  "Where cmake --install puts the Python package (relative to the prefix); empty: the interpreter's folder for the prefix")
find_program(ONYX_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(ONYX_PYTHON_INSTALL_DIR STREQUAL "" AND NOT ONYX_PYTHON)
  message(STATUS "onyx: no /usr/bin/python3 to say where Python packages go, so cmake "
    "--install leaves the Python package out (or give -DONYX_PYTHON_INSTALL_DIR=DIR)")
  return()
endif()
if(ONYX_PYTHON_INSTALL_DIR STREQUAL "")
  execute_process(COMMAND ${ONYX_PYTHON} ${PROJECT_SOURCE_DIR}/cmake/pythondir.py
      ${CMAKE_INSTALL_PREFIX}
    OUTPUT_VARIABLE ONYX_PYTHON_INSTALL_DIR OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR ONYX_PYTHON_INSTALL_DIR STREQUAL "")
    message(FATAL_ERROR "onyx: cannot ask ${ONYX_PYTHON} where Python packages go under "
      "${CMAKE_INSTALL_PREFIX}; give it with -DONYX_PYTHON_INSTALL_DIR=DIR or leave the "
      "package out with -DONYX_INSTALL_PYTHON=OFF")
  endif()
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/onyx DESTINATION ${ONYX_PYTHON_INSTALL_DIR}
  FILES_MATCHING PATTERN "*.py" PATTERN "py.typed" PATTERN "__pycache__" EXCLUDE)
install(CODE "
  set(pkg \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${ONYX_PYTHON_INSTALL_DIR}/onyx\")
  set(lib \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libonyx.so.${PROJECT_VERSION_MAJOR}\")
  file(RELATIVE_PATH rel \"\${pkg}\" \"\${lib}\")
  file(CREATE_LINK \"\${rel}\" \"\${pkg}/libonyx.so.${PROJECT_VERSION_MAJOR}\" SYMBOLIC)
")
