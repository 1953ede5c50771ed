"""The Python mirrors equal the C library: structs field by field (the
library's own layout report), the prototype table against the header, the
enum and flag mirrors against the header and the name functions, and the
dataclasses against the structs."""

import ctypes
import dataclasses
import re
import unittest

import support  # noqa: F401  (paths)

import kvbudget
from kvbudget import _capi, _enums, _types


def c_layout():
    """{struct: (size, [(field, type, offset, size)])} from the library."""
    lib = _capi.library()
    out = {}
    err = _capi.Error()
    for i in range(lib.kvb_layout_count()):
        name, size, nfields = (ctypes.c_char_p(), ctypes.c_size_t(),
                               ctypes.c_size_t())
        lib.kvb_layout_struct_get(i, ctypes.byref(name), ctypes.byref(size),
                                  ctypes.byref(nfields), err)
        fields = []
        for f in range(nfields.value):
            fname, ftype = ctypes.c_char_p(), ctypes.c_char_p()
            off, fsize = ctypes.c_size_t(), ctypes.c_size_t()
            lib.kvb_layout_field_get(i, f, ctypes.byref(fname),
                                     ctypes.byref(ftype), ctypes.byref(off),
                                     ctypes.byref(fsize), err)
            fields.append((fname.value.decode(), ftype.value.decode(),
                           off.value, fsize.value))
        out[name.value.decode()] = (size.value, fields)
    return out


def header_text():
    with open(support.HEADER, encoding="utf-8") as f:
        return f.read()


class TestStructLayout(unittest.TestCase):
    """Every public struct, every field: the proof that the ctypes mirrors
    match what the library was compiled with."""

    def test_every_c_struct_is_mirrored_exactly(self):
        layout = c_layout()
        # the ten structs of 0.1 at least (a new one needs a mirror)
        self.assertGreaterEqual(len(layout), 10)
        for c_name, (size, fields) in layout.items():
            with self.subTest(struct=c_name):
                self.assertIn(c_name, _capi.STRUCTS,
                              f"{c_name} has no ctypes mirror in _capi.py")
                cls = _capi.STRUCTS[c_name]
                self.assertEqual(ctypes.sizeof(cls), size)
                py_fields = [f[0] for f in cls._fields_]
                self.assertEqual(py_fields, [f[0] for f in fields],
                                 "field names or order differ")
                for fname, ftype, off, fsize in fields:
                    desc = getattr(cls, fname)
                    self.assertEqual(desc.offset, off, f"{c_name}.{fname}")
                    self.assertEqual(desc.size, fsize, f"{c_name}.{fname}")
                    self.assertEqual(cls._c_types_[fname], ftype,
                                     f"{c_name}.{fname} C type")

    def test_every_mirror_is_a_c_struct(self):
        layout = c_layout()
        for c_name in _capi.STRUCTS:
            self.assertIn(c_name, layout, f"{c_name} is not in the library")

    def test_every_header_struct_is_in_the_layout_report(self):
        declared = set(re.findall(r"^typedef struct (kvb_\w+) \{",
                                  header_text(), re.M))
        self.assertIn("kvb_plan", declared)
        missing = declared - set(c_layout())
        self.assertFalse(missing, "structs of include/kvbudget.h missing "
                         "from lib/core/layout.c: " + ", ".join(sorted(missing)))

    def test_layout_report_errors(self):
        lib = _capi.library()
        n = lib.kvb_layout_count()
        with self.assertRaises(kvbudget.KvbERANGE) as cm:
            lib.kvb_layout_struct_get(n, None, None, None, _capi.Error())
        self.assertEqual(cm.exception.field, "index")
        with self.assertRaises(kvbudget.KvbERANGE) as cm:
            lib.kvb_layout_field_get(0, 1000, None, None, None, None,
                                     _capi.Error())
        self.assertEqual(cm.exception.field, "field")


class TestPrototypes(unittest.TestCase):

    def test_every_header_function_has_a_row(self):
        """curl test1119's idea: the header and _FUNCTIONS agree."""
        text = header_text()
        declared = set(re.findall(
            r"^KVB_API\b[^\n]*\n[^(]*?\b(kvb_\w+)\(", text, re.M))
        self.assertIn("kvb_plan_compute", declared)
        rows = {row[0] for row in _capi._FUNCTIONS}
        self.assertFalse(declared - rows,
                         "KVB_API functions without a _FUNCTIONS row: "
                         + ", ".join(sorted(declared - rows)))
        self.assertFalse(rows - declared,
                         "_FUNCTIONS rows not in the header: "
                         + ", ".join(sorted(rows - declared)))

    def test_rows_are_complete(self):
        for name, argtypes, restype, errcheck in _capi._FUNCTIONS:
            with self.subTest(function=name):
                func = getattr(_capi.library(), name)
                self.assertEqual(func.argtypes, argtypes)
                self.assertIs(func.restype, restype)
                if restype is ctypes.c_int:  # every status return is checked
                    self.assertIsNotNone(errcheck)


def header_map(text, name):
    """{NAME: value} of an X-macro table `#define <name>(XX) ...`."""
    table = re.search(r"#define %s\(XX\)(.*?)\n\n" % name, text,
                      re.S).group(1)
    return {n: int(v) for n, v in re.findall(r"XX\((\w+),\s*(\d+)", table)}


def header_enum(c_enum):
    """{NAME: value} of a `typedef enum <c_enum> {...}` block, or of the
    X-macro table `map:<NAME>`."""
    text = header_text()
    if c_enum.startswith("map:"):
        return header_map(text, c_enum[4:])
    m = re.search(r"typedef enum %s \{(.*?)\} %s;" % (c_enum, c_enum), text,
                  re.S)
    if m is None:
        raise AssertionError(f"no enum {c_enum} in the header")
    body = m.group(1)
    mapping = re.search(r"(KVB_\w+_MAP)\(", body)
    if mapping:  # an X-macro enum: read its table
        return header_map(text, mapping.group(1))
    return {n: int(v) for n, v in re.findall(r"KVB_(\w+) = (\d+)", body)}


class TestEnums(unittest.TestCase):
    # mirror, C enum, prefix of the C names
    ENUMS = [
        (kvbudget.Arch, "kvb_arch", "ARCH_"),
        (kvbudget.Dtype, "kvb_dtype", "DTYPE_"),
        (kvbudget.QuantMethod, "kvb_quant_method", "QUANT_"),
        (kvbudget.Fp8Scale, "kvb_fp8_scale", "FP8_SCALE_"),
        (kvbudget.TensorRole, "kvb_tensor_role", "ROLE_"),
        (kvbudget.Storage, "kvb_storage", "STORAGE_"),
        (kvbudget.Split, "kvb_split", "SPLIT_"),
        (kvbudget.Engine, "kvb_engine", "ENGINE_"),
        (kvbudget.Accounting, "kvb_accounting", "ACCOUNTING_"),
        (kvbudget.Verdict, "kvb_verdict", ""),
        (kvbudget.Status, "kvb_status", ""),
        (kvbudget.FixKind, "kvb_fix_kind", ""),
        (kvbudget.RenderFormat, "kvb_render_format", "RENDER_"),
        (kvbudget.LogFailure, "kvb_log_failure", ""),
        (kvbudget.LogPhase, "kvb_log_phase", "LOG_PHASE_"),
        (kvbudget.LogFact, "map:KVB_LOG_FACT_MAP", ""),
        (kvbudget.Format, "kvb_format", "FORMAT_"),
        (kvbudget.ReadField, "kvb_read_field", ""),
        (kvbudget.RefSource, "kvb_ref_source", "REF_SOURCE_"),
        (kvbudget.Stage, "kvb_stage", ""),
        (kvbudget.Vision, "kvb_vision", "VISION_"),
    ]

    def test_mirrors_equal_the_header(self):
        for py, c_enum, prefix in self.ENUMS:
            with self.subTest(enum=c_enum):
                c = {k[len(prefix):]: v
                     for k, v in header_enum(c_enum).items()
                     if k.startswith(prefix) and not k.endswith("LAST_")}
                self.assertEqual({m.name: int(m) for m in py}, c)

    def test_mirrors_equal_the_name_functions(self):
        lib = _capi.library()
        for py, fn in _enums.NAME_FUNCTIONS.items():
            with self.subTest(enum=py.__name__):
                name_of = getattr(lib, fn)
                for member in py:
                    name = name_of(int(member))
                    self.assertIsNotNone(name, f"{fn}({int(member)})")
                    if py is kvbudget.Status:
                        self.assertEqual(name, "KVB_" + member.name)
                # one past the last value is unknown to the library too
                past = name_of(max(py) + 1)
                self.assertIn(past, (None, "KVB_UNKNOWN"))
        # names that are spelled from the member name
        self.assertEqual(lib.kvb_arch_name(kvbudget.Arch.QWEN3_MOE),
                         "qwen3_moe")
        self.assertEqual(lib.kvb_quant_method_name(
            kvbudget.QuantMethod.AWQ_4), "awq-4")
        self.assertEqual(lib.kvb_verdict_name(kvbudget.Verdict.FITS), "fits")

    def test_flags_equal_the_header(self):
        text = header_text()
        for py, prefix, names in (
                (kvbudget.ModelFlag, "KVB_MODEL_", None),
                (kvbudget.QuantFlag, "KVB_QUANT_",
                 ("DESC_ACT", "BNB_NO_DOUBLE")),
                (kvbudget.LogKnown, "KVB_LOG_KNOWN_", None)):
            c = {n: 1 << int(b) for n, b in re.findall(
                r"#define %s(\w+) \(1u << (\d+)\)" % prefix, text)}
            if names:
                c = {k: v for k, v in c.items() if k in names}
            self.assertEqual({m.name: int(m) for m in py}, c)
        # bit sets written as plain values (KVB_MM_IMAGE 1u ...)
        for py, prefix in ((kvbudget.Multimodal, "KVB_MM_"),
                           (kvbudget.Mmproj, "KVB_MMPROJ_")):
            c = {n: int(v) for n, v in re.findall(
                r"#define %s(\w+) +(\d+)u" % prefix, text) if n != "ALL"}
            self.assertEqual({m.name: int(m) for m in py}, c)

    def test_status_classes_are_generated_from_the_table(self):
        lib = _capi.library()
        for s in kvbudget.Status:
            if s is kvbudget.Status.OK:
                continue
            name = lib.kvb_status_name(int(s))
            cls = getattr(kvbudget, "Kvb" + name[4:])
            self.assertIs(kvbudget.error_class(int(s)), cls)
            self.assertTrue(issubclass(cls, kvbudget.KvbError))


class TestDataclasses(unittest.TestCase):

    def test_fields_are_the_struct_fields(self):
        for c_name, dc in _types.DATACLASSES.items():
            with self.subTest(struct=c_name):
                want = [f[0] for f in _capi.STRUCTS[c_name]._fields_
                        if f[0] != "struct_size"]
                self.assertEqual([f.name for f in dataclasses.fields(dc)],
                                 want)

    def test_defaults_are_the_c_defaults(self):
        """A dataclass made without arguments equals the C init's struct."""
        for dc in (kvbudget.Model, kvbudget.Quant, kvbudget.Gpu,
                   kvbudget.Serving, kvbudget.Instance, kvbudget.Weights,
                   kvbudget.Plan):
            with self.subTest(dataclass=dc.__name__):
                self.assertEqual(_types.default_of(dc), dc())

    def test_round_trip(self):
        m = kvbudget.model("Qwen3-30B-A3B")
        self.assertEqual(kvbudget.Model.from_c(m.to_c()), m)
        s = kvbudget.serving(max_model_len=4096, engine="vllm@0.11")
        self.assertEqual(s.engine_version, 1100)
        self.assertEqual(kvbudget.Serving.from_c(s.to_c()), s)


if __name__ == "__main__":
    unittest.main()
