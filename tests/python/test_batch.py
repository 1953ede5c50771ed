"""Batch planning: every row equals kvbudget.plan() one by one; columns from
lists, array.array and numpy; threads; errors."""

import array
import dataclasses
import unittest

import support
from support import GIB

import kvbudget

MODELS = ["Llama-3.1-8B", "Qwen3-30B-A3B", "Gemma-2-9B", "DeepSeek-V3",
          "Llama-4-Scout-17B-16E", "OPT-125m", "gpt-oss-20b"]
QUANTS = [None, "awq-4", "fp8", "Q4_K_M",
          kvbudget.quant("auto", kv_cache_dtype="fp8")]


def gpus():
    return [kvbudget.Gpu(name="24G", total_bytes=24 * GIB, count=8,
                         compute_capability=86, multiprocessor_count=80),
            kvbudget.Gpu(name="NVIDIA H100 80GB HBM3", total_bytes=80 * GIB,
                         count=8, compute_capability=90,
                         multiprocessor_count=132)]


def compare_rows(test, result, skip_message=True):
    """Each row against kvbudget.plan() on the same inputs."""
    checked = failed = 0
    for row in result:
        try:
            want = result.plan(row.index)
        except kvbudget.KvbError as exc:
            test.assertEqual(row.status, exc.status, row)
            test.assertEqual(row.verdict, -1)
            failed += 1
            continue
        test.assertEqual(row.status, 0, row)
        test.assertEqual(row.fits, want.fits)
        test.assertEqual(row.verdict, want.verdict)
        test.assertEqual(row.weights_bytes_per_gpu,
                         want.weights_bytes_per_gpu)
        test.assertEqual(row.kv_budget_bytes_per_gpu,
                         want.kv_budget_bytes_per_gpu)
        test.assertEqual(row.max_kv_tokens, want.max_kv_tokens)
        test.assertEqual(row.max_concurrency, want.max_concurrency)
        test.assertEqual(row.max_model_len_fit, want.max_model_len_fit)
        test.assertEqual(row.num_blocks, want.num_blocks)
        if result.plans is not None:
            got = result.plans[row.index]
            test.assertEqual(got.message, "")
            test.assertEqual(dataclasses.replace(got, message=want.message),
                             want)
        checked += 1
    return checked, failed


class TestBatchEqualsPlan(unittest.TestCase):

    def test_sweep_rows_equal_plan(self):
        r = kvbudget.sweep(MODELS, QUANTS, gpus(),
                           tensor_parallel_size=[1, 2, 8],
                           max_model_len=[0, 4096, 131072],
                           gpu_memory_utilization=[0.0, 0.85],
                           plans=True)
        self.assertEqual(len(r), 7 * 5 * 2 * 3 * 3 * 2)
        checked, failed = compare_rows(self, r)
        self.assertEqual(failed, r.failed)
        self.assertGreater(checked, 500)
        self.assertGreater(failed, 0)  # Gemma-2-9B at 131072: ERANGE
        # every verdict but HEADROOM shows up in this grid
        seen = {row.verdict for row in r if row.status == 0}
        self.assertTrue({kvbudget.Verdict.FITS,
                         kvbudget.Verdict.WEIGHTS_EXCEED,
                         kvbudget.Verdict.MAX_LEN_EXCEEDS_KV,
                         kvbudget.Verdict.PARALLELISM_INVALID} <= seen)

    def test_columns_and_tables(self):
        servings = [kvbudget.serving(),
                    kvbudget.serving(engine="vllm@0.6.5", enforce_eager=1),
                    {"engine": "vllm@0.11", "block_size": 32}]
        n = 60
        r = kvbudget.plan_batch(
            MODELS[:3], gpus(), quants=QUANTS[:3], servings=servings,
            model_index=[i % 3 for i in range(n)],
            quant_index=array.array("I", [i % 3 for i in range(n)]),
            gpu_index=[i % 2 for i in range(n)],
            serving_index=[(i // 3) % 3 for i in range(n)],
            max_model_len=[1024 * (1 + i % 8) for i in range(n)],
            concurrency=[1 + i % 20 for i in range(n)],
            max_num_seqs=[0, 8] * (n // 2),
            gpu_count=1, plans=True)
        self.assertEqual(len(r), n)
        checked, failed = compare_rows(self, r)
        self.assertEqual(checked + failed, n)
        # the CONCURRENCY verdict: up to 20 wanted with max_num_seqs 8
        self.assertIn(kvbudget.Verdict.CONCURRENCY_EXCEEDS,
                      {row.verdict for row in r})

    def test_threads_give_the_same_columns(self):
        kw = dict(max_model_len=[2048, 8192, 32768],
                  gpu_memory_utilization=[0.8, 0.9, 0.95],
                  tensor_parallel_size=[1, 2, 4])
        one = kvbudget.sweep(MODELS[:2], QUANTS[:2], gpus(), **kw)
        many = kvbudget.sweep(MODELS[:2], QUANTS[:2], gpus(), threads=4,
                              **kw)
        for name, _ in kvbudget._batch.OUTPUTS:
            self.assertEqual(list(getattr(one, name)),
                             list(getattr(many, name)), name)

    def test_scalar_and_empty(self):
        r = kvbudget.plan_batch("llama-3.1-8b", "a10g", max_model_len=4096,
                                count=3)
        self.assertEqual(len(r), 3)
        p = kvbudget.plan("llama-3.1-8b", gpu="a10g", max_model_len=4096)
        self.assertEqual(list(r.max_kv_tokens), [p.max_kv_tokens] * 3)
        empty = kvbudget.plan_batch("llama-3.1-8b", "a10g", count=0)
        self.assertEqual(len(empty), 0)
        self.assertEqual(list(empty), [])


class TestBatchErrors(unittest.TestCase):

    def test_row_status_and_detail(self):
        r = kvbudget.plan_batch("llama-3.1-8b", "a10g",
                                max_model_len=[4096, 131073, 8192])
        self.assertEqual(list(r.status), [0, kvbudget.Status.ERANGE, 0])
        self.assertEqual(r.failed, 1)
        self.assertEqual(r.verdict[1], -1)
        e = r.error(1)
        self.assertIsInstance(e, kvbudget.KvbERANGE)
        self.assertEqual(e.field, "serving.max_model_len")
        self.assertIsNone(r.error(0))
        with self.assertRaises(kvbudget.KvbERANGE) as cm:
            r.raise_for_status()
        self.assertEqual(cm.exception.source, "batch row 1")

    def test_call_errors(self):
        with self.assertRaises(kvbudget.KvbERANGE) as cm:
            kvbudget.plan_batch("llama-3.1-8b", "a10g", gpu_index=[0, 1])
        self.assertEqual(cm.exception.field, "batch.gpu_index")
        with self.assertRaises(kvbudget.KvbERANGE) as cm:
            kvbudget.plan_batch("llama-3.1-8b", "a10g",
                                tensor_parallel_size=[1, -2])
        self.assertEqual(cm.exception.field, "batch.tensor_parallel_size")
        with self.assertRaises(ValueError):
            kvbudget.plan_batch("llama-3.1-8b", "a10g", max_model_len=[1, 2],
                                concurrency=[1, 2, 3])
        with self.assertRaises(TypeError):
            kvbudget.plan_batch("llama-3.1-8b", "a10g", max_len=[1])
        with self.assertRaises(kvbudget.KvbNotFound):
            kvbudget.plan_batch(["llama-3.1-8b", "nope"], "a10g")


@unittest.skipUnless(support.HAVE_NUMPY,
                     "numpy is not installed (apt-get install python3-numpy)")
class TestNumpy(unittest.TestCase):

    def test_numpy_columns_in_and_out(self):
        import numpy as np
        n = 200
        mml = np.arange(1, n + 1, dtype=np.int64) * 512
        util = np.linspace(0.5, 0.95, n)
        r = kvbudget.plan_batch(["llama-3.1-8b", "qwen2.5-7b"], "a10g",
                                model_index=np.arange(n) % 2,
                                max_model_len=mml,
                                gpu_memory_utilization=util)
        self.assertIsInstance(r.max_kv_tokens, np.ndarray)
        self.assertEqual(r.max_kv_tokens.dtype, np.uint64)
        plain = kvbudget.plan_batch(["llama-3.1-8b", "qwen2.5-7b"], "a10g",
                                    model_index=[i % 2 for i in range(n)],
                                    max_model_len=mml.tolist(),
                                    gpu_memory_utilization=util.tolist())
        self.assertEqual(r.max_kv_tokens.tolist(), list(plain.max_kv_tokens))
        self.assertEqual(r.max_concurrency.tolist(),
                         list(plain.max_concurrency))
        checked, failed = compare_rows(self, r)
        self.assertEqual(checked + failed, n)

    def test_numpy_refuses_what_would_wrap(self):
        import numpy as np
        with self.assertRaises(kvbudget.KvbERANGE):
            kvbudget.plan_batch("llama-3.1-8b", "a10g",
                                concurrency=np.array([1, -1]))
        with self.assertRaises(TypeError):
            kvbudget.plan_batch("llama-3.1-8b", "a10g",
                                max_model_len=np.array([1.5, 2.0]))

    def test_sweep_numpy(self):
        r = kvbudget.sweep("llama-3.1-8b", None, "a10g",
                           max_model_len=[1024, 2048], numpy=True)
        import numpy as np
        self.assertIsInstance(r.fits, np.ndarray)
        self.assertEqual(len(r), 2)


if __name__ == "__main__":
    unittest.main()
