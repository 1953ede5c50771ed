"""Shared set-up of the Python tests: paths and optional packages.

ctest sets KVBUDGET_LIBRARY (the library just built), PYTHONPATH (the
package in the source tree), KVB_SOURCE_DIR and KVB_TEST_TMP; run by hand:

    KVBUDGET_LIBRARY=build/lib/libkvbudget.so.0 \\
    PYTHONPATH=bindings/python python3 -m unittest -v test_api
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("KVB_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(HERE))
BINDINGS = os.path.join(SOURCE_DIR, "bindings", "python")
HEADER = os.path.join(SOURCE_DIR, "include", "kvbudget.h")
TMP = os.environ.get("KVB_TEST_TMP") or HERE
SANITIZED = os.environ.get("KVB_SANITIZED") == "1"

if BINDINGS not in sys.path:
    sys.path.insert(0, BINDINGS)

try:
    import numpy  # noqa: F401
    HAVE_NUMPY = True
except ImportError:
    HAVE_NUMPY = False

try:
    import matplotlib  # noqa: F401
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False

GIB = 1 << 30
MIB = 1 << 20
