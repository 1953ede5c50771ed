"""The examples run, with small inputs, and say what the library says."""

import csv
import os
import subprocess
import sys
import tempfile
import unittest

import support

import kvbudget

EXAMPLES = os.path.join(support.BINDINGS, "examples")


def run(script, *args):
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, script)]
                       + list(args), capture_output=True, text=True,
                       timeout=300)
    return r


class TestCheapestInstance(unittest.TestCase):

    def write_prices(self, d):
        path = os.path.join(d, "prices.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["name", "cloud", "gpu", "gpu_count",
                        "price_per_hour"])
            gpu = kvbudget.presets.gpus()[0].name
            w.writerow(["one", "demo", gpu, 1, "1.50"])
            w.writerow(["four", "demo", gpu, 4, "5.00"])
        return path, gpu

    def test_price_table(self):
        with tempfile.TemporaryDirectory(dir=support.TMP) as d:
            prices, gpu = self.write_prices(d)
            r = run("cheapest_instance.py", "Llama-3.1-8B", "--context",
                    "8192", "--concurrency", "2", "--quant", "auto,awq-4",
                    "--tp", "1,2", "--prices", prices)
        self.assertEqual(r.returncode, 0, r.stderr)
        # the one-GPU instance is cheaper; AWQ-4 holds the most sequences
        # there, and the library agrees with the table's figure
        p = kvbudget.plan("Llama-3.1-8B", "awq-4", gpu, max_model_len=8192,
                          concurrency=2)
        self.assertTrue(p.fits)
        self.assertIn("cheapest: one ($1.500/h) with awq-4, TP 1, "
                      "1 replica(s)", r.stdout)
        self.assertIn(f"{p.max_concurrency:>9.2f}", r.stdout)

    def test_nothing_fits(self):
        with tempfile.TemporaryDirectory(dir=support.TMP) as d:
            prices, _ = self.write_prices(d)
            r = run("cheapest_instance.py", "Llama-3.1-405B", "--context",
                    "131072", "--concurrency", "64", "--prices", prices)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("nothing fits", r.stdout)

    def test_presets(self):
        r = run("cheapest_instance.py", "Llama-3.2-1B", "--context", "4096")
        self.assertIn(r.returncode, (0, 1, 2), r.stderr)
        self.assertTrue(r.stdout or r.stderr)


class TestPlotConcurrency(unittest.TestCase):

    def test_table_and_png(self):
        gpus = [g.name for g in kvbudget.presets.gpus()][:2]
        with tempfile.TemporaryDirectory(dir=support.TMP) as d:
            out = os.path.join(d, "c.png")
            r = run("plot_concurrency.py", "Llama-3.1-8B", "--gpus",
                    ",".join(gpus), "--quant", "awq-4", "--min-len", "4096",
                    "--max-len", "16384", "--per-octave", "1", "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            if support.HAVE_MATPLOTLIB:
                with open(out, "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
                self.assertIn(f"wrote {out}", r.stdout)
            else:
                self.assertFalse(os.path.exists(out))
                self.assertIn("matplotlib is not installed", r.stdout)
        # the table's 8192 row is the library's concurrency at 8192
        p = kvbudget.plan("Llama-3.1-8B", "awq-4", gpus[0],
                          max_model_len=8192)
        row = [ln for ln in r.stdout.splitlines()
               if ln.split() and ln.split()[0] == "8192"]
        self.assertEqual(len(row), 1, r.stdout)
        self.assertEqual(row[0].split()[1], f"{p.max_concurrency:.2f}")


if __name__ == "__main__":
    unittest.main()
