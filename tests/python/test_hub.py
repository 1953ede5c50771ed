"""Model references from Python and from the command: the stand-in Hub
(tests/hub/standin.py, in this process, on 127.0.0.1), the Hugging Face
cache it fills with --cache, and an Ollama store; nothing leaves the
machine."""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

import support  # noqa: F401  (sys.path)
import kvbudget

sys.path.insert(0, os.path.join(support.SOURCE_DIR, "tests", "hub"))
import standin  # noqa: E402

CLI = os.environ.get("KVB_CLI")

CONFIG = {"model_type": "llama", "hidden_size": 256,
          "intermediate_size": 512, "num_hidden_layers": 2,
          "num_attention_heads": 4, "num_key_value_heads": 2,
          "vocab_size": 1000, "max_position_embeddings": 4096,
          "torch_dtype": "bfloat16", "tie_word_embeddings": False}


def layer(i):
    p = "model.layers.%d." % i
    return [(p + "self_attn.q_proj.weight", [256, 256]),
            (p + "self_attn.k_proj.weight", [128, 256]),
            (p + "self_attn.v_proj.weight", [128, 256]),
            (p + "self_attn.o_proj.weight", [256, 256]),
            (p + "mlp.gate_proj.weight", [512, 256]),
            (p + "mlp.up_proj.weight", [512, 256]),
            (p + "mlp.down_proj.weight", [256, 512]),
            (p + "input_layernorm.weight", [256]),
            (p + "post_attention_layernorm.weight", [256])]


SHARDS = {
    "model-00001-of-00002.safetensors":
        [("model.embed_tokens.weight", [1000, 256])] + layer(0),
    "model-00002-of-00002.safetensors":
        layer(1) + [("model.norm.weight", [256]),
                    ("lm_head.weight", [1000, 256])],
}
# embed 512000 + 2 layers x 1180672 + norm 512 + lm_head 512000 (BF16)
TINY_BYTES = 3385856


def write_shard(path, tensors):
    """Header only; the data is a hole (a sparse file)."""
    header, off = {"__metadata__": {"format": "pt"}}, 0
    for name, shape in tensors:
        n = 2
        for d in shape:
            n *= d
        header[name] = {"dtype": "BF16", "shape": shape,
                        "data_offsets": [off, off + n]}
        off += n
    raw = json.dumps(header, separators=(",", ":")).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw)
        f.truncate(8 + len(raw) + off)


def write_repo(d):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(CONFIG, f)
    wm = {n: s for s, ts in SHARDS.items() for n, _ in ts}
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": TINY_BYTES},
                   "weight_map": wm}, f)
    for s, ts in SHARDS.items():
        write_shard(os.path.join(d, s), ts)


class HubTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=support.TMP)
        cls.root = os.path.join(cls.tmp, "hub")
        write_repo(os.path.join(cls.root, "org", "tiny"))
        write_repo(os.path.join(cls.root, "org", "gated"))
        with open(os.path.join(cls.root, "org", "gated", ".hub.json"),
                  "w") as f:
            json.dump({"token": "hf_good"}, f)
        cls.server, cls.url = standin.start(cls.root)

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()
        shutil.rmtree(cls.tmp)

    def setUp(self):
        if not kvbudget.hub_built():
            self.skipTest("built without the Hub (KVB_WITH_HUB=OFF)")

    def env(self, **extra):
        e = {k: v for k, v in os.environ.items()
             if not k.startswith(("HF_", "HUGGING"))}
        e.update(HF_ENDPOINT=self.url, HF_HOME=os.path.join(self.tmp, "home"),
                 no_proxy="127.0.0.1", NO_PROXY="127.0.0.1")
        e.update(extra)
        return e

    def cli(self, *args, **env):
        if not CLI:
            self.skipTest("KVB_CLI is not set")
        return subprocess.run([CLI] + list(args), env=self.env(**env),
                              capture_output=True, text=True, timeout=120)

    def test_python_reads_the_hub(self):
        r = kvbudget.read_model_ref("org/tiny", endpoint=self.url,
                                    use_env=False, use_cache=False,
                                    backoff_ms=1)
        self.assertEqual(r.info.weights_bytes, TINY_BYTES)
        self.assertEqual(r.info.shard_count, 2)
        self.assertEqual(r.where.source, kvbudget.RefSource.HUB)
        self.assertEqual(r.where.repo, "org/tiny")
        self.assertEqual(r.where.commit, standin.repo_sha("org/tiny"))
        self.assertEqual(r.where.file, "model.safetensors.index.json")
        # the model API, config.json, the index, 2 x (302 + 206)
        self.assertEqual(r.where.http_requests, 7)
        self.assertEqual(r.model.num_hidden_layers, 2)

    def test_python_errors(self):
        with self.assertRaises(kvbudget.KvbError) as cm:
            kvbudget.read_model_ref("org/gated", endpoint=self.url,
                                    use_env=False, use_cache=False)
        self.assertEqual(cm.exception.status, kvbudget.Status.EIO)
        self.assertIn("HF_TOKEN", str(cm.exception))
        with self.assertRaises(kvbudget.KvbError) as cm:
            kvbudget.read_model_ref("org/missing", endpoint=self.url,
                                    use_env=False, use_cache=False)
        self.assertEqual(cm.exception.status, kvbudget.Status.ENOTFOUND)

    def test_cli_plan_json_says_where(self):
        p = self.cli("plan", "--model", "org/tiny", "--gpu", "L4",
                     "--max-model-len", "4096", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        out = json.loads(p.stdout)
        self.assertEqual(out["weights_bytes"], TINY_BYTES)
        self.assertEqual(out["model_source"], "hub")
        ref = out["model_ref"]
        self.assertEqual(ref["source"], "hub")
        self.assertEqual(ref["repo"], "org/tiny")
        self.assertEqual(ref["revision"], "main")
        self.assertEqual(ref["commit"], standin.repo_sha("org/tiny"))
        self.assertEqual(ref["file"], "model.safetensors.index.json")
        self.assertEqual(ref["http_requests"], 7)

    def test_cli_token_from_the_environment(self):
        p = self.cli("plan", "--model", "org/gated", "--gpu", "L4")
        self.assertEqual(p.returncode, 2)
        self.assertIn("HF_TOKEN", p.stderr)
        p = self.cli("plan", "--model", "org/gated", "--gpu", "L4",
                     "--max-model-len", "4096", "--json", HF_TOKEN="hf_good")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["weights_bytes"], TINY_BYTES)

    def test_cli_cache_then_offline(self):
        cache = os.path.join(self.tmp, "cache")
        p = self.cli("plan", "--model", "org/tiny@main", "--gpu", "L4",
                     "--max-model-len", "4096", "--cache", "--json",
                     HF_HUB_CACHE=cache)
        self.assertEqual(p.returncode, 0, p.stderr)
        p = self.cli("plan", "--model", "org/tiny", "--gpu", "L4",
                     "--max-model-len", "4096", "--json",
                     HF_HUB_CACHE=cache, HF_HUB_OFFLINE="1",
                     HF_ENDPOINT="http://127.0.0.1:9")
        self.assertEqual(p.returncode, 0, p.stderr)
        out = json.loads(p.stdout)
        self.assertEqual(out["model_ref"]["source"], "hf-cache")
        self.assertEqual(out["model_ref"]["http_requests"], 0)
        # the index's total_size: shard headers are not cached
        self.assertEqual(out["weights_bytes"], TINY_BYTES)
        p = self.cli("plan", "--model", "org/other", "--gpu", "L4",
                     HF_HUB_CACHE=cache, HF_HUB_OFFLINE="1")
        self.assertEqual(p.returncode, 2)
        self.assertIn("HF_HUB_OFFLINE", p.stderr)

    def test_cli_presets_and_paths_first(self):
        p = self.cli("plan", "--model", "meta-llama/Llama-3.1-8B", "--gpu",
                     "H100", "--json", HF_ENDPOINT="http://127.0.0.1:9")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["model_source"], "preset")


if __name__ == "__main__":
    unittest.main()
