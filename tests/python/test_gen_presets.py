"""scripts/gen_presets.py: the preset data under data/ into C.

The real data generates (tests/unit/test_presets*.c check what the tables
hold); each broken copy below stops with the file, the line, the row and
what is wrong, as a build would.
"""
import importlib.util
import os
import shutil
import tempfile
import unittest
from pathlib import Path

ROOT = Path(os.environ.get("KVB_SOURCE_DIR",
                           Path(__file__).resolve().parent.parent.parent))
_spec = importlib.util.spec_from_file_location(
    "gen_presets", ROOT / "scripts" / "gen_presets.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)


class RealData(unittest.TestCase):
    def test_generates_every_table(self):
        files = gen.generate(ROOT)
        self.assertEqual(sorted(files), [
            "presets_checkpoints.c", "presets_config_checks.h",
            "presets_gpus.c", "presets_instances.c", "presets_models.c",
            "presets_ollama_tags.c"])
        for name, text in files.items():
            self.assertTrue(text.startswith("/* generated from data/"), name)
            self.assertIn("by scripts/gen_presets.py -- do not edit", text,
                          name)
        models = files["presets_models.c"]
        # a named source written out: data/sources.tsv "inventory"
        self.assertIn('"Llama-2-70B"', models)
        self.assertNotIn("{inventory}", models)
        # DeepSeek-V3.1 takes every field from the deepseek-v3 shape
        at = models.index('{"DeepSeek-V3.1"')
        self.assertIn(".kv_lora_rank = 512u,", models[at:at + 2000])


class BrokenData(unittest.TestCase):
    """A copy of what the generator reads, one file edited per test."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(
            dir=os.environ.get("KVB_TEST_TMP")))
        shutil.copytree(ROOT / "data", self.tmp / "data")
        shutil.copytree(ROOT / "tests" / "data" / "configs",
                        self.tmp / "tests" / "data" / "configs")
        (self.tmp / "include").mkdir()
        shutil.copy(ROOT / "include" / "kvbudget.h", self.tmp / "include")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def edit(self, name, old, new):
        path = self.tmp / "data" / name
        text = path.read_text()
        self.assertEqual(text.count(old), 1, old)
        path.write_text(text.replace(old, new))

    def fails(self, *parts):
        with self.assertRaises(gen.DataError) as cm:
            gen.generate(self.tmp)
        for p in parts:
            self.assertIn(p, str(cm.exception))
        return str(cm.exception)

    def test_the_copy_generates(self):
        gen.generate(self.tmp)

    def test_model_without_source(self):
        self.edit("models.json", '"params": "{inventory}; matches the '
                  'widely quoted 6,738,415,616"',
                  '"params": ""')
        self.fails("data/models.json:", "row Llama-2-7B", "source.params")

    def test_model_unknown_field(self):
        self.edit("models.json", '"dtype": "FP16", "num_hidden_layers": 32,',
                  '"dtype": "FP16", "num_hidden_layer": 32,')
        self.fails("row Llama-2-7B", "model.num_hidden_layer",
                   "not a field of kvb_model")

    def test_model_wrong_type(self):
        self.edit("models.json", '"hidden_size": 4096, "num_attention_heads":'
                  ' 32,\n                "num_key_value_heads": 32',
                  '"hidden_size": "4096", "num_attention_heads": 32,\n'
                  '                "num_key_value_heads": 32')
        self.fails("row Llama-2-7B", "model.hidden_size", "not an integer")

    def test_model_enum_by_name(self):
        self.edit("models.json", '"arch": "LLAMA", "dtype": "FP16", '
                  '"num_hidden_layers": 32,',
                  '"arch": "LLAMA2", "dtype": "FP16", '
                  '"num_hidden_layers": 32,')
        self.fails("row Llama-2-7B", "model.arch", '"LLAMA2" is not a '
                   "kvb_arch", "GENERIC, LLAMA, LLAMA4")

    def test_model_flag_by_name(self):
        self.edit("models.json", '"flags": ["ATTN_QKV_BIAS", '
                  '"ROUTER_SCORE_BIAS"]',
                  '"flags": ["ATTN_QKV_BIAS", "ROUTER_SCORE"]')
        self.fails("row GLM-4.5-Air", "model.flags", '"ROUTER_SCORE" is not a '
                   "KVB_MODEL_ flag")

    def test_model_alias_in_two_rows(self):
        self.edit("models.json", '"aliases": ["meta-llama/Llama-2-70b-hf", '
                  '"Llama-2-70b-hf"]',
                  '"aliases": ["meta-llama/Llama-2-70b-hf", '
                  '"LLAMA-2-7B-HF"]')
        self.fails("row Llama-2-70B", '"llama-2-7b-hf" also names row '
                   "Llama-2-7B")

    def test_model_field_from_shape_and_row(self):
        self.edit("models.json", '"index_n_heads": 64,',
                  '"index_n_heads": 64, "vocab_size": 129280,')
        self.fails("row DeepSeek-V3.2-Exp", "model.vocab_size: also set by "
                   "shape deepseek-v3")

    def test_unknown_source_id(self):
        self.edit("models.json", '"params": "{inventory}; matches the '
                  'widely quoted 6,738,415,616"',
                  '"params": "{inventry}; matches the widely quoted '
                  '6,738,415,616"')
        self.fails("row Llama-2-7B", "{inventry} is not an id of "
                   "data/sources.tsv")

    def test_unused_source_id(self):
        self.edit("sources.tsv", "id\ttext\n", "id\ttext\nnobody\tno row\n")
        self.fails("data/sources.tsv:5: row nobody", "no row cites {nobody}")

    def test_config_differs_names_a_field(self):
        self.edit("models.json", '"ssm_state_dtype": "FP32, as',
                  '"ssm_dtype": "FP32, as')
        self.fails("row Nemotron-3-Nano-30B-A3B", "config_differs.ssm_dtype")

    def test_gpu_row_without_source(self):
        text = (self.tmp / "data" / "gpus.tsv").read_text()
        line = next(x for x in text.split("\n") if x.startswith("A10\t"))
        cells = line.split("\t")
        cells[6] = ""
        self.edit("gpus.tsv", line, "\t".join(cells))
        err = self.fails("data/gpus.tsv:", "row A10: source is empty")
        self.assertEqual(int(err.split(":")[1]),
                         text.split("\n").index(line) + 1)

    def test_gpu_unknown_column(self):
        self.edit("gpus.tsv", "\tnote\n", "\tnotes\n")
        self.fails("data/gpus.tsv:", 'unknown column "notes"')

    def test_gpu_name_in_two_rows(self):
        self.edit("gpus.tsv", "A10G 24GB,a10g-24gb", "A10G 24GB,a10-24gb")
        self.fails("row A10G", '"a10-24gb" also names row A10')

    def test_gpu_bytes_with_unit(self):
        self.edit("gpus.tsv", "\t15095 MiB\t", "\t15095 MB\t")
        self.fails("row T4", "total_bytes", "is not an integer")

    def test_instance_of_unknown_gpu(self):
        self.edit("instances.tsv", "g4dn.xlarge\taws\tT4\t",
                  "g4dn.xlarge\taws\tT4-16GB\t")
        self.fails("data/instances.tsv:", "row g4dn.xlarge",
                   '"T4-16GB" is not a name of data/gpus.tsv')

    def test_checkpoint_method_by_name(self):
        self.edit("checkpoints.tsv", "Qwen3-32B\tFP8\t", "Qwen3-32B\tFP8_4\t")
        self.fails("data/checkpoints.tsv:", "RedHatAI/Qwen3-32B-FP8-dynamic",
                   '"FP8_4" is not a kvb_quant_method')

    def test_ollama_tag_of_unknown_preset(self):
        self.edit("ollama_tags.tsv", "qwq:32b\tQwQ-32B\t",
                  "qwq:32b\tQwQ-32B-Preview\t")
        self.fails("data/ollama_tags.tsv:", "row qwq:32b", "preset")


if __name__ == "__main__":
    unittest.main()
