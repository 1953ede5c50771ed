#!/bin/sh
# The figures torch_check.py compares with PyTorch, checked by hand for
# Llama-3.1-8B cut to 2 layers, bf16, batch 1 x 1024 tokens:
#   embed = lm_head = 128256 x 4096 x 2 B          = 1050673152 each
#   per layer: q, o 4096x4096x2 = 33554432 each; k, v 1024x4096x2 =
#   8388608 each; gate, up, down 14336x4096x2 = 117440512 each; two
#   norms 4096x2 = 8192 each                        =  436224000
#   final norm                                      =       8192
#   weights = 2 x 1050673152 + 2 x 436224000 + 8192 = 2973802496
#   KV per token = 2 (K,V) x 8 heads x 128 x 2 B x 2 layers = 8192
set -eu
out=$("$1" predict Llama-3.1-8B 2 bf16 1 1024)
echo "$out"
for want in '"weights_bytes": 2973802496' '"kv_bytes_per_token": 8192' \
            '"kv_bytes": 8388608' '"arch": "llama"' '"num_hidden_layers": 2'; do
    case $out in
    *"$want"*) ;;
    *) echo "FAIL: missing $want"; exit 1 ;;
    esac
done
echo ok
