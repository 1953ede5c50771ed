// The same GGUF header through @huggingface/gguf (the version pinned in
// package.json), in the same run as bench_gguf: parse a local file N times
// and print the best time, one machine-readable line:
//     bench gguf.hf_gguf <iterations> <ns/op> <ops/s>
//     node bench/node/gguf_read.mjs FILE [REPS]
import { gguf } from "@huggingface/gguf";

const [file, repsArg] = process.argv.slice(2);
if (!file) {
  console.error("usage: node gguf_read.mjs FILE [REPS]");
  process.exit(2);
}
const reps = Math.max(1, Number(repsArg ?? 5));

async function once() {
  const t0 = process.hrtime.bigint();
  const out = await gguf(file, { allowLocalFile: true });
  const t = Number(process.hrtime.bigint() - t0);
  return { t, out };
}

const warm = await once();
const tokens = warm.out.metadata["tokenizer.ggml.tokens"];
console.log(
  `# ${warm.out.tensorInfos.length} tensors, ` +
    `${Array.isArray(tokens) ? tokens.length : 0} tokens, ` +
    `header ${warm.out.tensorDataOffset} bytes`,
);
let best = Infinity;
for (let i = 0; i < reps; i++) {
  const { t } = await once();
  best = Math.min(best, t);
}
console.log(`bench gguf.hf_gguf ${reps} ${best} ${(1e9 / best).toFixed(1)}`);
