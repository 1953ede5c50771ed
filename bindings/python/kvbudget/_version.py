"""Versions of the binding and of the C library it mirrors."""

#: The version of these bindings; it follows the C library's KVB_VERSION_STRING
#: of the header they were written against.
__version__ = "0.1.0"

#: The ABI (the SONAME number, libkvbudget.so.<REQUIRED_ABI>) whose struct
#: layouts and signatures this package mirrors.
REQUIRED_ABI = 0

#: The oldest library (packed MAJOR*10000 + MINOR*100 + PATCH) that has every
#: function in the prototype table; same major version required.
MIN_LIBRARY_VERSION = 100
