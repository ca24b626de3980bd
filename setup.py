# SPDX-License-Identifier: MIT
"""Build steps for the Python package (its metadata is in pyproject.toml).

Building the package (pip install ., python3 -m build) compiles the C
library with CMake, in the build folder's temporary directory, and puts
libonyx.so.0 into the package beside _capi.py, which loads it first after
ONYX_LIBRARY (python/onyx/_capi.py). The wheel therefore carries the
library and is tagged for the platform, not for a Python version: onyx
calls the library through ctypes, so one wheel serves every Python 3.

Environment:
  ONYX_CMAKE       the cmake program (default: cmake on PATH)
  ONYX_CMAKE_ARGS  more arguments for CMake's configure step, split like a
                   shell would (e.g. "-DONYX_BUILD_CONFIG=/path/ops.cfg")
"""

import os
import shlex
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel

ROOT = os.path.dirname(os.path.abspath(__file__))


def read_version():
    with open(os.path.join(ROOT, "VERSION"), encoding="utf-8") as f:
        return f.read().strip()


class BuildWithLibrary(build_py):
    """build_py, then libonyx.so.0 from the C sources into the package."""

    def run(self):
        super().run()
        cmake = os.environ.get("ONYX_CMAKE") or shutil.which("cmake")
        if not cmake:
            raise SystemExit("onyx: building the package needs CMake (Debian: apt-get install "
                             "cmake) and a C compiler")
        build_temp = os.path.abspath(os.path.join(
            self.get_finalized_command("build").build_base, "onyx-cmake"))
        major = read_version().split(".")[0]
        configure = [cmake, "-S", ROOT, "-B", build_temp, "-DCMAKE_BUILD_TYPE=Release",
                     "-DONYX_BUILD_TESTS=OFF", "-DONYX_BUILD_CLI=OFF", "-DONYX_INSTALL=OFF",
                     "-DONYX_WERROR=OFF"]
        configure += shlex.split(os.environ.get("ONYX_CMAKE_ARGS", ""))
        self.spawn(configure)
        self.spawn([cmake, "--build", build_temp, "--target", "onyx_shared",
                    "--parallel", str(os.cpu_count() or 1)])
        built = os.path.join(build_temp, "libonyx.so." + major)
        if not os.path.exists(built):
            raise SystemExit("onyx: CMake built no %s" % built)
        # The file itself, not the link chain: a wheel holds no links.
        self.copy_file(os.path.realpath(built),
                       os.path.join(self.build_lib, "onyx", "libonyx.so." + major))


class PlatformWheel(bdist_wheel):
    """A wheel for this platform (it holds a shared library) and any Python 3."""

    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", plat


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


# Build products go under build/pip, not into the folder CMake users build
# in (build/) itself; the egg-info too, not into python/.
BUILD_BASE = os.path.join("build", "pip")
os.makedirs(BUILD_BASE, exist_ok=True)
setup(cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel},
      distclass=BinaryDistribution,
      options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}})
