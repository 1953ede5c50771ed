// llama.cpp itself as the oracle: load a GGUF with no_alloc (nothing is
// read or allocated; node-llama-cpp's prebuilt CPU build of llama.cpp) and
// build a context, printing llama.cpp's own log lines: "llama_kv_cache:
// size = ...", "compute buffer size = ...", "output buffer size = ...".
//
// usage: node oracle.mjs FILE.gguf "CTX SEQS BATCH FA CTK CTV SWAFULL" ...
//   one context per quoted case, each announced by a "### N" line;
//   FA: on | off | auto;  CTK/CTV: f16 | q8_0 | q4_0 (ggml type names)
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const [file, ...cases] = process.argv.slice(2);
const types = {f32: 0, f16: 1, q4_0: 2, q4_1: 3, q5_0: 6, q5_1: 7, q8_0: 8,
               bf16: 30};
const keep = /llama_kv_cache: size|llama_kv_cache_iswa|compute buffer size|output buffer size|llama_context: n_ctx|n_seq_max|n_ubatch|flash_attn  |kv_unified  |error|failed|refus|requires/;
const llama = await getLlama({
    gpu: false,
    build: "never",
    logLevel: LlamaLogLevel.debug,
    logger(level, message) {
        for (const line of String(message).split("\n"))
            if (keep.test(line))
                console.log(line);
    }
});
const b = llama._bindings;
const model = new b.AddonModel(file, {gpuLayers: 0, noAlloc: true,
                                      useMmap: false, useMlock: false});
if (!await model.init())
    throw new Error("model did not load");
for (const [i, spec] of cases.entries()) {
    const [ctx, seqs = "1", batch = "512", fa = "on", ctk = "f16",
           ctv = "f16", swaFull = "0"] = spec.trim().split(/\s+/);
    console.log(`### ${i}`);
    const context = new b.AddonContext(model, {
        contextSize: Number(ctx),
        batchSize: Number(batch),
        sequences: Number(seqs),
        flashAttention: fa === "auto" ? "auto" : fa === "on",
        kvCacheKeyType: types[ctk],
        kvCacheValueType: types[ctv],
        swaFullCache: swaFull === "1"
    });
    if (!await context.init())
        throw new Error("context was not created");
    await context.dispose();
    // llama.cpp's log lines reach the logger asynchronously: let this
    // context's lines arrive before the next case's marker
    await new Promise((resolve) => setTimeout(resolve, 300));
}
await model.dispose();
await llama.dispose();
