"""An in-tree PEP 517 / PEP 660 build backend for the kvbudget package.

It needs nothing but the standard library, so ``pip install
./bindings/python`` works offline: pip's isolated build environment has
nothing to download (``requires = []``).

The wheel holds the ``kvbudget`` package and, when one is found, the
shared library next to it (``kvbudget/libkvbudget.so.0``), which the
package loads first after ``KVBUDGET_LIBRARY``.  The library is, in order:

1. the ``library`` config setting (``pip install --config-settings
   library=/path/libkvbudget.so.0 ./bindings/python``);
2. the ``KVBUDGET_LIBRARY`` environment variable;
3. ``<repository>/build/lib/libkvbudget.so.0`` (what ``make build`` makes).

A library built with the sanitizers is never picked up by (3): it cannot
load into a plain interpreter.  Without a library the wheel is pure Python
and the package uses the system's (``cmake --install``).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import sys
import sysconfig
import tarfile
import time
import zipfile
from typing import Dict, List, Mapping, Optional, Tuple

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(HERE))
PACKAGE = "kvbudget"


# ---- metadata (from pyproject.toml, without a TOML library) ----

def _project() -> Dict[str, str]:
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    section = re.search(r"^\[project\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if not section:
        raise RuntimeError("pyproject.toml has no [project] table")
    out = {}
    for key, value in re.findall(r'^([\w-]+) = "([^"]*)"', section.group(1),
                                 re.M):
        out[key] = value
    return out


def _metadata() -> str:
    p = _project()
    with open(os.path.join(HERE, p.get("readme", "README.md")),
              encoding="utf-8") as f:
        readme = f.read()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {p['name']}",
        f"Version: {p['version']}",
        f"Summary: {p.get('description', '')}",
        "License: MIT",
        f"Requires-Python: {p.get('requires-python', '>=3.8')}",
        "Provides-Extra: numpy",
        "Requires-Dist: numpy; extra == \"numpy\"",
        "Provides-Extra: plot",
        "Requires-Dist: matplotlib; extra == \"plot\"",
        "Description-Content-Type: text/markdown",
        "",
        readme,
    ]
    return "\n".join(lines)


def _dist_name() -> Tuple[str, str]:
    p = _project()
    return re.sub(r"[-_.]+", "_", p["name"]), p["version"]


# ---- the library to carry ----

def _sanitized(path: str) -> bool:
    with open(path, "rb") as f:
        data = f.read()
    return b"libasan.so" in data or b"__asan_init" in data


def _find_library(config: Optional[Mapping[str, object]]) -> Optional[str]:
    given = (config or {}).get("library") or os.environ.get(
        "KVBUDGET_LIBRARY")
    if given:
        path = os.path.realpath(str(given))
        if not os.path.isfile(path):
            raise RuntimeError(f"kvbudget: library {given} does not exist")
        return path
    for name in ("libkvbudget.so.0", "libkvbudget.dylib", "kvbudget.dll"):
        path = os.path.join(REPO, "build", "lib", name)
        if os.path.isfile(path) and not _sanitized(path):
            return os.path.realpath(path)
    return None


def _library_name(path: str) -> str:
    if path.endswith(".dylib"):
        return "libkvbudget.dylib"
    if path.endswith(".dll"):
        return "kvbudget.dll"
    return "libkvbudget.so.0"


# ---- wheels ----

def _package_files() -> List[Tuple[str, str]]:
    """(path on disk, path in the wheel) of the package's files."""
    out = []
    pkg = os.path.join(HERE, PACKAGE)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") or name == "py.typed":
            out.append((os.path.join(pkg, name), f"{PACKAGE}/{name}"))
    return out


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
    return f"{arcname},sha256={digest.rstrip(b'=').decode()},{len(data)}"


def _tag(pure: bool) -> str:
    if pure:
        return "py3-none-any"
    plat = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"py3-none-{plat}"


def _write_wheel(directory: str, files: List[Tuple[str, bytes, int]],
                 pure: bool) -> str:
    name, version = _dist_name()
    tag = _tag(pure)
    dist_info = f"{name}-{version}.dist-info"
    wheel = (f"Wheel-Version: 1.0\nGenerator: kvbudget_build\n"
             f"Root-Is-Purelib: {'true' if pure else 'false'}\nTag: {tag}\n")
    meta = [(f"{dist_info}/METADATA", _metadata().encode(), 0o644),
            (f"{dist_info}/WHEEL", wheel.encode(), 0o644),
            (f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode(), 0o644)]
    entries = files + meta
    record = [_record_line(a, d) for a, d, _ in entries]
    record.append(f"{dist_info}/RECORD,,")
    entries.append((f"{dist_info}/RECORD",
                    ("\n".join(record) + "\n").encode(), 0o644))
    filename = f"{name}-{version}-{tag}.whl"
    stamp = time.gmtime(int(os.environ.get("SOURCE_DATE_EPOCH",
                                           "315532800")))[:6]
    with zipfile.ZipFile(os.path.join(directory, filename), "w",
                         zipfile.ZIP_DEFLATED) as z:
        for arcname, data, mode in entries:
            info = zipfile.ZipInfo(arcname, date_time=stamp)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return filename


def get_requires_for_build_wheel(config_settings=None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings=None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings=None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings=None) -> str:
    name, version = _dist_name()
    dist_info = os.path.join(metadata_directory,
                             f"{name}-{version}.dist-info")
    os.makedirs(dist_info, exist_ok=True)
    with open(os.path.join(dist_info, "METADATA"), "w",
              encoding="utf-8") as f:
        f.write(_metadata())
    return os.path.basename(dist_info)


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory: str, config_settings=None,
                metadata_directory: Optional[str] = None) -> str:
    files = []
    for path, arcname in _package_files():
        with open(path, "rb") as f:
            files.append((arcname, f.read(), 0o644))
    lib = _find_library(config_settings)
    if lib:
        with open(lib, "rb") as f:
            files.append((f"{PACKAGE}/{_library_name(lib)}", f.read(),
                          0o755))
        print(f"kvbudget: the wheel carries {lib}", file=sys.stderr)
    else:
        print("kvbudget: no built library found (make build, or set "
              "KVBUDGET_LIBRARY); the package will use the system's",
              file=sys.stderr)
    return _write_wheel(wheel_directory, files, pure=lib is None)


def build_editable(wheel_directory: str, config_settings=None,
                   metadata_directory: Optional[str] = None) -> str:
    """PEP 660: a .pth file pointing at the source tree.  The library is
    not copied; set KVBUDGET_LIBRARY or install it."""
    pth = (HERE + "\n").encode()
    return _write_wheel(wheel_directory, [(f"{PACKAGE}.pth", pth, 0o644)],
                        pure=True)


def build_sdist(sdist_directory: str, config_settings=None) -> str:
    name, version = _dist_name()
    base = f"{name}-{version}"
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz",
                      format=tarfile.PAX_FORMAT) as tar:
        def add(rel: str) -> None:
            tar.add(os.path.join(HERE, rel), f"{base}/{rel}",
                    filter=lambda t: None if "__pycache__" in t.name else t)
        for rel in ("pyproject.toml", "README.md", PACKAGE, "_build",
                    "examples"):
            if os.path.exists(os.path.join(HERE, rel)):
                add(rel)
        pkg_info = _metadata().encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(pkg_info)
        tar.addfile(info, io.BytesIO(pkg_info))
    return filename
