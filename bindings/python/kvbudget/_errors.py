"""Exceptions: one class per C status, generated from the status table.

Every C status but ``KVB_OK`` has a class named after ``kvb_status_name()``
without its prefix: ``KVB_EINVAL`` raises :class:`KvbEINVAL`.  They all derive
from :class:`KvbError`, which carries the C detail (the ``kvb_error`` the
call filled in).  Friendlier aliases name the same classes
(``KvbInvalidArgument is KvbEINVAL``), and each class also derives from the
built-in exception a Python caller would expect (``ValueError`` for bad
values, ``LookupError`` for unknown names ...), so ``except ValueError``
works too.

The classes are made at import from :class:`kvbudget.Status` (the mirror of
the C table, checked against ``kvb_status_name()`` when the library loads);
a status that only a newer library knows gets its class on first sight,
named by that library's ``kvb_status_name()``.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple, Type

from ._enums import Status

__all__ = ["KvbError", "KvbLibraryError", "error_class"]


class KvbLibraryError(RuntimeError):
    """The shared library cannot be found or loaded, or does not match."""


class KvbError(Exception):
    """A C status other than ``KVB_OK``, with the library's own detail.

    Attributes mirror ``kvb_error``: ``status`` (int), ``name``
    (``"KVB_EINVAL"``), ``field`` (dotted path such as
    ``"serving.max_model_len"``, or ``""``), ``message`` (the C message, or
    ``kvb_strerror()`` when the call gave none), ``line``/``column``/
    ``offset`` (readers; -1 when not applicable) and ``source`` (file,
    preset or ``"batch row N"``; ``""`` when none).
    """

    status: int
    name: str
    field: str
    message: str
    line: int
    column: int
    offset: int
    source: str

    def __init__(self, status: int, name: str, field: str = "",
                 message: str = "", line: int = -1, column: int = -1,
                 offset: int = -1, source: str = "") -> None:
        super().__init__(status, name, field, message, line, column)
        self.status = int(status)
        self.name = name
        self.field = field
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
        self.source = source

    def __str__(self) -> str:
        where = ""
        if self.source:
            where = self.source
            if self.line >= 0:
                where += f":{self.line}"
                if self.column >= 0:
                    where += f":{self.column}"
            where += ": "
        text = self.message or self.name
        if self.field and not self.message.startswith(self.field):
            text = f"{self.field}: {text}"
        return f"{where}{text} [{self.name}]"

    def __reduce__(self):  # picklable with every attribute
        return (_rebuild, (self.status, self.name, self.field, self.message,
                           self.line, self.column, self.offset, self.source))


def _rebuild(status: int, name: str, field: str, message: str, line: int,
             column: int, offset: int, source: str) -> KvbError:
    return error_class(status, name)(status, name, field, message, line,
                                     column, offset, source)


# Built-in bases by status name, and the friendlier aliases.
_BUILTIN_BASES: Dict[str, Tuple[type, ...]] = {
    "EINVAL": (ValueError,),
    "ERANGE": (ValueError,),
    "EOVERFLOW": (OverflowError,),
    "ENOTFOUND": (LookupError,),
    "ENOMEM": (MemoryError,),
    "EPARSE": (ValueError,),
    "EUNSUPPORTED": (NotImplementedError,),
    "ELIMIT": (ValueError,),
}
_ALIASES: Dict[str, str] = {
    "EINVAL": "KvbInvalidArgument",
    "ERANGE": "KvbOutOfRange",
    "EOVERFLOW": "KvbOverflow",
    "ENOTFOUND": "KvbNotFound",
    "EABI": "KvbABIMismatch",
    "ENOMEM": "KvbNoMemory",
    "EIO": "KvbIOError",
    "EPARSE": "KvbParseError",
    "EUNSUPPORTED": "KvbUnsupported",
    "ELIMIT": "KvbLimitExceeded",
    "EBUFSIZE": "KvbBufferTooSmall",
    "ENOCUDA": "KvbNoCuda",
    "ENODRIVER": "KvbNoDriver",
    "ENODEVICE": "KvbNoDevice",
    "ECUDA": "KvbCudaError",
}

_BY_STATUS: Dict[int, Type[KvbError]] = {}
#: Every generated class and alias, by its Python name.
CLASSES: Dict[str, Type[KvbError]] = {}


def _make(status: int, c_name: str) -> Type[KvbError]:
    short = c_name[4:] if c_name.startswith("KVB_") else c_name
    bases = (KvbError,) + _BUILTIN_BASES.get(short, ())
    doc = f"``{c_name}`` ({status})."
    cls = type(f"Kvb{short}", bases, {"__doc__": doc,
                                       "__module__": "kvbudget"})
    _BY_STATUS[status] = cls
    CLASSES[cls.__name__] = cls
    alias = _ALIASES.get(short)
    if alias:
        CLASSES[alias] = cls
    return cls


def error_class(status: int, c_name: Optional[str] = None) -> Type[KvbError]:
    """The exception class of a C status; made on first sight if unknown.

    ``c_name`` is the library's ``kvb_status_name(status)``; it names a new
    class for a status this package does not mirror.
    """
    cls = _BY_STATUS.get(int(status))
    if cls is None:
        cls = _make(int(status), c_name or f"KVB_STATUS_{int(status)}")
    return cls


for _s in Status:
    if _s is not Status.OK:
        _make(int(_s), f"KVB_{_s.name}")
del _s
