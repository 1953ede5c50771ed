#!/usr/bin/env python3
"""Generate docs/api.md and docs/errors.md from include/kvbudget.h.

The header is the manual: this script only re-arranges its doc comments
and its status table.  `--check` exits 1 when the files on disk differ
from what the header generates (a ctest runs it).
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = ROOT / "include" / "kvbudget.h"

ERROR_HINTS = {
    "OK": "Nothing went wrong.",
    "EINVAL": "A pointer was NULL or two fields contradict each other "
              "(e.g. num_attention_heads not a multiple of "
              "num_key_value_heads). Fix the field named in kvb_error.field.",
    "ERANGE": "A number is outside its documented range; "
              "kvb_field_bounds() gives the range. Also an index past the end.",
    "EOVERFLOW": "The architecture's products do not fit in 64 bits: "
                 "the inputs are absurd.",
    "ENOTFOUND": "No preset, method or name matches; `kvbudget list` shows "
                 "the names.",
    "EABI": "struct_size is not one this library knows: call the init "
            "function, and check the header matches the library.",
    "ENOMEM": "An allocation failed.",
    "EIO": "A file could not be opened or read.",
    "EPARSE": "A file is malformed; line/column or offset say where.",
    "EUNSUPPORTED": "Valid input this version cannot handle, e.g. an AWQ "
                    "group size that does not divide a tensor.",
    "ELIMIT": "A file exceeds a safety limit (header size, string length, "
              "tensor count).",
    "EBUFSIZE": "The output buffer is too small; `needed` says how large.",
    "ENOCUDA": "The library was built without CUDA: the probe is "
               "unavailable, everything else works.",
    "ENODRIVER": "No NVIDIA driver could be loaded on this machine.",
    "ENODEVICE": "The driver reports no CUDA device.",
    "ECUDA": "A CUDA call failed; the message carries CUDA's own text.",
}


def read_header():
    return HEADER.read_text()


def sections(text):
    """Yield (banner, [(prototype, comment)]) in header order."""
    banner = "Preamble"
    out = {banner: []}
    order = [banner]
    lines = text.splitlines()
    comment = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"/\* (\S.*\S) +\*/$", line)
        if m and i > 0 and lines[i - 1].startswith("/* ----"):
            banner = m.group(1)
            out.setdefault(banner, [])
            order.append(banner)
        elif line.startswith("/**"):
            body = []
            while not lines[i].rstrip().endswith("*/"):
                body.append(lines[i])
                i += 1
            body.append(lines[i])
            comment = clean_comment(body)
        elif line.startswith("KVB_API"):
            proto = [lines[i + 1]]
            i += 1
            while not proto[-1].rstrip().endswith(";"):
                i += 1
                proto.append(lines[i])
            out[banner].append((" ".join(p.strip() for p in proto), comment))
            comment = None
        i += 1
    return [(b, out[b]) for b in order if out[b]]


def clean_comment(body):
    text = []
    for line in body:
        line = line.strip()
        line = re.sub(r"^/\*\*?|\*/$", "", line).strip()
        line = re.sub(r"^\* ?", "", line)
        text.append(line)
    return "\n".join(t for t in text).strip()


def api_md(text):
    out = ["# API reference", "",
           "Generated from `include/kvbudget.h` by `scripts/gen_docs.py`; "
           "the header is the source. Every function returns `KVB_OK` or a "
           "status; details in `*err`.", ""]
    for banner, funcs in sections(text):
        out += ["## " + banner, ""]
        for proto, comment in funcs:
            name = re.search(r"(\w+)\(", proto).group(1)
            since = re.search(r"@since (\S+)", comment or "")
            out += ["### `%s`" % name, "", "```c", proto, "```", ""]
            if comment:
                desc = re.sub(r"\s*@since \S+", "", comment).strip()
                out += [desc, ""]
            out += ["Since: %s" % (since.group(1) if since else "0.1"), ""]
    return "\n".join(out).rstrip() + "\n"


def errors_md(text):
    rows = re.findall(r'XX\((\w+), (\d+), "([^"]*)"\)', text.split(
        "KVB_STATUS_MAP(XX)", 1)[1].split("typedef enum kvb_status", 1)[0])
    out = ["# Status codes", "",
           "Generated from the `KVB_STATUS_MAP` table of "
           "`include/kvbudget.h` by `scripts/gen_docs.py`. "
           "`kvb_strerror()` gives the message, `kvb_status_name()` the "
           "name; `kvb_error` names the field.", "",
           "| code | name | message | what to do |", "|---:|---|---|---|"]
    for name, num, msg in rows:
        out.append("| %s | `KVB_%s` | %s | %s |" %
                   (num, name, msg, ERROR_HINTS.get(name, "")))
    return "\n".join(out) + "\n"


def main():
    text = read_header()
    files = {ROOT / "docs" / "api.md": api_md(text),
             ROOT / "docs" / "errors.md": errors_md(text)}
    if "--check" in sys.argv:
        stale = [p.name for p, body in files.items()
                 if not p.exists() or p.read_text() != body]
        if stale:
            print("out of date (run scripts/gen_docs.py): " + ", ".join(stale))
            return 1
        print("docs/api.md and docs/errors.md match the header")
        return 0
    for path, body in files.items():
        path.write_text(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
