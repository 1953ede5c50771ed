/*
 * presets/gpus.c -- built-in GPUs, with the per-GPU memory total that CUDA
 * reports: cudaMemGetInfo's total, which equals cudaDeviceProp's
 * totalGlobalMem and torch.cuda.get_device_properties().total_memory.
 * That is what vLLM multiplies by gpu_memory_utilization.  It is neither
 * the marketing figure ("80 GB") nor nvidia-smi's memory.total, which is
 * larger by what the driver reserves (265 MiB on a T4, 469 MiB on an H100,
 * 556 MiB on an L4, 615 MiB on an H200).
 *
 * How each total was chosen (docs/presets.md has the table and ranges):
 *  - Prefer a real print of that quantity, with exact bytes where one exists:
 *    CUDA's deviceQuery "Total amount of global memory: N MBytes (B bytes)"
 *    -> B; torch "total_memory=NMB", where MB is MiB rounded down -> N x 2^20;
 *    a PyTorch OOM "total capacity of X GiB" or vLLM's logged
 *    total_gpu_memory (two decimals) only as a cross-check.
 *  - Totals move by 10-130 MiB between driver versions; prefer a print
 *    from a recent serving driver (550 or later) and list the others.
 *  - Where no print exists, derive the total from a measured sibling and say
 *    "derived" with the arithmetic in the source string.
 *
 * compute_capability is major*10 + minor from the same prints.  AMD rows
 * carry 0 (unknown): HIP reports the gfx version (9.0 for gfx90a, 9.4 for
 * gfx942) in the same fields, which is not a CUDA compute capability.
 * multiprocessor_count is SMs (NVIDIA) or compute units (AMD) as the device
 * reports it; it sizes the CUDA-context estimate.
 *
 * Names are short and stable; aliases hold the exact device names that
 * cudaGetDeviceProperties / torch print, the names in shared/data/gpus.json
 * and common spellings.  No name or alias may match two rows
 * (tests/unit/test_presets_hw.c walks them all).
 */
#include "internal.h"

#define MIB(n) ((uint64_t)(n) << 20)

const kvb__gpu_row kvb__gpu_rows[] = {
    /* ---- NVIDIA data-center, GDDR6 with ECC on (1/16 of raw is ECC) ---- */

    /* Colab T4, same notebook: nvidia-smi 15360 MiB, so the driver keeps
     * 265 MiB.  Also deviceQuery "15095 MBytes" on Colab (driver 12.4) in
     * sylvia-ymlin/cuda-kernels-from-scratch README.md.  Older drivers
     * print 15102-15109MB. */
    {"T4", "Tesla T4,NVIDIA T4,T4 16GB,t4-16gb",
     "torch total_memory=15095MB (MiB) x 2^20, Colab T4, driver 550.54.15,"
     " smi 15360 MiB: mryab/efficient-dl-systems"
     " week01_intro/seminar.ipynb",
     MIB(15095), 75, 40},

    /* AWS's A10G (80 SMs; the A10 has 72).  torch 2.15 + CUDA 13 driver.
     * PyTorch OOMs with older drivers show up to 22.18 GiB (22712 MiB). */
    {"A10G", "NVIDIA A10G,A10G 24GB,a10g-24gb",
     "torch total_memory=22587MB (MiB) x 2^20, torch 2.15+cu130:"
     " meta-pytorch/torchcodec CUDA decoding tutorial"
     " (basic_cuda_example); older drivers: 22.18 GiB",
     MIB(22587), 86, 80},

    /* nvidia-smi 23028 MiB on the same machine. */
    {"A10", "NVIDIA A10,a10-24gb",
     "deviceQuery 23595909120 B, driver 550.90.12, smi 23028 MiB:"
     " thamada/gls gls/A10_deviceQuery.py",
     23595909120ull, 86, 72},

    /* Driver 525.105.17 gave 23612293120 B (kamelth/COE506_Project
     * README.md); 550 keeps 40 MiB more. */
    {"L4", "NVIDIA L4,L4 24GB,l4-24gb",
     "deviceQuery 23570219008 B, driver 550.90.07, smi 23034 MiB:"
     " thamada/gls gls/L4_deviceQuery.py",
     23570219008ull, 89, 58},

    /* No print of an L40 found.  It is the L40S's board (AD102, 142 SMs,
     * 48 GB GDDR6 with ECC) and nvidia-smi shows the same 46068 MiB for
     * both (InternLM/lmdeploy#1459), so the driver reserve is taken as
     * equal: 46068 MiB - 478.94 MiB = 45589.06 MiB. */
    {"L40", "NVIDIA L40,l40-48gb",
     "derived: = L40S 47803596800 B (thamada/gls); same AD102, 142 SMs and"
     " smi 46068 MiB (InternLM/lmdeploy#1459), so the same driver reserve",
     47803596800ull, 89, 142},

    {"L40S", "NVIDIA L40S,L40S 48GB,l40s-48gb",
     "deviceQuery 47803596800 B, driver 550.127.05, smi 46068 MiB:"
     " thamada/gls gls/L40S_deviceQuery.py",
     47803596800ull, 89, 142},

    /* Ampere, same smi total as the L40S but 186 MiB less for CUDA. */
    {"A40", "NVIDIA A40,a40-48gb",
     "deviceQuery 47608692736 B, driver 550.127.05, smi 46068 MiB:"
     " thamada/gls gls/A40x10_deviceQuery.py",
     47608692736ull, 86, 84},

    /* ---- NVIDIA data-center, HBM (ECC costs no capacity) ---- */

    /* 40339.31 MiB; nvidia-smi 40960 MiB.  The PCIe 40GB card has the same
     * memory; no separate print was found, so it shares this row. */
    {"A100-40GB",
     "NVIDIA A100-SXM4-40GB,NVIDIA A100-PCIE-40GB,A100 40GB,a100-sxm4-40gb",
     "deviceQuery 42298834944 B, A100-SXM4-40GB, ECC on:"
     " github.com/bottlerocket-os/bottlerocket/pull/3873",
     42298834944ull, 80, 108},

    /* mixbench prints totalGlobalMem / 2^20 rounded down.  SXM4 cards:
     * deviceQuery 81051 MiB (84987740160 B, driver 535) to 81158 MiB
     * (85100068864 B, driver 555, thamada/gls); the lowest is kept. */
    {"A100-80GB",
     "NVIDIA A100-SXM4-80GB,NVIDIA A100 80GB PCIe,NVIDIA A100,A100 80GB,"
     "A100 80GB SXM,A100 80GB PCIe,a100,a100-sxm4-80gb",
     "mixbench 'Total global mem 81049 MB' (MiB) x 2^20, A100 80GB PCIe,"
     " ECC on: github.com/ekondis/mixbench/issues/47; SXM4: 81051-81158 MiB",
     MIB(81049), 80, 108},

    /* H100 SXM5.  torch prints 81082MB (torch 2.0.1), 81089MB (torch 2.7,
     * CUDA 12.8), 81090MB; deviceQuery 81106 MiB with driver 565
     * (thamada/gls).  nvidia-smi 81559 MiB, so about 469 MiB reserved. */
    {"H100",
     "NVIDIA H100 80GB HBM3,NVIDIA H100,H100 SXM,H100-SXM,H100 80GB,"
     "H100 80GB SXM,h100-80gb,h100-sxm5",
     "torch total_memory=81090MB (MiB) x 2^20, 8x H100 80GB HBM3; = vLLM"
     " total_gpu_memory 79.19 GiB:"
     " kubernetes-sigs/gateway-api-inference-extension#550",
     MIB(81090), 90, 132},

    /* HBM2e, 114 SMs; the only print found is from torch 2.0.1. */
    {"H100-PCIe", "NVIDIA H100 PCIe,H100 PCIe,h100-pcie-80gb",
     "torch 2.0.1 total_memory=81008MB (MiB) x 2^20, 114 SMs: public code"
     " file, exact-string search \"H100 PCIe', major=9\"",
     MIB(81008), 90, 114},

    /* 95235.44 MiB; nvidia-smi 95830 MiB.  PyTorch OOMs on H100 NVL with
     * other drivers print 93.09-93.10 GiB (95324-95334 MiB). */
    {"H100-NVL", "NVIDIA H100 NVL,H100 NVL,H100 NVL 94GB,h100-nvl-94gb",
     "deviceQuery 99861594112 B, driver 550.54.14, smi 95830 MiB:"
     " thamada/gls gls/H100NVLx2_deviceQuery.py",
     99861594112ull, 90, 132},

    /* 139.80 GiB; nvidia-smi 143771 MiB (NVIDIA/cuda-samples#311).  With
     * driver 550.90.12 deviceQuery gives 143072 MiB (150021734400 B,
     * thamada/gls).  The H200 NVL (PCIe) is a different board. */
    {"H200", "NVIDIA H200,H200 141GB,H200 SXM,h200-141gb",
     "torch total_memory=143156MB (MiB) x 2^20, on Modal:"
     " ai-bot-pro/achatbot"
     " deploy/modal/src/llm/vllm/vlm/skywork_r1v.py",
     MIB(143156), 90, 132},

    /* The 96 GB HBM3 GH200 ("GH200 480GB" counts the Grace LPDDR5X, which
     * is not GPU memory here).  96768 MiB; nvidia-smi 97871 MiB. */
    {"GH200", "NVIDIA GH200 480GB,GH200 96GB,gh200-96gb",
     "deviceQuery 101468602368 B, driver 550.127.05, smi 97871 MiB:"
     " thamada/gls gls/GH200_deviceQuery.py",
     101468602368ull, 90, 132},

    /* HGX B200, 180 GB per GPU.  pytorch/ao#4002 prints 178.35 GiB
     * (182630 MiB) with another driver. */
    {"B200", "NVIDIA B200,B200 180GB,b200-180gb",
     "torch total_memory=182642MB (MiB) x 2^20, 148 SMs, on Modal:"
     " ai-bot-pro/achatbot"
     " deploy/modal/src/llm/vllm/vlm/skywork_r1v.py",
     MIB(182642), 100, 148},

    /* ---- NVIDIA GeForce and workstation ---- */

    /* 24154.38 MiB.  Older drivers: torch 24268MB (HF docs); a newer one
     * (next to an RTX 5060 Ti): 25286672384 B, Jumperkables/cuda-benchmarking
     * 00_deviceQuery/README.md. */
    {"RTX-3090",
     "NVIDIA GeForce RTX 3090,GeForce RTX 3090,RTX 3090,rtx3090,3090",
     "deviceQuery 25327697920 B, driver 560.35.03, smi 24576 MiB:"
     " thamada/gls gls/RTX3090_deviceQuery.py",
     25327697920ull, 86, 82},

    /* 24210.31 MiB = 23.64 GiB, the figure in PyTorch OOMs.  Windows (WDDM)
     * reports 24563MB instead; serving runs on Linux. */
    {"RTX-4090", "NVIDIA GeForce RTX 4090,RTX 4090,rtx4090,4090",
     "deviceQuery 25386352640 B, driver 550.127.05, smi 24564 MiB:"
     " thamada/gls gls/RTX4090_deviceQuery.py; = OOM 23.64 GiB"
     " (ali-vilab/VGen#104)",
     25386352640ull, 89, 128},

    /* 32120.19 MiB = 31.37 GiB, as vLLM logs it.  A CUDA 13 driver gives
     * 32101-32109 MiB. */
    {"RTX-5090", "NVIDIA GeForce RTX 5090,RTX 5090,rtx5090,5090",
     "deviceQuery 33680457728 B, driver 570.124.06, smi 32607 MiB:"
     " thamada/gls gls/RTX5090_deviceQuery.py; = vLLM 31.37 GiB"
     " (vllm-project/vllm#14452)",
     33680457728ull, 120, 170},

    /* Workstation default, ECC off (nvidia-smi 49140 MiB).  With ECC on:
     * 47834660864 B (45619 MiB, smi 46068 MiB) in thamada/gls
     * gls/RTX_A6000_x9_deviceQuery.py. */
    {"RTX-A6000", "NVIDIA RTX A6000,RTX A6000,a6000",
     "torch total_memory=48676MB (MiB) x 2^20, ECC off:"
     " pytorch/ao torchao/prototype/hqq/README.md; ECC on: 47834660864 B"
     " (thamada/gls)",
     MIB(48676), 86, 84},

    /* ECC off (default), 48640.13 MiB.  Another print: 48622MB. */
    {"RTX-6000-Ada",
     "NVIDIA RTX 6000 Ada Generation,RTX 6000 Ada,rtx6000ada,6000ada",
     "deviceQuery 51002867712 B, ECC off, driver 550.127.05, smi 49140 MiB:"
     " thamada/gls gls/RTX6000Ada_x8_deviceQuery.py",
     51002867712ull, 89, 142},

    /* Workstation and Max-Q Workstation editions (same 96 GB GDDR7).
     * 97886.44 MiB; llama.cpp reports it rounded.  The Server Edition
     * prints 97250MB and is not this row. */
    {"RTX-PRO-6000",
     "NVIDIA RTX PRO 6000 Blackwell Workstation Edition,"
     "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition,"
     "RTX PRO 6000,rtx-pro-6000-blackwell",
     "torch total_memory 102641369088 B, Max-Q Workstation, 188 SMs"
     " (exact-string search); = 97887 MiB total in"
     " ggml-org/llama.cpp#23604",
     102641369088ull, 120, 188},

    /* ---- NVIDIA Volta ---- */

    /* 16144.13 MiB; older drivers print 16160MB (YOLOv5 notebooks). */
    {"V100-16GB", "Tesla V100-SXM2-16GB,Tesla V100-PCIE-16GB,V100 16GB",
     "deviceQuery 16928342016 B, driver 550.127.05, smi 16384 MiB:"
     " thamada/gls gls/V100_x8_deviceQuery.py",
     16928342016ull, 70, 80},

    /* 32494.13 MiB with a 12.9 driver; 11.x drivers give 32510 MiB. */
    {"V100-32GB",
     "Tesla V100-SXM2-32GB,Tesla V100-PCIE-32GB,Tesla V100S-PCIE-32GB,"
     "V100 32GB",
     "deviceQuery 34072559616 B, V100-SXM2-32GB, driver 12.9: public"
     " hands-on README, exact-string search"
     " 'Device 0: \"Tesla V100-SXM2-32GB\"'",
     34072559616ull, 70, 80},

    /* ---- AMD Instinct (ROCm reports HBM minus 16 MiB) ---- */

    /* MI300X: 192 GiB = 196608 MiB, reported 196592 MiB, so ROCm keeps
     * 16 MiB; the derived rows below assume the same. */
    {"MI210", "AMD Instinct MI210,mi210-64gb",
     "derived: 64 GiB HBM2e - 16 MiB (MI300X reserve, thamada/gls)"
     " = 65520 MiB; = HIP OOM 63.98 GiB; 104 CUs: ROCm docs gpu-arch-specs",
     MIB(65520), 0, 104},

    /* One MI250X is two GCDs; each is a device of 64 GiB and 110 CUs.
     * "AMD Instinct MI250X/MI250" is a name ROCm gives both the MI250X and
     * the MI250 (104 CUs per GCD, same memory). */
    {"MI250X", "AMD Instinct MI250X,AMD Instinct MI250X/MI250,mi250x-gcd",
     "torch total_memory=65520MB (MiB) x 2^20 per GCD, 110 CUs:"
     " exact-string search \"total_memory=65520MB\"; = HIP OOM 63.98 GiB",
     MIB(65520), 0, 110},

    {"MI300X", "AMD Instinct MI300X,mi300x-192gb",
     "HIP deviceQuery 'Total Global Memory (MB)' 196592 (MiB) x 2^20,"
     " 304 CUs: thamada/gls gls/MI300X_deviceQuery.py; = OOM 191.98 GiB",
     MIB(196592), 0, 304},

    {"MI325X", "AMD Instinct MI325X,mi325x-256gb",
     "derived: 256 GiB HBM3E - 16 MiB (MI300X reserve) = 262128 MiB; ="
     " vLLM ROCm HIP OOM 255.98 GiB; 304 CUs: ROCm docs gpu-arch-specs",
     MIB(262128), 0, 304},
};

const size_t kvb__gpu_rows_count = KVB__ARRAY_LEN(kvb__gpu_rows);
