# SPDX-License-Identifier: MIT
"""Prints where `cmake --install` puts the Python package, relative to the
install prefix given as the argument (cmake/install.cmake):

- the folder under PREFIX/lib that this interpreter itself searches
  (site.getsitepackages()): lib/python3/dist-packages for /usr on Debian,
  lib/python3.N/dist-packages for /usr/local, lib/python3.N/site-packages in a
  venv;
- else the purelib folder of sysconfig's posix_prefix scheme for PREFIX
  (lib/python3.N/site-packages), where `pip install --prefix PREFIX` would
  put it; the interpreter then needs PYTHONPATH.
"""

import os
import site
import sys
import sysconfig

prefix = os.path.abspath(sys.argv[1])
for folder in site.getsitepackages():
    rel = os.path.relpath(folder, prefix)
    if rel.split(os.sep)[0] == "lib":
        break
else:
    rel = os.path.relpath(sysconfig.get_path("purelib", "posix_prefix",
                                             vars={"base": prefix, "platbase": prefix}), prefix)
print(rel.replace(os.sep, "/"))
