"""kvbudget.check(): the article's Deployment (Scout AWQ on a g5.xlarge,
shared/seed-000_09a2755b7cc95e21.txt) from a path and from text."""

import os
import unittest

import support

import kvbudget

MANIFESTS = os.path.join(support.SOURCE_DIR, "tests", "data", "manifests")
SEED = os.path.join(MANIFESTS, "seed-scout-g5-xlarge.yaml")


class TestCheck(unittest.TestCase):

    def test_path(self):
        r = kvbudget.check(SEED)
        self.assertEqual(r["not_understood"], [])
        d = r["deployments"][0]
        self.assertEqual(d["file"], SEED)
        self.assertEqual((d["kind"], d["name"], d["container"]),
                         ("Deployment", "vllm-llama-scout", "vllm"))
        self.assertEqual(d["verdict"], "fails")
        self.assertEqual(d["plan"]["verdict"], "weights_exceed_budget")
        # the same weights `kvbudget plan` gives (59.20 GiB per GPU)
        p = kvbudget.plan("Llama-4-Scout-17B-16E", quant="awq",
                          instance="g5.xlarge", max_model_len=32768,
                          gpu_memory_utilization=0.9, engine="vllm@0.8.5")
        self.assertEqual(d["plan"]["weights_bytes_per_gpu"],
                         p.weights_bytes_per_gpu)
        self.assertTrue(any(f["fits"] for f in d["fixes"]))

    def test_text_and_options(self):
        with open(SEED, encoding="utf-8") as f:
            text = f.read()
        text = text.replace("        node.kubernetes.io/instance-type: "
                            "g5.xlarge\n", "        app: x\n")
        d = kvbudget.check(text)["deployments"][0]
        self.assertEqual(d["verdict"], "unknown")
        d = kvbudget.check(text, instance="g5.12xlarge")["deployments"][0]
        self.assertEqual(d["verdict"], "fails")  # TP 1: still one A10G
        fixed = kvbudget.check_fix(SEED)
        self.assertIn("--tensor-parallel-size", fixed)
        self.assertEqual(kvbudget.check(fixed)["deployments"][0]["verdict"],
                         "fits")

    def test_invalid_yaml(self):
        with self.assertRaises(kvbudget.KvbError) as cm:
            kvbudget.check("a: [b\nc: d\n")
        self.assertIn("invalid YAML", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
