# SPDX-License-Identifier: MIT
# Installs the build into a temporary prefix and uses it as a user would:
# the files are where GNUInstallDirs puts them, the shared library has its
# soname and exports only the public API, and a small program (consumer/)
# builds against it through find_package(onyx CONFIG) (shared and static)
# and through pkg-config, then runs a conformance model and checks the
# output.
#
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DSOURCE_DIR=... -DVERSION=X.Y.Z
#         -DVERSION_MAJOR=X -DLIBDIR=lib -DINCLUDEDIR=include -DBINDIR=bin
#         -DMANDIR=share/man -DDOCDIR=share/doc/onyx -DCC=cc -DPKG_CONFIG=pkg-config -DNM=nm
#         -DOBJDUMP=objdump -DCASE=.../node/test_ceil -P install.cmake
cmake_minimum_required(VERSION 3.18)

include(${CMAKE_CURRENT_LIST_DIR}/run.cmake)

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
run("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")

# ---- The files --------------------------------------------------------------
set(lib "${prefix}/${LIBDIR}")
foreach(f
    "${BINDIR}/onyx"
    "${LIBDIR}/libonyx.so.${VERSION}"
    "${LIBDIR}/libonyx.so.${VERSION_MAJOR}"
    "${LIBDIR}/libonyx.so"
    "${LIBDIR}/libonyx.a"
    "${INCLUDEDIR}/onyx.h"
    "${LIBDIR}/pkgconfig/onyx.pc"
    "${LIBDIR}/cmake/onyx/onyxConfig.cmake"
    "${LIBDIR}/cmake/onyx/onyxConfigVersion.cmake"
    "${LIBDIR}/cmake/onyx/onyxTargets.cmake"
    "${MANDIR}/man1/onyx.1"
    "${DOCDIR}/errors.md")
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
foreach(link "libonyx.so" "libonyx.so.${VERSION_MAJOR}")
  if(NOT IS_SYMLINK "${lib}/${link}")
    message(FATAL_ERROR "${link} is not a symbolic link")
  endif()
endforeach()
file(READ "${SOURCE_DIR}/include/onyx.h" want_header)
file(READ "${prefix}/${INCLUDEDIR}/onyx.h" got_header)
if(NOT want_header STREQUAL got_header)
  message(FATAL_ERROR "the installed onyx.h differs from include/onyx.h")
endif()

# The soname, and only the public API exported.
run("objdump" "${OBJDUMP}" -p "${lib}/libonyx.so.${VERSION}")
if(NOT run_out MATCHES "SONAME +libonyx\\.so\\.${VERSION_MAJOR}\n")
  message(FATAL_ERROR
    "libonyx.so.${VERSION} has no SONAME libonyx.so.${VERSION_MAJOR}:\n${run_out}")
endif()
run("the exports check" "${CMAKE_COMMAND}" "-DLIB=${lib}/libonyx.so.${VERSION}"
  "-DHEADER=${prefix}/${INCLUDEDIR}/onyx.h" "-DNM=${NM}"
  -P "${CMAKE_CURRENT_LIST_DIR}/exports.cmake")

run("the installed onyx" "${prefix}/${BINDIR}/onyx" --version)
if(NOT run_out MATCHES "^onyx ${VERSION} ")
  message(FATAL_ERROR "the installed onyx --version says: ${run_out}")
endif()

set(model "${CASE}/model.onnx")
set(input "${CASE}/test_data_set_0/input_0.pb")
set(expected "${CASE}/test_data_set_0/output_0.pb")
foreach(f "${model}" "${input}" "${expected}")
  if(NOT EXISTS "${f}")
    message(FATAL_ERROR "${f} is missing (Debian: apt-get install libonnx-testdata)")
  endif()
endforeach()

# ---- find_package(onyx CONFIG) ----------------------------------------------
set(consumer_build "${WORK_DIR}/consumer-cmake")
run("configuring the consumer" "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/consumer"
  -B "${consumer_build}" "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_C_COMPILER=${CC}"
  "-DONYX_EXPECTED_VERSION=${VERSION}" -DCMAKE_BUILD_TYPE=Release)
run("building the consumer" "${CMAKE_COMMAND}" --build "${consumer_build}")
foreach(kind shared static)
  run("consumer_${kind}" "${consumer_build}/consumer_${kind}" "${model}" "${input}" "${expected}")
  if(NOT run_out MATCHES "^onyx ${VERSION}: output matches")
    message(FATAL_ERROR "consumer_${kind}: ${run_out}")
  endif()
  message("find_package, ${kind}: ${run_out}")
endforeach()
# The shared one uses the installed library, not the build tree's.
run("objdump" "${OBJDUMP}" -p "${consumer_build}/consumer_shared")
if(NOT run_out MATCHES "NEEDED +libonyx\\.so\\.${VERSION_MAJOR}\n")
  message(FATAL_ERROR "consumer_shared does not need libonyx.so.${VERSION_MAJOR}:\n${run_out}")
endif()
if(run_out MATCHES "libonyx\\.so\\.${VERSION_MAJOR}" AND run_out MATCHES "RUNPATH|RPATH")
  string(REGEX MATCH "R(UN)?PATH +[^\n]*" rpath "${run_out}")
  if(NOT rpath MATCHES "${prefix}")
    message(FATAL_ERROR "consumer_shared's ${rpath} does not point into the prefix")
  endif()
endif()
run("objdump" "${OBJDUMP}" -p "${consumer_build}/consumer_static")
if(run_out MATCHES "NEEDED +libonyx")
  message(FATAL_ERROR "consumer_static needs libonyx.so:\n${run_out}")
endif()

# ---- pkg-config -------------------------------------------------------------
set(ENV{PKG_CONFIG_PATH} "${lib}/pkgconfig")
unset(ENV{PKG_CONFIG_LIBDIR})
run("pkg-config --modversion" "${PKG_CONFIG}" --modversion onyx)
string(STRIP "${run_out}" pc_version)
if(NOT pc_version STREQUAL VERSION)
  message(FATAL_ERROR "pkg-config says version ${pc_version}, the project ${VERSION}")
endif()
run("pkg-config --cflags --libs" "${PKG_CONFIG}" --cflags --libs onyx)
string(STRIP "${run_out}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
if(NOT flags MATCHES "-I${prefix}/${INCLUDEDIR}" OR NOT flags MATCHES "-L${lib}")
  message(FATAL_ERROR "pkg-config flags do not point into the prefix: ${flags}")
endif()
run("pkg-config --static --libs" "${PKG_CONFIG}" --static --libs onyx)
if(NOT run_out MATCHES "-lm" OR NOT run_out MATCHES "-pthread")
  message(FATAL_ERROR "pkg-config --static --libs lacks -lm -pthread: ${run_out}")
endif()
# The dynamic loader's library that onyx::onyx_static links (DL_LIBS, from
# CMAKE_DL_LIBS: dl with glibc), so that a static link resolves dlopen.
foreach(dl ${DL_LIBS})
  if(NOT run_out MATCHES "-l${dl}( |\n|$)")
    message(FATAL_ERROR "pkg-config --static --libs lacks -l${dl}, which onyx::onyx_static links: ${run_out}")
  endif()
endforeach()
set(pc_consumer "${WORK_DIR}/consumer-pkg-config")
run("compiling with pkg-config's flags" "${CC}" -std=c11 -Wall -Wextra -Wpedantic -Werror
  "${CMAKE_CURRENT_LIST_DIR}/consumer/consumer.c" -o "${pc_consumer}" ${flags})
set(ENV{LD_LIBRARY_PATH} "${lib}")
run("consumer (pkg-config)" "${pc_consumer}" "${model}" "${input}" "${expected}")
if(NOT run_out MATCHES "^onyx ${VERSION}: output matches")
  message(FATAL_ERROR "consumer (pkg-config): ${run_out}")
endif()
message("pkg-config, shared: ${run_out}")

# The Python package, as installed: found on the prefix's dist-packages
# path, loading the installed library through the link beside it.
set(ENV{PYTHONPATH} "${prefix}/${PYDIR}")
if(NOT EXISTS "${prefix}/${PYDIR}/onyx/py.typed")
  message(FATAL_ERROR "not installed: ${PYDIR}/onyx/py.typed (the package's type hints)")
endif()
unset(ENV{ONYX_LIBRARY})
unset(ENV{LD_LIBRARY_PATH})
# (Statements on separate lines: a ';' would split the CMake argument.)
run("the installed Python package" "${PYTHON}" -c
  "import numpy as np, onyx\ns = onyx.InferenceSession('${SOURCE_DIR}/examples/chain.onnx')\nx = np.array([-3.7, -1.2, -0.5, 0, 0.4, 1.5, 2.2, 5.9], np.float32)\nprint(onyx.library_path, s.run(['clipped'], {'x': x})[0].tolist())")
if(NOT run_out MATCHES "^${prefix}/${PYDIR}/onyx/libonyx\\.so\\.${VERSION_MAJOR} \\[-2\\.0, -1\\.0, -0\\.0, 0\\.0, 1\\.0, 2\\.0, 2\\.0, 2\\.0\\]")
  message(FATAL_ERROR "the installed Python package: ${run_out}")
endif()
message("python: ${run_out}")
# The ONNX backend interface, imported from the installed package.
run("the installed onyx.backend" "${PYTHON}" -c
  "import onyx.backend\nprint(onyx.backend.__file__, onyx.backend.supports_device('CPU'))")
if(NOT run_out MATCHES "^${prefix}/${PYDIR}/onyx/backend\\.py True")
  message(FATAL_ERROR "the installed onyx.backend: ${run_out}")
endif()
message("installed into ${prefix} and used both ways, and from Python")
