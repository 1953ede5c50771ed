"""Arguments ctypes would take silently: out-of-range integers (wrapped),
text with a NUL byte (cut), an int where text is expected (NUL bytes),
threads=0 (clamped).  Each raises as Python's own APIs do (issue 11)."""
import unittest

import support  # noqa: F401  (library path)

import kvbudget
from kvbudget import _capi


class TestHostileArguments(unittest.TestCase):
    def setUp(self):
        self.model = kvbudget.model("Llama-3.1-8B")

    def test_integers_out_of_range(self):
        # 2**32 + 1 would reach C as TP 1
        with self.assertRaises(kvbudget.KvbERANGE) as cm:
            kvbudget.kv_bytes_per_token(self.model, None, 2**32 + 1)
        self.assertIn("4294967297", str(cm.exception))
        self.assertIsInstance(cm.exception, ValueError)
        with self.assertRaises(kvbudget.KvbERANGE):
            kvbudget.kv_bytes_per_token(self.model, None, -1)
        # 2**40 would be status 0, "KVB_OK"
        with self.assertRaises(kvbudget.KvbERANGE):
            kvbudget.status_name(2**40)
        with self.assertRaises(kvbudget.KvbERANGE):
            kvbudget.strerror(-2**40)
        self.assertEqual(kvbudget.status_name(2), "KVB_ERANGE")
        # the same at the 1:1 layer
        with self.assertRaises(kvbudget.KvbERANGE):
            _capi.library().kvb_status_name(2**31)

    def test_text_with_nul(self):
        with self.assertRaisesRegex(ValueError, "null byte"):
            kvbudget.read_model("/tmp/config.json\0ignored")
        with self.assertRaisesRegex(ValueError, "null byte"):
            _capi.library().kvb_arch_find(b"llama\0x", None, None)

    def test_int_where_text(self):
        with self.assertRaises(TypeError):
            kvbudget.parse_log(5)
        with self.assertRaises(TypeError):
            _capi.library().kvb_arch_find(5, None, None)

    def test_threads_zero(self):
        with self.assertRaises(kvbudget.KvbERANGE) as cm:
            kvbudget.plan_batch("Llama-3.1-8B", "L4", threads=0)
        self.assertIn("threads", str(cm.exception))
        r = kvbudget.plan_batch("Llama-3.1-8B", "L4", threads=1)
        self.assertEqual(len(r), 1)


if __name__ == "__main__":
    unittest.main()
