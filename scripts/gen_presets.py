#!/usr/bin/env python3
"""The preset tables under data/ into C: scripts/gen_presets.py --out DIR.

data/models.json (JSON: rows are sparse and share shapes), data/gpus.tsv,
data/instances.tsv, data/checkpoints.tsv and data/ollama_tags.tsv (TSV:
flat rows), with data/sources.tsv for the texts many rows cite, become
DIR/presets_<table>.c, each defining the table lib/ reads
(kvb__model_rows, kvb__gpu_rows, ...), and DIR/presets_config_checks.h,
the config.json checks tests/unit/test_presets_config.c runs.  CMake runs
this at build time (lib/CMakeLists.txt), web/build.sh before it compiles.

Everything is checked first, and the first problem stops the build with
the file, the line and the row: a field or column this script does not
know, a value of the wrong type or out of range, an enum or flag name the
public header does not define (the names are read from
include/kvbudget.h, as are kvb_model's fields and their C types), a row
without a source, a name or alias two rows share, a {source-id} that
data/sources.tsv lacks (or one that no row uses), a reference to a model
or GPU that is not a row.

Python 3 standard library only.  --check validates without writing;
--keep-unchanged leaves a file whose text is the same untouched (web/build.sh
compares modification times; CMake wants every output rewritten).
"""
import argparse
import json
import re
import sys
from pathlib import Path

U32_MAX = (1 << 32) - 1
U64_MAX = (1 << 64) - 1


class DataError(Exception):
    """A problem in the data: where it is and what is wrong."""

    def __init__(self, where, message):
        super().__init__("%s: %s" % (where, message))


def where(path, line=None, row=None):
    text = str(path)
    if line is not None:
        text += ":%d" % line
    if row is not None:
        text += ": row %s" % row
    return text


# ---- the public header: kvb_model's fields, enum and flag names ----

# kvb_model's int32_t fields and the enum each holds.  A new int32_t field
# must be added here (the script refuses to guess).
ENUM_FIELDS = {
    "arch": "kvb_arch",
    "dtype": "kvb_dtype",
    "ssm_state_dtype": "kvb_dtype",
    "rope_scaling_type": "kvb_rope_scaling",
    "vision_kind": "kvb_vision",
}
# Each enum's member prefix, written without it in the data ("LLAMA").
ENUM_PREFIX = {
    "kvb_arch": "KVB_ARCH_",
    "kvb_dtype": "KVB_DTYPE_",
    "kvb_rope_scaling": "KVB_ROPE_",
    "kvb_vision": "KVB_VISION_",
    "kvb_quant_method": "KVB_QUANT_",
}
# Set from the row itself, never from "model".
NOT_DATA_FIELDS = {"struct_size", "name"}


class Header:
    """What the data may name, read from include/kvbudget.h."""

    def __init__(self, path):
        self.path = path
        text = path.read_text()
        self.fields = self._model_fields(text)
        self.enums = {e: self._enum(text, e, prefix)
                      for e, prefix in ENUM_PREFIX.items()}
        self.flags = dict(
            re.findall(r"^#define KVB_MODEL_([A-Z0-9_]+) \(1u << (\d+)\)",
                       text, re.M))
        if not self.flags:
            raise DataError(path, "no KVB_MODEL_* flags found")
        for name, ctype in self.fields.items():
            if ctype == "int32_t" and name not in ENUM_FIELDS:
                raise DataError(path, "kvb_model.%s is an int32_t that "
                                "scripts/gen_presets.py does not know: add "
                                "its enum to ENUM_FIELDS" % name)

    def _model_fields(self, text):
        m = re.search(r"typedef struct kvb_model \{(.*?)\} kvb_model;", text,
                      re.S)
        if not m:
            raise DataError(self.path, "typedef struct kvb_model not found")
        fields = {}
        for ctype, name, size in re.findall(
                r"^\s+(u?int32_t|uint64_t|double|char|size_t)\s+(\w+)"
                r"(?:\[(\d+)\])?;", m.group(1), re.M):
            fields[name] = "char[%s]" % size if ctype == "char" else ctype
        return fields

    def _enum(self, text, name, prefix):
        m = re.search(r"typedef enum %s \{(.*?)\} %s;" % (name, name), text,
                      re.S)
        if not m:
            raise DataError(self.path, "typedef enum %s not found" % name)
        body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
        names = re.findall(r"\b%s([A-Z0-9_]+?)\s*[=,]" % prefix, body)
        return [n for n in names if not n.endswith("_")]  # not LAST_

    def enum_value(self, enum, value, what):
        if not isinstance(value, str) or value not in self.enums[enum]:
            raise ValueError("%s: %s is not a %s; allowed: %s" % (
                what, json.dumps(value), enum, ", ".join(self.enums[enum])))
        return ENUM_PREFIX[enum] + value


# ---- C text ----

def c_string(text, indent, width=79):
    """A C string literal of `text`, split at spaces into adjacent literals
    no wider than `width`; '?' after '?' is escaped (no trigraphs)."""
    def esc(s):
        out = []
        for ch in s:
            if ch in '"\\':
                out.append("\\" + ch)
            elif ch == "?" and out and out[-1].endswith("?"):
                out.append("\\?")
            elif " " <= ch <= "~":
                out.append(ch)
            else:
                out.extend("\\%03o" % b for b in ch.encode("utf-8"))
        return "".join(out)
    if text is None:
        return "NULL"
    room = max(width - indent - 2, 20)
    pieces, cur = [], ""
    for word in re.split(r"(?<= )", text):
        if cur and len(esc(cur + word)) > room:
            pieces.append(cur)
            cur = word
        else:
            cur += word
    pieces.append(cur)
    return ("\n" + " " * indent).join('"%s"' % esc(p) for p in pieces)


def c_unsigned(value, ctype):
    return "%du" % value if ctype == "uint32_t" else "%dull" % value


def file_header(sources):
    return ("/* generated from %s\n"
            " * by scripts/gen_presets.py -- do not edit: change the data and "
            "rebuild\n * (docs/presets.md). */\n" % " and ".join(sources))


def c_table(sources, table, row_type, rows, own_header=False):
    """A generated .c file: the array `table` of `row_type` (`rows`, lines
    of C) and its count, `table`_count."""
    out = [file_header(sources), '#include "internal.h"']
    if own_header:  # a row type of presets/tables.h
        out.append('#include "presets/tables.h"')
    out += ["", "const %s %s[] = {" % (row_type, table)] + rows
    out += ["};", "", "const size_t %s_count =" % table,
            "    KVB__ARRAY_LEN(%s);" % table, ""]
    return "\n".join(out)


# ---- named sources ----

class Sources:
    """data/sources.tsv: id -> text; a source cell writes {id}."""

    def __init__(self, path, rel):
        self.rel = rel
        self.texts, self.lines, self.used = {}, {}, set()
        for line, cells in read_tsv(path, rel, {"id": True, "text": True}):
            sid = cells["id"]
            if not re.fullmatch(r"[a-z0-9][a-z0-9.-]*", sid):
                raise DataError(where(rel, line, sid), "id: lower-case "
                                "letters, digits, '.' and '-' only")
            if sid in self.texts:
                raise DataError(where(rel, line, sid), "id also on line %d"
                                % self.lines[sid])
            if re.search(r"[{}]", cells["text"]):
                raise DataError(where(rel, line, sid), "text: a named "
                                "source may not name another ({ or })")
            self.texts[sid], self.lines[sid] = cells["text"], line

    def expand(self, text, what):
        def one(m):
            sid = m.group(1)
            if sid not in self.texts:
                raise ValueError("%s: {%s} is not an id of %s" % (
                    what, sid, self.rel))
            self.used.add(sid)
            return self.texts[sid]
        out = re.sub(r"\{([^{}]*)\}", one, text)
        if re.search(r"[{}]", out):
            raise ValueError("%s: an unmatched { or }" % what)
        return out

    def check_all_used(self):
        for sid in self.texts:
            if sid not in self.used:
                raise DataError(where(self.rel, self.lines[sid], sid),
                                "no row cites {%s}; remove it" % sid)


# ---- TSV ----

def read_tsv(path, rel, columns):
    """Rows of a TSV file as (line, {column: cell}).  Lines starting with
    '#' and empty lines are comments; the first other line names the
    columns.  `columns` maps each known column to whether it is required
    (present, and no cell of it empty)."""
    header, rows = None, []
    for line, raw in enumerate(path.read_text().split("\n"), 1):
        if raw.endswith("\r"):
            raise DataError(where(rel, line), "CRLF line ending; use LF")
        if not raw.strip() or raw.startswith("#"):
            continue
        cells = raw.split("\t")
        if header is None:
            header = cells
            for c in header:
                if c not in columns:
                    raise DataError(where(rel, line), "unknown column %s; "
                                    "allowed: %s" % (json.dumps(c),
                                                     ", ".join(columns)))
            if len(set(header)) != len(header):
                raise DataError(where(rel, line), "a column named twice")
            for c, required in columns.items():
                if required and c not in header:
                    raise DataError(where(rel, line), "column %s missing"
                                    % c)
            continue
        row = cells[0] or "?"
        if len(cells) != len(header):
            raise DataError(where(rel, line, row), "%d cells, the header has"
                            " %d (cells are separated by one tab)"
                            % (len(cells), len(header)))
        got = dict(zip(header, cells))
        for c, required in columns.items():
            got.setdefault(c, "")
            if got[c] != got[c].strip():
                raise DataError(where(rel, line, row), "%s: spaces around "
                                "the value" % c)
            if required and not got[c]:
                raise DataError(where(rel, line, row), "%s is empty" % c)
        rows.append((line, got))
    if header is None:
        raise DataError(rel, "no header line")
    return rows


def parse_uint(text, what, limit):
    """A decimal integer, optionally followed by KiB, MiB or GiB."""
    m = re.fullmatch(r"(\d+)(?: (KiB|MiB|GiB))?", text)
    if not m:
        raise ValueError("%s: %s is not an integer (N, or N KiB/MiB/GiB)"
                         % (what, json.dumps(text)))
    value = int(m.group(1)) << {None: 0, "KiB": 10, "MiB": 20,
                                "GiB": 30}[m.group(2)]
    if value > limit:
        raise ValueError("%s: %s is over %d" % (what, text, limit))
    return value


def parse_names(text, what):
    names = text.split(",") if text else []
    for n in names:
        if not n or n != n.strip():
            raise ValueError("%s: an empty name or spaces around one in %s"
                             % (what, json.dumps(text)))
    return names


class UniqueNames:
    """No name or alias may match two rows (matching ignores ASCII case,
    as kvb__name_matches does)."""

    def __init__(self, rel):
        self.rel, self.owner = rel, {}

    def add(self, names, row, line):
        for n in set(x.lower() for x in names):
            other = self.owner.get(n)
            if other and other[0] != row:
                raise DataError(where(self.rel, line, row), "%s also names "
                                "row %s (line %d)" % (json.dumps(n),
                                                      other[0], other[1]))
            self.owner[n] = (row, line)


def check_cell(rel, line, row, fn, *args):
    try:
        return fn(*args)
    except ValueError as e:
        raise DataError(where(rel, line, row), str(e))


# ---- models.json ----

MODEL_ROW_KEYS = {
    "name": True, "aliases": True, "published_params": True, "source": True,
    "shapes": False, "model": False, "note": False, "config_file": False,
    "config_edit": False, "config_differs": False,
}


def no_duplicate_keys(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError("key %s given twice in one object"
                             % json.dumps(k))
        out[k] = v
    return out


def check_keys(obj, allowed, what):
    if not isinstance(obj, dict):
        raise ValueError("%s: not an object" % what)
    for k in obj:
        if k not in allowed:
            raise ValueError("%s: unknown key %s; allowed: %s" % (
                what, json.dumps(k), ", ".join(allowed)))
    for k, required in allowed.items():
        if required is True and k not in obj:
            raise ValueError("%s: %s missing" % (what, k))


def need_text(value, what):
    if not isinstance(value, str) or not value:
        raise ValueError("%s: a non-empty string" % what)
    return value


def need_int(value, what, lo, hi):
    if type(value) is not int or not lo <= value <= hi:
        raise ValueError("%s: %s is not an integer in %d..%d"
                         % (what, json.dumps(value), lo, hi))
    return value


class Models:
    def __init__(self, root, rel, header, sources):
        self.rel, self.header, self.sources = rel, header, sources
        text = (root / rel).read_text()
        try:
            data = json.loads(text, object_pairs_hook=no_duplicate_keys)
        except ValueError as e:
            raise DataError(rel, str(e))
        self.lines = text.split("\n")
        try:
            check_keys(data, {"about": False, "shapes": False,
                              "models": True}, "top level")
            self.shapes = self._shapes(data.get("shapes", {}))
        except ValueError as e:
            raise DataError(rel, str(e))
        self.rows, self.names = [], UniqueNames(rel)
        if not isinstance(data["models"], list) or not data["models"]:
            raise DataError(rel, "models: a non-empty list of rows")
        for i, row in enumerate(data["models"]):
            name = row.get("name") if isinstance(row, dict) else None
            line = self._line_of(name)
            label = name if isinstance(name, str) else "models[%d]" % i
            try:
                self.rows.append(self._row(row, root, line))
            except ValueError as e:
                raise DataError(where(rel, line, label), str(e))
        used = set(s for r in self.rows for s in r["shapes"])
        for s in self.shapes:
            if s not in used:
                raise DataError(rel, "shapes.%s: no row uses it" % s)

    def _line_of(self, name):
        needle = '"name": %s' % json.dumps(name)
        for i, text in enumerate(self.lines, 1):
            if needle in text:
                return i
        return None

    def _shapes(self, shapes):
        if not isinstance(shapes, dict):
            raise ValueError("shapes: an object of named shapes")
        out = {}
        for name, shape in shapes.items():
            check_keys(shape, {"note": True, "model": True}, "shapes." + name)
            need_text(shape["note"], "shapes.%s.note" % name)
            out[name] = self._fields(shape["model"], "shapes.%s.model" % name)
        return out

    def _fields(self, model, what):
        """kvb_model fields by name, each checked against its C type."""
        if not isinstance(model, dict):
            raise ValueError("%s: an object of kvb_model fields" % what)
        out = {}
        for k, v in model.items():
            ctype = self.header.fields.get(k)
            if ctype is None or k in NOT_DATA_FIELDS:
                raise ValueError("%s.%s: not a field of kvb_model in "
                                 "include/kvbudget.h%s" % (
                                     what, k, " (the row's name sets it)"
                                     if k == "name" else ""))
            out[k] = self._value(k, ctype, v, "%s.%s" % (what, k))
        return out

    def _value(self, name, ctype, v, what):
        if name == "flags":
            if not isinstance(v, list):
                raise ValueError("%s: a list of KVB_MODEL_* names without "
                                 "the prefix ([\"QK_NORM\"])" % what)
            for f in v:
                if f not in self.header.flags:
                    raise ValueError("%s: %s is not a KVB_MODEL_ flag; "
                                     "allowed: %s" % (what, json.dumps(f),
                                                      ", ".join(
                                                          self.header.flags)))
            if len(set(v)) != len(v):
                raise ValueError("%s: a flag named twice" % what)
            return " | ".join("KVB_MODEL_" + f for f in v) if v else "0"
        if ctype == "int32_t":
            return self.header.enum_value(ENUM_FIELDS[name], v, what)
        if ctype in ("uint32_t", "uint64_t"):
            hi = U32_MAX if ctype == "uint32_t" else U64_MAX
            return c_unsigned(need_int(v, what, 0, hi), ctype)
        if ctype == "double":
            if type(v) not in (int, float) or v != v or v < 0:
                raise ValueError("%s: a non-negative number" % what)
            return repr(float(v))
        if ctype.startswith("char["):
            size = int(ctype[5:-1])
            if not isinstance(v, str) or len(v.encode()) >= size:
                raise ValueError("%s: a string shorter than %d bytes"
                                 % (what, size))
            return c_string(v, 0, 1 << 20)
        raise ValueError("%s: kvb_model field of type %s is not supported"
                         % (what, ctype))

    def _row(self, row, root, line):
        check_keys(row, MODEL_ROW_KEYS, "row")
        name = need_text(row["name"], "name")
        if "," in name:
            raise ValueError("name: no commas")
        aliases = row["aliases"]
        if not isinstance(aliases, list):
            raise ValueError("aliases: a list of names")
        for a in aliases:
            need_text(a, "aliases")
            if "," in a or a != a.strip():
                raise ValueError("aliases: %s has a comma or spaces around"
                                 % json.dumps(a))
        self.names.add([name] + aliases, name, line)
        params = need_int(row["published_params"], "published_params", 1,
                          U64_MAX)
        source = row["source"]
        check_keys(source, {"config": True, "params": True}, "source")
        config = self.sources.expand(need_text(source["config"],
                                               "source.config"),
                                     "source.config")
        count = self.sources.expand(need_text(source["params"],
                                              "source.params"),
                                    "source.params")
        if "note" in row:
            need_text(row["note"], "note")
        shapes = row.get("shapes", [])
        if not isinstance(shapes, list):
            raise ValueError("shapes: a list of names of the shapes table")
        if not shapes and "model" not in row:
            raise ValueError("model missing (or name shapes)")
        fields, origin = {}, {}
        for s in shapes:
            if s not in self.shapes:
                raise ValueError("shapes: %s is not in the shapes table; "
                                 "allowed: %s" % (json.dumps(s), ", ".join(
                                     self.shapes)))
            for k, v in self.shapes[s].items():
                if k in fields:
                    raise ValueError("%s: set by shapes %s and %s"
                                     % (k, origin[k], s))
                fields[k], origin[k] = v, "shape " + s
        for k, v in self._fields(row.get("model", {}), "model").items():
            if k in fields:
                raise ValueError("model.%s: also set by %s; a field comes "
                                 "from one place" % (k, origin[k]))
            fields[k] = v
        order = list(self.header.fields)
        fields = {k: fields[k] for k in sorted(fields, key=order.index)}
        return {"name": name, "aliases": aliases, "params": params,
                "source": "config: %s; parameter count: %s" % (config, count),
                "shapes": shapes, "fields": fields,
                "check": self._config_check(row, root)}

    def _config_check(self, row, root):
        if "config_file" not in row:
            for k in ("config_edit", "config_differs"):
                if k in row:
                    raise ValueError("%s without config_file" % k)
            return None
        path = need_text(row["config_file"], "config_file")
        prefix = "tests/data/"
        if not path.startswith(prefix + "configs/") or \
                not (root / path).is_file():
            raise ValueError("config_file: %s is not a file under "
                             "tests/data/configs/" % json.dumps(path))
        edit = row.get("config_edit")
        if edit is not None:
            check_keys(edit, {"from": True, "to": True, "why": True},
                       "config_edit")
            for k in ("from", "to", "why"):
                need_text(edit[k], "config_edit." + k)
            found = (root / path).read_text().count(edit["from"])
            if found != 1:
                raise ValueError("config_edit.from occurs %d times in %s; "
                                 "it must occur once" % (found, path))
        differs = row.get("config_differs", {})
        if not isinstance(differs, dict):
            raise ValueError("config_differs: an object field -> why")
        for k, why in differs.items():
            if k not in self.header.fields or k in NOT_DATA_FIELDS:
                raise ValueError("config_differs.%s: not a field of "
                                 "kvb_model" % k)
            need_text(why, "config_differs." + k)
        return {"file": path[len(prefix):],
                "from": edit["from"] if edit else None,
                "to": edit["to"] if edit else None,
                "differs": list(differs)}

    def c_file(self, sources_rel):
        out = []
        for r in self.rows:
            out.append("    {%s," % c_string(r["name"], 5))
            out.append("     %s," % c_string(",".join(r["aliases"]), 5))
            out.append("     %s," % c_string(r["source"], 5))
            out.append("     %dull," % r["params"])
            out.append("     {")
            for k, v in r["fields"].items():
                out.append("         .%s = %s," % (k, v))
            out.append("     }},")
        return c_table([self.rel, sources_rel], "kvb__model_rows",
                       "kvb__model_row", out)

    def check_header(self):
        kinds = {"uint32_t": "U", "uint64_t": "U", "int32_t": "I",
                 "double": "D"}
        fields = [(k, kinds.get(t, "S")) for k, t in self.header.fields.items()
                  if k not in NOT_DATA_FIELDS]
        out = [file_header([self.rel]),
               "/* Every field of kvb_model but struct_size and name, as",
               " * include/kvbudget.h declares it: X(field, kind), kind U",
               " * (unsigned), I (int32_t), D (double) or S (char array). */",
               "#define KVB__MODEL_FIELDS(X) \\"]
        out += ["    X(%s, %s) \\" % f for f in fields]
        out += ["", "/* Each model preset with a config_file: X(preset, file",
                " * under tests/data, text to replace or NULL, its",
                " * replacement, the fields data/models.json explains as",
                " * different, comma-separated). */",
                "#define KVB__PRESET_CONFIGS(X) \\"]
        for r in self.rows:
            c = r["check"]
            if c:
                out.append("    X(%s, %s, %s, %s, %s) \\" % (
                    c_string(r["name"], 0, 1 << 20),
                    c_string(c["file"], 0, 1 << 20),
                    c_string(c["from"], 0, 1 << 20),
                    c_string(c["to"], 0, 1 << 20),
                    c_string(",".join(c["differs"]), 0, 1 << 20)))
        out += ["", ""]
        return "\n".join(out)


# ---- the TSV tables ----

def cuda_capability(text, what):
    """"8.6" -> 86 (major*10 + minor); "-" -> 0, none (AMD)."""
    if text == "-":
        return 0
    m = re.fullmatch(r"(\d+)\.(\d)", text)
    if not m:
        raise ValueError("%s: %s is not major.minor (8.6) or -" % (
            what, json.dumps(text)))
    return int(m.group(1)) * 10 + int(m.group(2))


class Gpus:
    COLUMNS = {"name": True, "device_names": False, "aliases": False,
               "total_bytes": True, "compute_capability": True,
               "multiprocessor_count": True, "source": True, "note": False}

    def __init__(self, root, rel, sources):
        self.rel, self.rows = rel, []
        names = UniqueNames(rel)
        for line, c in read_tsv(root / rel, rel, self.COLUMNS):
            name = c["name"]

            def one(name=name, c=c):
                device = parse_names(c["device_names"], "device_names")
                aliases = parse_names(c["aliases"], "aliases")
                total = parse_uint(c["total_bytes"], "total_bytes", U64_MAX)
                if total == 0:
                    raise ValueError("total_bytes: 0")
                sms = parse_uint(c["multiprocessor_count"],
                                 "multiprocessor_count", U32_MAX)
                if sms == 0:
                    raise ValueError("multiprocessor_count: 0")
                return {"name": name, "aliases": device + aliases,
                        "source": sources.expand(c["source"], "source"),
                        "total": total, "mib": c["total_bytes"],
                        "cc": cuda_capability(c["compute_capability"],
                                              "compute_capability"),
                        "sms": sms}
            row = check_cell(rel, line, name, one)
            names.add([name] + row["aliases"], name, line)
            self.rows.append(row)

    def c_file(self, sources_rel):
        out = []
        for r in self.rows:
            out.append("    {%s," % c_string(r["name"], 5))
            out.append("     %s," % c_string(",".join(r["aliases"]), 5))
            out.append("     %s," % c_string(r["source"], 5))
            out.append("     %dull /* %s */, %du, %du}," % (
                r["total"], r["mib"], r["cc"], r["sms"]))
        return c_table([self.rel, sources_rel], "kvb__gpu_rows",
                       "kvb__gpu_row", out)

class Instances:
    COLUMNS = {"name": True, "cloud": True, "gpu": True, "gpu_count": True,
               "vcpus": True, "host_memory_bytes": True,
               "price_per_hour": True, "source": True, "note": False}

    def __init__(self, root, rel, sources, gpus):
        self.rel, self.rows = rel, []
        names = UniqueNames(rel)
        gpu_names = set(g["name"] for g in gpus.rows)
        for line, c in read_tsv(root / rel, rel, self.COLUMNS):
            name = c["name"]

            def one(c=c):
                if c["gpu"] not in gpu_names:
                    raise ValueError("gpu: %s is not a name of %s" % (
                        json.dumps(c["gpu"]), gpus.rel))
                if not re.fullmatch(r"\d+(\.\d+)?", c["price_per_hour"]):
                    raise ValueError("price_per_hour: %s is not a decimal "
                                     "number (0: unknown)" % json.dumps(
                                         c["price_per_hour"]))
                if not re.fullmatch(r"[a-z]+", c["cloud"]):
                    raise ValueError("cloud: lower-case letters (aws, gcp, "
                                     "azure)")
                return dict(c, gpu_count=parse_uint(
                    c["gpu_count"], "gpu_count", U32_MAX),
                    vcpus=parse_uint(c["vcpus"], "vcpus", U32_MAX),
                    memory=parse_uint(c["host_memory_bytes"],
                                      "host_memory_bytes", U64_MAX),
                    source=sources.expand(c["source"], "source"))
            row = check_cell(rel, line, name, one)
            names.add([name], name, line)
            self.rows.append(row)

    def c_file(self, sources_rel):
        out = []
        for r in self.rows:
            out.append("    {%s, %s, %s, %du, %du, %dull /* %s */, %s," % (
                c_string(r["name"], 5), c_string(r["cloud"], 5),
                c_string(r["gpu"], 5), r["gpu_count"], r["vcpus"],
                r["memory"], r["host_memory_bytes"], r["price_per_hour"]))
            out.append("     %s}," % c_string(r["source"], 5))
        return c_table([self.rel, sources_rel], "kvb__instance_rows",
                       "kvb__instance_row", out)

class Checkpoints:
    COLUMNS = {"model": True, "method": True, "repo": True,
               "published_bytes": False, "source": True, "note": False}

    def __init__(self, root, rel, sources, header, models):
        self.rel, self.rows = rel, []
        model_names = set(m["name"] for m in models.rows)
        seen, repos = {}, {}
        for line, c in read_tsv(root / rel, rel, self.COLUMNS):
            label = c["repo"] or c["model"]

            def one(c=c):
                if c["model"] not in model_names:
                    raise ValueError("model: %s is not a name of %s" % (
                        json.dumps(c["model"]), models.rel))
                if c["repo"].count("/") != 1:
                    raise ValueError("repo: owner/name")
                return dict(c, method=header.enum_value(
                    "kvb_quant_method", c["method"], "method"),
                    bytes=parse_uint(c["published_bytes"] or "0",
                                     "published_bytes", U64_MAX),
                    source=sources.expand(c["source"], "source"))
            row = check_cell(rel, line, label, one)
            key = (row["model"].lower(), row["method"])
            if key in seen:
                raise DataError(where(rel, line, label), "%s %s is also on "
                                "line %d (the lookup would never reach this "
                                "row)" % (row["model"], c["method"],
                                          seen[key]))
            if row["repo"].lower() in repos:
                raise DataError(where(rel, line, label), "repo also on line "
                                "%d" % repos[row["repo"].lower()])
            seen[key], repos[row["repo"].lower()] = line, line
            self.rows.append(row)

    def c_file(self, sources_rel):
        out = []
        for r in self.rows:
            out.append("    {%s, %s," % (c_string(r["model"], 5),
                                         r["method"]))
            out.append("     %s," % c_string(r["repo"], 5))
            out.append("     %s," % c_string(r["source"], 5))
            out.append("     %dull}," % r["bytes"])
        return c_table([self.rel, sources_rel], "kvb__checkpoint_rows",
                       "kvb__checkpoint_row", out, own_header=True)

class OllamaTags:
    COLUMNS = {"name": True, "preset": True, "method": True, "source": True,
               "note": False}

    def __init__(self, root, rel, sources, header, models):
        self.rel, self.rows = rel, []
        model_names = set(m["name"] for m in models.rows)
        names = UniqueNames(rel)
        for line, c in read_tsv(root / rel, rel, self.COLUMNS):
            name = c["name"]

            def one(c=c):
                # kvb__ollama_tag_find cuts a name at the first '-' after
                # the ':' (the flavour and quantization tail).
                if not re.fullmatch(r"[a-z0-9][a-z0-9.-]*:[a-z0-9.]+",
                                    c["name"]):
                    raise ValueError("name: NAME:SIZE in lower case, no '-' "
                                     "or '/' after the ':'")
                if c["preset"] not in model_names:
                    raise ValueError("preset: %s is not a name of %s" % (
                        json.dumps(c["preset"]), models.rel))
                sources.expand(c["source"], "source")  # checked, not kept
                return dict(c, method=header.enum_value(
                    "kvb_quant_method", c["method"], "method"))
            row = check_cell(rel, line, name, one)
            names.add([name], name, line)
            self.rows.append(row)

    def c_file(self, sources_rel):
        out = ["    {%s, %s, %s}," % (c_string(r["name"], 5),
                                      c_string(r["preset"], 5), r["method"])
               for r in self.rows]
        # the sources are checked, not compiled in: nothing reads them
        return c_table([self.rel], "kvb__ollama_tag_rows",
                       "kvb__ollama_tag_row", out, own_header=True)

# ---- main ----

def generate(root):
    """{file name: text} for every output, or DataError."""
    sources_rel = "data/sources.tsv"
    header = Header(root / "include" / "kvbudget.h")
    sources = Sources(root / sources_rel, sources_rel)
    models = Models(root, "data/models.json", header, sources)
    gpus = Gpus(root, "data/gpus.tsv", sources)
    instances = Instances(root, "data/instances.tsv", sources, gpus)
    checkpoints = Checkpoints(root, "data/checkpoints.tsv", sources, header,
                              models)
    tags = OllamaTags(root, "data/ollama_tags.tsv", sources, header, models)
    sources.check_all_used()
    return {
        "presets_models.c": models.c_file(sources_rel),
        "presets_gpus.c": gpus.c_file(sources_rel),
        "presets_instances.c": instances.c_file(sources_rel),
        "presets_checkpoints.c": checkpoints.c_file(sources_rel),
        "presets_ollama_tags.c": tags.c_file(sources_rel),
        "presets_config_checks.h": models.check_header(),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent
                                          .parent),
                    help="the repository (default: this script's)")
    ap.add_argument("--out", help="where the generated files go")
    ap.add_argument("--check", action="store_true",
                    help="validate the data, write nothing")
    ap.add_argument("--keep-unchanged", action="store_true",
                    help="do not rewrite a file whose text is the same")
    args = ap.parse_args()
    if not args.check and not args.out:
        ap.error("--out DIR or --check")
    try:
        files = generate(Path(args.root))
    except DataError as e:
        print("gen_presets: %s" % e, file=sys.stderr)
        return 1
    if args.check:
        return 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = out / name
        if args.keep_unchanged and path.is_file() and \
                path.read_text() == text:
            continue
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
