"""The Pythonic API: the C tests' known values through Python, exceptions
for bad input, presets, loading."""

import os
import pickle
import subprocess
import sys
import unittest

import support
from support import GIB, MIB

import kvbudget


class TestKnownValues(unittest.TestCase):
    """The values of tests/unit/test_plan.c and test_quant.c, by Python."""

    def test_kv_bytes_per_token(self):
        # Llama-3.1-8B: 32 layers x 2 (K and V) x 8 KV heads x 128 x 2 bytes
        whole, per_gpu = kvbudget.kv_bytes_per_token("Llama-3.1-8B")
        self.assertEqual(whole, 32 * 2 * 8 * 128 * 2)
        self.assertEqual(whole, 131072)
        self.assertEqual(per_gpu, 131072)
        # TP 2 halves the KV heads on each GPU; FP8 KV cache halves bytes
        _, per_gpu = kvbudget.kv_bytes_per_token(
            "Llama-3.1-8B", kvbudget.quant(kv_cache_dtype="fp8"), 2)
        self.assertEqual(per_gpu, 32 * 2 * 4 * 128 * 1)

    def test_engine_version_own_form(self):
        # llama.cpp releases are build numbers ("b6123"), Ollama semver
        eng, ver = kvbudget.engine("llama.cpp@b6123")
        self.assertEqual(kvbudget.engine_version(eng, ver), "b6123")
        eng, ver = kvbudget.engine("ollama@0.5.7")
        self.assertEqual(kvbudget.engine_version(eng, ver), "0.5.7")

    def test_weights_keep_roles(self):
        # test_read_config.c: Llama-3.1-8B's attention (1,342,177,280
        # weights, 327,680 rows) kept in BF16 instead of W8A8 INT8 with
        # channel scales: 1,340,866,560 bytes more
        roles = kvbudget.TensorRole
        attn = sum(1 << r for r in (roles.ATTN_Q, roles.ATTN_K,
                                    roles.ATTN_V, roles.ATTN_O))
        base = kvbudget.weights("Llama-3.1-8B",
                                kvbudget.quant("w8a8-int8", fp8_scale=1))
        kept = kvbudget.weights("Llama-3.1-8B",
                                kvbudget.quant("w8a8-int8", fp8_scale=1,
                                               keep_roles=attn))
        self.assertEqual(base.bytes, 9086705664)
        self.assertEqual(kept.bytes - base.bytes, 1340866560)

    def test_weights_bf16(self):
        # 8,030,261,248 parameters (Meta's card), 2 bytes each in BF16
        w = kvbudget.weights("llama-3.1-8b")
        self.assertEqual(w.param_count, 8030261248)
        self.assertEqual(w.bytes, 2 * 8030261248)
        self.assertEqual(w.bytes_per_gpu, 16060522496)
        preset = kvbudget.presets.model("llama-3.1-8b")
        self.assertEqual(preset.published_params, 8030261248)

    def test_seed_scout_does_not_fit(self):
        # test_plan_seed_scout_does_not_fit: every one of the 16 experts is
        # stored: 108.6e9 parameters, 60.8e9 bytes at AWQ-4 > 24 GB (the
        # vision tower's 871,932,416 parameters stay BF16)
        g = kvbudget.Gpu(name="24G", total_bytes=23815585792)
        p = kvbudget.plan("Llama-4-Scout-17B-16E", "awq-4", g,
                          gpu_memory_utilization=0.9, max_model_len=32768)
        self.assertEqual(p.param_count, 108641793536)
        self.assertEqual(p.weights_bytes, 59059415040 + 2 * 871932416)
        self.assertEqual(p.verdict, kvbudget.Verdict.WEIGHTS_EXCEED)
        self.assertFalse(p.fits)
        self.assertIn("weights need", p.message)

    def test_seed_value_error_v0(self):
        # test_plan_seed_value_error_v0: 1 GiB of KV cache = 1 GiB / (32
        # layers x 64 KiB per 16-token block) = 512 blocks = 8192 tokens
        g = kvbudget.Gpu(name="80G", total_bytes=80 * GIB)
        p = kvbudget.plan("Llama-3.1-8B", gpu=g, engine="vllm@0.7.3",
                          max_model_len=32768, kv_cache_memory_bytes=GIB)
        self.assertEqual(p.accounting, kvbudget.Accounting.VLLM_V0)
        self.assertEqual(p.num_blocks, GIB // (32 * 65536))
        self.assertEqual(p.num_blocks, 512)
        self.assertEqual(p.max_kv_tokens, 512 * 16)
        self.assertEqual(p.verdict, kvbudget.Verdict.MAX_LEN_EXCEEDS_KV)
        self.assertEqual(p.max_model_len_fit, 8192)
        self.assertEqual(
            p.engine_error(),
            "ValueError: The model's max seq len (32768) is larger than the "
            "maximum number of tokens that can be stored in KV cache (8192)."
            " Try increasing `gpu_memory_utilization` or decreasing "
            "`max_model_len` when initializing the engine.")

    def test_value_error_v1(self):
        # test_plan_value_error_v1: 131072 tokens x 131072 bytes = 16 GiB
        # for one request; a 4 GiB budget fits 4 GiB / 128 KiB = 32768
        g = kvbudget.Gpu(name="80G", total_bytes=80 * GIB)
        p = kvbudget.plan("Llama-3.1-8B", gpu=g,
                          kv_cache_memory_bytes=4 * GIB)
        self.assertEqual(p.max_model_len, 131072)
        self.assertEqual(p.kv_needed_bytes_per_gpu, 16 * GIB)
        self.assertEqual(p.max_model_len_fit, 32768)
        self.assertEqual(p.verdict_name, "max_model_len_exceeds_kv_cache")
        self.assertIn("estimated maximum model length is 32768",
                      p.engine_error())

    def test_budget_by_hand(self):
        """Every term fixed, so the whole plan is hand arithmetic."""
        g = kvbudget.Gpu(name="24G", total_bytes=24 * GIB,
                         compute_capability=89)
        p = kvbudget.plan("llama-3.1-8b", gpu=g, gpu_memory_utilization=0.9,
                          max_model_len=8192, activation_bytes=GIB,
                          non_torch_bytes=512 * MIB,
                          cudagraph_bytes=256 * MIB, cuda_context_bytes=0)
        # usable = ceil(24 GiB x 0.9) = ceil(23192823398.4) (from vLLM 0.21)
        self.assertEqual(p.usable_bytes_per_gpu, 23192823399)
        # weights as vLLM holds them: the checkpoint's 16060522496 bytes
        # plus the rotary cos/sin cache (131072 positions x 128 x 2 bytes
        # = 32 MiB) and the allocator's rounding slack
        self.assertEqual(p.weights_bytes, 16060522496)
        w = p.weights_bytes_per_gpu
        self.assertGreaterEqual(w, 16060522496 + 131072 * 128 * 2)
        self.assertLess(w, 16060522496 + 131072 * 128 * 2 + 64 * MIB)
        # budget = usable - weights - activations (1 GiB) - non-torch
        #          (512 MiB) - CUDA graphs inside the budget (256 MiB)
        budget = 23192823399 - w - GIB - 512 * MIB - 256 * MIB
        self.assertEqual(p.kv_budget_bytes_per_gpu, budget)
        # blocks of 16 tokens x 131072 bytes = 2 MiB each
        self.assertEqual(p.block_bytes_per_gpu, 2 * MIB)
        self.assertEqual(p.num_blocks, budget // (2 * MIB))
        # one 8192-token request is 8192 / 16 = 512 blocks
        self.assertEqual(p.max_concurrency, p.num_blocks / 512)
        self.assertEqual(p.max_kv_tokens, int(p.num_blocks / 512 * 8192))
        self.assertEqual(p.max_model_len_fit, p.num_blocks * 16)
        self.assertGreater(p.num_blocks, 2400)  # about 4.9 GiB of KV cache
        # what is left outside: 24 GiB - usable - context (0)
        self.assertEqual(p.headroom_bytes_per_gpu,
                         24 * GIB - 23192823399)
        self.assertTrue(p.fits)
        self.assertEqual(p.verdict, kvbudget.Verdict.FITS)
        self.assertAlmostEqual(p.gib.kv_budget_bytes_per_gpu,
                               budget / 2**30)

    def test_fits_identity(self):
        # test_plan_fits: the budget adds up exactly
        g = kvbudget.Gpu(name="80G", total_bytes=80 * GIB)
        p = kvbudget.plan("Llama-3.1-8B", gpu=g, max_model_len=8192)
        self.assertEqual(p.verdict, kvbudget.Verdict.FITS)
        self.assertEqual(p.gpu_memory_utilization, 0.92)
        self.assertEqual(p.usable_bytes_per_gpu,
                         p.weights_bytes_per_gpu + p.activation_bytes_per_gpu
                         + p.non_torch_bytes_per_gpu
                         + p.cudagraph_bytes_per_gpu
                         + p.kv_budget_bytes_per_gpu)
        self.assertEqual(p.num_blocks, p.kv_budget_bytes_per_gpu // (2 * MIB))
        self.assertEqual(p.engine_error(), "")


class TestInputs(unittest.TestCase):

    def test_names_are_case_insensitive(self):
        a = kvbudget.plan("LLAMA-3.1-8B", "AWQ", "a10g", max_model_len=8192)
        b = kvbudget.plan("llama-3.1-8b", "awq-4", "A10G", max_model_len=8192)
        self.assertEqual(a, b)
        self.assertEqual(kvbudget.quant_method("Q4_K_M"),
                         kvbudget.QuantMethod.Q4_K_M)

    def test_same_inputs_every_way(self):
        """Names, dataclasses and C structs give the same plan."""
        m = kvbudget.model("Qwen2.5-7B")
        q = kvbudget.quant("fp8")
        g = kvbudget.gpu("H100", count=2)
        s = kvbudget.serving(max_model_len=16384, tensor_parallel_size=2)
        by_name = kvbudget.plan("qwen2.5-7b", "fp8", "h100", gpu_count=2,
                                max_model_len=16384, tensor_parallel_size=2)
        self.assertEqual(kvbudget.plan(m, q, g, serving=s), by_name)
        self.assertEqual(kvbudget.plan(m.to_c(), q.to_c(), g.to_c(),
                                       serving=s.to_c()), by_name)
        self.assertEqual(by_name.tensor_parallel_size, 2)

    def test_instance(self):
        inst = kvbudget.presets.instances()[0]
        g = inst.gpu
        self.assertEqual(g.count, inst.instance.gpu_count)
        p = kvbudget.plan("llama-3.2-1b", instance=inst.name,
                          max_model_len=4096)
        self.assertEqual(p.gpu_total_bytes, g.total_bytes)

    def test_model_changes(self):
        m = kvbudget.model("llama-3.1-8b").replace(num_hidden_layers=16)
        whole, _ = kvbudget.kv_bytes_per_token(m)
        self.assertEqual(whole, 16 * 2 * 8 * 128 * 2)

    def test_tensors(self):
        ts = kvbudget.tensors("OPT-125m")
        self.assertEqual(sum(t.params for t in ts),
                         kvbudget.param_count("OPT-125m")[0])
        self.assertEqual(ts[0].role, kvbudget.TensorRole.EMBED)
        self.assertEqual(sum(t.bytes for t in ts),
                         kvbudget.weights("OPT-125m").bytes)


class TestErrors(unittest.TestCase):

    def test_unknown_preset(self):
        with self.assertRaises(kvbudget.KvbENOTFOUND) as cm:
            kvbudget.plan("no-such-model", gpu="a10g")
        e = cm.exception
        self.assertEqual(e.status, kvbudget.Status.ENOTFOUND)
        self.assertEqual(e.name, "KVB_ENOTFOUND")
        self.assertEqual(e.field, "model")
        self.assertIn("no-such-model", e.message)
        self.assertIsInstance(e, LookupError)
        self.assertIs(kvbudget.KvbNotFound, kvbudget.KvbENOTFOUND)
        with self.assertRaises(kvbudget.KvbNotFound) as cm:
            kvbudget.plan("llama-3.1-8b", "awq-7", "a10g")
        self.assertEqual(cm.exception.field, "quant.method")

    def test_out_of_range_from_c(self):
        with self.assertRaises(kvbudget.KvbERANGE) as cm:
            kvbudget.plan("llama-3.1-8b", gpu="a10g", max_model_len=131073)
        e = cm.exception
        self.assertEqual(e.field, "serving.max_model_len")
        self.assertIn("131073", e.message)
        self.assertIsInstance(e, ValueError)
        self.assertIn("serving.max_model_len (131073)", str(e))
        with self.assertRaises(kvbudget.KvbOutOfRange) as cm:
            kvbudget.plan("llama-3.1-8b", gpu="a10g",
                          gpu_memory_utilization=1.5)
        self.assertEqual(cm.exception.field,
                         "serving.gpu_memory_utilization")

    def test_out_of_range_before_c(self):
        """Values a C type would wrap are refused by name, never wrapped."""
        with self.assertRaises(kvbudget.KvbERANGE) as cm:
            kvbudget.plan("llama-3.1-8b", gpu="a10g", tensor_parallel_size=-1)
        self.assertEqual(cm.exception.field, "serving.tensor_parallel_size")
        with self.assertRaises(kvbudget.KvbERANGE):
            kvbudget.plan("llama-3.1-8b", gpu="a10g", max_model_len=1 << 64)
        with self.assertRaises(kvbudget.KvbEINVAL) as cm:
            kvbudget.Gpu(name="x" * 64, total_bytes=GIB).to_c()
        self.assertEqual(cm.exception.field, "gpu.name")
        with self.assertRaises(TypeError):
            kvbudget.plan("llama-3.1-8b", gpu="a10g", max_model_len="long")
        with self.assertRaises(TypeError):
            kvbudget.plan("llama-3.1-8b", gpu="a10g", no_such_setting=1)

    def test_invalid_model(self):
        bad = kvbudget.model("llama-3.1-8b").replace(num_key_value_heads=5)
        with self.assertRaises(kvbudget.KvbEINVAL) as cm:
            kvbudget.validate_model(bad)
        self.assertEqual(cm.exception.field, "model.num_key_value_heads")
        with self.assertRaises(kvbudget.KvbInvalidArgument):
            kvbudget.plan(bad, gpu="a10g")

    def test_every_status_has_a_class(self):
        for s in kvbudget.Status:
            if s is kvbudget.Status.OK:
                continue
            cls = kvbudget.error_class(s)
            self.assertEqual(cls.__name__, "Kvb" + s.name)
            e = cls(int(s), "KVB_" + s.name, "f", "m")
            clone = pickle.loads(pickle.dumps(e))
            self.assertIs(type(clone), cls)
            self.assertEqual((clone.status, clone.field, clone.message),
                             (int(s), "f", "m"))
        self.assertEqual(kvbudget.strerror(kvbudget.Status.EINVAL),
                         "invalid argument")
        self.assertEqual(kvbudget.status_name(9999), "KVB_UNKNOWN")

    def test_field_bounds(self):
        self.assertEqual(kvbudget.field_bounds(
            "serving.gpu_memory_utilization"), (0.0, 1.0))
        with self.assertRaises(kvbudget.KvbENOTFOUND):
            kvbudget.field_bounds("serving.nonsense")


class TestPresets(unittest.TestCase):

    def test_lists_match_the_c_tables(self):
        from kvbudget import _capi
        lib = _capi.library()
        models = kvbudget.presets.models()
        self.assertEqual(len(models), lib.kvb_preset_model_count())
        self.assertEqual([p.name for p in models],
                         [lib.kvb_preset_model_name(i)
                          for i in range(len(models))])
        self.assertEqual(len({p.name for p in models}), len(models))
        for p in models:
            self.assertTrue(p.source)
            self.assertEqual(p.model.name, p.name)
        gpus = kvbudget.presets.gpus()
        self.assertEqual(len(gpus), lib.kvb_preset_gpu_count())
        self.assertTrue(all(g.gpu.total_bytes > 0 for g in gpus))
        insts = kvbudget.presets.instances()
        self.assertEqual(len(insts), lib.kvb_preset_instance_count())

    def test_find_by_any_case(self):
        a = kvbudget.presets.model("LLAMA-3.1-8B")
        self.assertEqual(a.name, "Llama-3.1-8B")
        self.assertEqual(a.model, kvbudget.model("llama-3.1-8b"))
        g = kvbudget.presets.gpus()[0]
        self.assertEqual(kvbudget.presets.gpu(g.name.lower()).gpu, g.gpu)


def data_file(*parts):
    return os.path.join(support.SOURCE_DIR, "tests", "data", *parts)


class TestAdvice(unittest.TestCase):
    """kvb_advise through Python: each fix's predicted outcome is the plan
    of the inputs after it."""

    def setUp(self):
        self.gpu = kvbudget.Gpu(name="24G", total_bytes=24 * GIB,
                                compute_capability=86,
                                multiprocessor_count=80)

    def test_fixes_are_replanned(self):
        # Llama-3.1-8B's full 131072 context needs 16 GiB of KV per GPU
        # (131072 x 131072 bytes); a 24 GiB card has about 4-5 GiB left
        p = kvbudget.plan("llama-3.1-8b", gpu=self.gpu)
        self.assertEqual(p.verdict, kvbudget.Verdict.MAX_LEN_EXCEEDS_KV)
        fixes = kvbudget.fix("llama-3.1-8b", gpu=self.gpu)
        self.assertTrue(fixes)
        self.assertEqual(fixes[0].kind, kvbudget.FixKind.MAX_MODEL_LEN)
        self.assertEqual(fixes[0].kind_name, "max_model_len")
        for f in fixes:
            if f.instance:  # instance fixes change the GPU to a preset's
                continue
            q, g, s = f.apply(gpu=self.gpu)
            again = kvbudget.plan("llama-3.1-8b", q, g, serving=s)
            with self.subTest(fix=f.title):
                self.assertEqual(again.fits, f.fits)
                self.assertEqual(again.max_kv_tokens, f.max_kv_tokens)
                self.assertEqual(again.max_model_len, f.max_model_len)
        first = fixes[0]
        self.assertTrue(first.fits)
        self.assertLess(first.max_model_len, 131072)
        self.assertIn(f"--max-model-len {first.max_model_len}",
                      first.render("llama-3.1-8b"))
        self.assertIn('- "--max-model-len"',
                      kvbudget.render_fix(first, "llama-3.1-8b", "k8s"))
        with self.assertRaises(ValueError):
            first.render("llama-3.1-8b", "yaml")

    def test_combined_remedies_and_checkpoints(self):
        # issue 17: Qwen2.5-72B AWQ on one L40S at 8192 tokens: more
        # utilization and eager mode fit together, not alone
        fixes = kvbudget.fix("qwen2.5-72b", "awq-4", "L40S",
                             max_model_len=8192)
        combined = [f for f in fixes
                    if f.kind == kvbudget.FixKind.COMBINED and f.fits]
        self.assertTrue(combined)
        self.assertTrue(combined[0].enforce_eager)
        self.assertEqual(combined[0].checkpoint,
                         "Qwen/Qwen2.5-72B-Instruct-AWQ")
        self.assertEqual(combined[0].pareto, 1)
        self.assertGreater(combined[0].usd_per_million_tokens, 0)
        self.assertTrue(combined[0].render("qwen2.5-72b").startswith(
            "--model Qwen/Qwen2.5-72B-Instruct-AWQ "))

    def test_hints_and_checkpoints(self):
        h = kvbudget.hints("llama-3.1-8b", gpu="H100", gpu_count=2)
        self.assertTrue(h[0].startswith("1 of the 2 GPUs sits idle"))
        self.assertEqual(kvbudget.hints("llama-3.1-8b", gpu="H100",
                                        max_model_len=8192), [])
        rows = kvbudget.checkpoints()
        self.assertIn(("Qwen2.5-72B", "awq-4",
                       "Qwen/Qwen2.5-72B-Instruct-AWQ"),
                      [r[:3] for r in rows])
        self.assertTrue(all(r[3] for r in rows))

    def test_a_plan_that_fits_needs_no_fix(self):
        self.assertEqual(kvbudget.fix("llama-3.1-8b", gpu=self.gpu,
                                      max_model_len=4096), [])

    def test_options(self):
        fixes = kvbudget.fix("llama-3.1-8b", gpu=self.gpu,
                             options={"max_instances": 0, "max_quant": 0})
        self.assertFalse([f for f in fixes
                          if f.kind in (kvbudget.FixKind.INSTANCE,
                                        kvbudget.FixKind.QUANTIZE)])
        with self.assertRaises(kvbudget.KvbERANGE):
            kvbudget.fix("llama-3.1-8b", gpu=self.gpu,
                         options=kvbudget.AdviceOptions(max_instances=99))


class TestExplain(unittest.TestCase):

    def read(self, name):
        with open(data_file("logs", name), "rb") as f:
            return f.read()

    def test_seed_log(self):
        # "max seq len (32768) is larger than ... KV cache (8192)"
        e = kvbudget.explain(self.read("seed_max_len.log"))
        self.assertEqual(e.failure, kvbudget.LogFailure.MAX_LEN_EXCEEDS_KV)
        self.assertEqual(e.facts.failure_name,
                         "max_model_len_exceeds_kv_cache")
        self.assertEqual(e.facts.max_model_len, 32768)
        self.assertEqual(e.facts.kv_cache_tokens, 8192)
        self.assertTrue(e.facts.has(kvbudget.LogFact.MAX_MODEL_LEN))
        self.assertFalse(e.facts.has(kvbudget.LogFact.GPU_TOTAL_BYTES))
        self.assertIn("lower --max-model-len to 8192", str(e))
        inputs = e.inputs()
        self.assertEqual(inputs.serving.max_model_len, 32768)
        self.assertIn(kvbudget.LogKnown.SERVING, inputs.known)
        self.assertNotIn(kvbudget.LogKnown.GPU, inputs.known)

    def test_garbage_is_no_failure(self):
        facts = kvbudget.parse_log(self.read("garbage.bin"))
        self.assertEqual(facts.failure, kvbudget.LogFailure.NONE)
        self.assertEqual(kvbudget.parse_log("").failure,
                         kvbudget.LogFailure.NONE)


class TestReaders(unittest.TestCase):

    def test_config_json(self):
        path = data_file("configs", "llama-3.1-8b-instruct.json")
        mf = kvbudget.read_model(path)
        self.assertEqual(mf.info.format, kvbudget.Format.CONFIG_JSON)
        self.assertEqual(mf.info.arch_name, "llama")
        self.assertTrue(mf.info.from_file(
            kvbudget.ReadField.NUM_HIDDEN_LAYERS))
        preset = kvbudget.model("Llama-3.1-8B")
        for name in ("num_hidden_layers", "hidden_size",
                     "num_attention_heads", "num_key_value_heads",
                     "intermediate_size", "vocab_size",
                     "max_position_embeddings"):
            self.assertEqual(getattr(mf.model, name),
                             getattr(preset, name), name)
        with open(path, encoding="utf-8") as f:
            parsed = kvbudget.parse_config(f.read())
        self.assertEqual(parsed.model.num_hidden_layers, 32)
        # the model from the file plans like the preset
        a = kvbudget.plan(mf.model, gpu="a10g", max_model_len=8192)
        b = kvbudget.plan(preset, gpu="a10g", max_model_len=8192)
        self.assertEqual(a.kv_bytes_per_token, b.kv_bytes_per_token)

    def test_unknown_family_and_repo_names(self):
        text = ('{"model_type": "my_llama", "hidden_size": 4096, '
                '"num_hidden_layers": 32, "num_attention_heads": 32, '
                '"intermediate_size": 11008, "vocab_size": 32000, '
                '"max_position_embeddings": 4096}')
        with self.assertRaises(kvbudget.KvbEUNSUPPORTED) as cm:
            kvbudget.parse_config(text)
        self.assertIn("my_llama", str(cm.exception))
        mf = kvbudget.parse_config(text, assume_llama=True)
        self.assertEqual(mf.model.num_hidden_layers, 32)
        self.assertIn("my_llama", mf.info.warning)
        m, q, note = kvbudget.resolve_model("Qwen/Qwen2.5-72B-Instruct-AWQ")
        self.assertEqual(m.num_hidden_layers, 80)
        self.assertEqual(q.method, kvbudget.QuantMethod.AWQ_4)
        self.assertIn("awq-4", note)
        with self.assertRaises(kvbudget.KvbENOTFOUND) as cm:
            kvbudget.resolve_model("Lama-3.1-8B")
        self.assertIn("did you mean Llama-3.1-8B", str(cm.exception))

    def test_errors_carry_position(self):
        with self.assertRaises(kvbudget.KvbEPARSE) as cm:
            kvbudget.parse_config('{"model_type": "llama",\n  "x": }')
        self.assertEqual(cm.exception.line, 2)
        self.assertGreater(cm.exception.column, 0)
        with self.assertRaises(kvbudget.KvbEPARSE):
            kvbudget.parse_gguf(b"NOTAGGUF" + bytes(64))
        with self.assertRaises(kvbudget.KvbError) as cm:
            kvbudget.read_model(data_file("no-such-file.json"))
        self.assertEqual(cm.exception.status, kvbudget.Status.EIO)

    def test_safetensors_header(self):
        import json
        import struct
        header = json.dumps({"w": {"dtype": "F16", "shape": [2, 3],
                                   "data_offsets": [0, 12]}}).encode()
        data = struct.pack("<Q", len(header)) + header + bytes(12)
        info = kvbudget.parse_safetensors(data)
        self.assertEqual(info.weights_bytes, 2 * 3 * 2)  # 6 FP16 values
        self.assertEqual(info.tensor_count, 1)
        self.assertEqual(info.format, kvbudget.Format.SAFETENSORS)


class TestProbe(unittest.TestCase):

    def test_probe_without_a_gpu_is_a_status(self):
        try:
            n = kvbudget.probe_count()
        except (kvbudget.KvbENOCUDA, kvbudget.KvbENODRIVER,
                kvbudget.KvbENODEVICE):
            return  # the expected outcome on a machine without a GPU
        self.assertGreaterEqual(n, 1)
        dev = kvbudget.probe_device(0)
        self.assertGreater(dev.total_bytes, 0)

    def test_device_gpu(self):
        dev = kvbudget.Device(index=0, name="NVIDIA H100 80GB HBM3",
                              total_bytes=80 * GIB, free_bytes=79 * GIB,
                              compute_capability=90,
                              multiprocessor_count=132)
        g = kvbudget.device_gpu(dev)
        self.assertEqual(g.total_bytes, 80 * GIB)
        self.assertEqual(g.compute_capability, 90)
        self.assertEqual(g.count, 1)


class TestLoading(unittest.TestCase):

    def test_version_and_path(self):
        self.assertEqual(kvbudget.library_version(), kvbudget.__version__)
        self.assertTrue(os.path.exists(kvbudget.library_path()))

    def test_set_library_path_after_load(self):
        kvbudget.library_version()
        with self.assertRaises(kvbudget.KvbLibraryError):
            kvbudget.set_library_path("/nonexistent")

    def run_python(self, code, env):
        full = dict(os.environ)
        full.update(env)
        return subprocess.run([sys.executable, "-c", code], env=full,
                              capture_output=True, text=True, timeout=120)

    @unittest.skipIf(support.SANITIZED, "loads another library")
    def test_bad_library_path(self):
        r = self.run_python(
            "import kvbudget\n"
            "try:\n"
            "    kvbudget.plan('llama-3.1-8b', gpu='a10g')\n"
            "except kvbudget.KvbLibraryError as e:\n"
            "    print('refused:', e)\n",
            {"KVBUDGET_LIBRARY": "/nonexistent/libkvbudget.so.0"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("refused: cannot load libkvbudget from "
                      "/nonexistent/libkvbudget.so.0", r.stdout)

    def test_import_needs_no_library(self):
        r = self.run_python(
            "import kvbudget; print(kvbudget.__version__)",
            {"KVBUDGET_LIBRARY": "/nonexistent/libkvbudget.so.0"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), kvbudget.__version__)


if __name__ == "__main__":
    unittest.main()
