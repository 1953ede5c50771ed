/*
 * presets/instances.c -- built-in cloud instances: which GPU preset, how
 * many, vCPUs, host memory (GiB x 2^30) and the on-demand price in USD per
 * hour (0 = unknown).  Rows copy shared/data/gpus.json, which cites each
 * figure; the source string says where the shape and the price come from,
 * and says so when a price is a recalled list price that nobody verified.
 * Regions: AWS us-east-1, GCP us-central1, Azure eastus.
 *
 * gpu is always a canonical name from presets/gpus.c (H100 "Mega" on GCP
 * a3-megagpu is the same H100 SXM; Azure NC A100 v4 carries the A100 80GB
 * PCIe, which shares the A100-80GB row).
 */
#include "internal.h"

#define GIB(n) ((uint64_t)(n) << 30)

const kvb__instance_row kvb__instance_rows[] = {
    /* ---- AWS EC2 ---- */
    {"g4dn.xlarge", "aws", "T4", 1, 4, GIB(16), 0.526,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price "
     "(us-east-1): recalled list price, not verified"},
    {"g4dn.2xlarge", "aws", "T4", 1, 8, GIB(32), 0.752,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price "
     "(us-east-1): recalled list price, not verified"},
    {"g4dn.4xlarge", "aws", "T4", 1, 16, GIB(64), 1.204,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price "
     "(us-east-1): recalled list price, not verified"},
    {"g4dn.8xlarge", "aws", "T4", 1, 32, GIB(128), 2.176,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price "
     "(us-east-1): recalled list price, not verified"},
    {"g4dn.12xlarge", "aws", "T4", 4, 48, GIB(192), 3.912,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price: "
     "skypilot-catalog catalogs/v8/aws/vms.csv @00148f2a, us-east-1"},
    {"g4dn.16xlarge", "aws", "T4", 1, 64, GIB(256), 4.352,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price "
     "(us-east-1): recalled list price, not verified"},
    {"g4dn.metal", "aws", "T4", 8, 96, GIB(384), 7.824,
     "AWS spec recalled, not verified; price (us-east-1): recalled list "
     "price, not verified"},
    {"g5.xlarge", "aws", "A10G", 1, 4, GIB(16), 1.006,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price: "
     "factualminds.com EC2 on-demand list, June 2026"},
    {"g5.2xlarge", "aws", "A10G", 1, 8, GIB(32), 1.212,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price: "
     "skypilot-catalog catalogs/v8/aws/vms.csv @00148f2a, us-east-1"},
    {"g5.4xlarge", "aws", "A10G", 1, 16, GIB(64), 1.624,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price "
     "(us-east-1): recalled list price, not verified"},
    {"g5.8xlarge", "aws", "A10G", 1, 32, GIB(128), 2.448,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price "
     "(us-east-1): recalled list price, not verified"},
    {"g5.12xlarge", "aws", "A10G", 4, 48, GIB(192), 5.672,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price "
     "(us-east-1): recalled list price, not verified"},
    {"g5.16xlarge", "aws", "A10G", 1, 64, GIB(256), 4.096,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price "
     "(us-east-1): recalled list price, not verified"},
    {"g5.24xlarge", "aws", "A10G", 4, 96, GIB(384), 8.144,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price: "
     "skypilot-catalog catalogs/v8/aws/vms.csv @00148f2a, us-east-1"},
    {"g5.48xlarge", "aws", "A10G", 8, 192, GIB(768), 16.288,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html; price "
     "(us-east-1): recalled list price, not verified"},
    {"g6.xlarge", "aws", "L4", 1, 4, GIB(16), 0.8048,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html "
     "(12/24/48xlarge recalled); price (us-east-1): recalled list price, "
     "not verified"},
    {"g6.2xlarge", "aws", "L4", 1, 8, GIB(32), 0.9776,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html "
     "(12/24/48xlarge recalled); price (us-east-1): recalled list price, "
     "not verified"},
    {"g6.4xlarge", "aws", "L4", 1, 16, GIB(64), 1.3232,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html "
     "(12/24/48xlarge recalled); price (us-east-1): recalled list price, "
     "not verified"},
    {"g6.8xlarge", "aws", "L4", 1, 32, GIB(128), 2.0144,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html "
     "(12/24/48xlarge recalled); price (us-east-1): recalled list price, "
     "not verified"},
    {"g6.12xlarge", "aws", "L4", 4, 48, GIB(192), 4.6016,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html "
     "(12/24/48xlarge recalled); price (us-east-1): recalled list price, "
     "not verified"},
    {"g6.16xlarge", "aws", "L4", 1, 64, GIB(256), 3.3968,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html "
     "(12/24/48xlarge recalled); price (us-east-1): recalled list price, "
     "not verified"},
    {"g6.24xlarge", "aws", "L4", 4, 96, GIB(384), 6.6752,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html "
     "(12/24/48xlarge recalled); price (us-east-1): recalled list price, "
     "not verified"},
    {"g6.48xlarge", "aws", "L4", 8, 192, GIB(768), 13.3504,
     "AWS Batch GPU-jobs table, "
     "docs.aws.amazon.com/batch/latest/userguide/gpu-jobs.html "
     "(12/24/48xlarge recalled); price (us-east-1): recalled list price, "
     "not verified"},
    {"g6e.xlarge", "aws", "L40S", 1, 4, GIB(32), 1.861,
     "github.com/meta-pytorch/torchx/pull/969 (named_resources_aws); "
     "price (us-east-1): recalled list price, not verified"},
    {"g6e.2xlarge", "aws", "L40S", 1, 8, GIB(64), 2.242,
     "github.com/meta-pytorch/torchx/pull/969 (named_resources_aws); "
     "price (us-east-1): recalled list price, not verified"},
    {"g6e.4xlarge", "aws", "L40S", 1, 16, GIB(128), 3.004,
     "github.com/meta-pytorch/torchx/pull/969 (named_resources_aws); "
     "price (us-east-1): recalled list price, not verified"},
    {"g6e.8xlarge", "aws", "L40S", 1, 32, GIB(256), 4.529,
     "github.com/meta-pytorch/torchx/pull/969 (named_resources_aws); "
     "price (us-east-1): recalled list price, not verified"},
    {"g6e.16xlarge", "aws", "L40S", 1, 64, GIB(512), 7.578,
     "github.com/meta-pytorch/torchx/pull/969 (named_resources_aws); "
     "price (us-east-1): recalled list price, not verified"},
    {"g6e.12xlarge", "aws", "L40S", 4, 48, GIB(384), 10.493,
     "github.com/meta-pytorch/torchx/pull/969 (named_resources_aws); "
     "price (us-east-1): recalled list price, not verified"},
    {"g6e.24xlarge", "aws", "L40S", 4, 96, GIB(768), 15.066,
     "github.com/meta-pytorch/torchx/pull/969 (named_resources_aws); "
     "price (us-east-1): recalled list price, not verified"},
    {"g6e.48xlarge", "aws", "L40S", 8, 192, GIB(1536), 30.131,
     "github.com/meta-pytorch/torchx/pull/969 (named_resources_aws); "
     "price (us-east-1): recalled list price, not verified"},
    {"gr6.4xlarge", "aws", "L4", 1, 16, GIB(128), 1.5392,
     "openshift/openshift-docs@125467ac (vCPU, GiB); GPU count recalled; "
     "price (us-east-1): recalled list price, not verified"},
    {"gr6.8xlarge", "aws", "L4", 1, 32, GIB(256), 2.4464,
     "openshift/openshift-docs@125467ac (vCPU, GiB); GPU count recalled; "
     "price (us-east-1): recalled list price, not verified"},
    {"p3.2xlarge", "aws", "V100-16GB", 1, 8, GIB(61), 3.06,
     "docs.amazonaws.cn/batch/latest/userguide/gpu-jobs.html; price "
     "(us-east-1): recalled list price, not verified"},
    {"p3.8xlarge", "aws", "V100-16GB", 4, 32, GIB(244), 12.24,
     "docs.amazonaws.cn/batch/latest/userguide/gpu-jobs.html; price "
     "(us-east-1): recalled list price, not verified"},
    {"p3.16xlarge", "aws", "V100-16GB", 8, 64, GIB(488), 24.48,
     "skypilot-catalog catalogs/v8/aws/vms.csv @00148f2a; price: same "
     "catalog, us-east-1"},
    {"p4d.24xlarge", "aws", "A100-40GB", 8, 96, GIB(1152), 21.96,
     "skypilot-catalog catalogs/v8/aws/vms.csv @00148f2a; price: same "
     "catalog, us-east-1"},
    {"p4de.24xlarge", "aws", "A100-80GB", 8, 96, GIB(1152), 27.45,
     "skypilot-catalog catalogs/v8/aws/vms.csv @00148f2a; price: same "
     "catalog, us-east-1"},
    {"p5.48xlarge", "aws", "H100", 8, 192, GIB(2048), 55.04,
     "skypilot-catalog catalogs/v8/aws/vms.csv @00148f2a; price: same "
     "catalog, us-east-1"},
    {"p5e.48xlarge", "aws", "H200", 8, 192, GIB(2048), 0.0,
     "skypilot-catalog catalogs/v8/aws/vms.csv @00148f2a; price: none on "
     "demand (Capacity Blocks only)"},
    {"p5en.48xlarge", "aws", "H200", 8, 192, GIB(2048), 63.296,
     "skypilot-catalog catalogs/v8/aws/vms.csv @00148f2a; price: same "
     "catalog, us-east-1"},
    {"p6-b200.48xlarge", "aws", "B200", 8, 192, GIB(2048), 113.9328,
     "skypilot-catalog catalogs/v8/aws/vms.csv @00148f2a; price: same "
     "catalog, us-east-1"},

    /* ---- Google Cloud ---- */
    {"a2-highgpu-1g", "gcp", "A100-40GB", 1, 12, GIB(85), 3.67,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"a2-highgpu-2g", "gcp", "A100-40GB", 2, 24, GIB(170), 7.35,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"a2-highgpu-4g", "gcp", "A100-40GB", 4, 48, GIB(340), 14.69,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"a2-highgpu-8g", "gcp", "A100-40GB", 8, 96, GIB(680), 29.38,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"a2-megagpu-16g", "gcp", "A100-40GB", 16, 96, GIB(1360), 55.74,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"a2-ultragpu-1g", "gcp", "A100-80GB", 1, 12, GIB(170), 5.07,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"a2-ultragpu-2g", "gcp", "A100-80GB", 2, 24, GIB(340), 10.14,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"a2-ultragpu-4g", "gcp", "A100-80GB", 4, 48, GIB(680), 20.28,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"a2-ultragpu-8g", "gcp", "A100-80GB", 8, 96, GIB(1360), 40.56,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"a3-highgpu-8g", "gcp", "H100", 8, 208, GIB(1872), 88.25,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"a3-megagpu-8g", "gcp", "H100", 8, 208, GIB(1872), 0.0,
     "GCP machine-type spec recalled, not verified; price: unknown"},
    {"a3-ultragpu-8g", "gcp", "H200", 8, 224, GIB(2952), 0.0,
     "GCP machine-type spec recalled, not verified; price: unknown"},
    {"g2-standard-4", "gcp", "L4", 1, 4, GIB(16), 0.71,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"g2-standard-8", "gcp", "L4", 1, 8, GIB(32), 0.85,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"g2-standard-12", "gcp", "L4", 1, 12, GIB(48), 1.0,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"g2-standard-16", "gcp", "L4", 1, 16, GIB(64), 1.15,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"g2-standard-24", "gcp", "L4", 2, 24, GIB(96), 2.0,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"g2-standard-32", "gcp", "L4", 1, 32, GIB(128), 1.73,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"g2-standard-48", "gcp", "L4", 4, 48, GIB(192), 4.0,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},
    {"g2-standard-96", "gcp", "L4", 8, 96, GIB(384), 8.0,
     "GCP machine-type spec recalled, not verified; price (us-central1): "
     "recalled list price, not verified"},

    /* ---- Microsoft Azure ---- */
    {"Standard_NC24ads_A100_v4", "azure", "A100-80GB", 1, 24, GIB(220), 3.67,
     "Azure VM size spec recalled, not verified; price (eastus): "
     "recalled list price, not verified"},
    {"Standard_NC48ads_A100_v4", "azure", "A100-80GB", 2, 48, GIB(440), 7.35,
     "Azure VM size spec recalled, not verified; price (eastus): "
     "recalled list price, not verified"},
    {"Standard_NC96ads_A100_v4", "azure", "A100-80GB", 4, 96, GIB(880), 14.69,
     "Azure VM size spec recalled, not verified; price (eastus): "
     "recalled list price, not verified"},
    {"Standard_ND96amsr_A100_v4", "azure", "A100-80GB", 8, 96, GIB(1900), 32.77,
     "github.com/kaito-project/kaito/pull/1098 (8x A100 80GB); vCPU, RAM "
     "recalled; price (eastus): recalled list price, not verified"},
    {"Standard_ND96isr_H100_v5", "azure", "H100", 8, 96, GIB(1900), 98.32,
     "Azure VM size spec recalled, not verified; price (eastus): "
     "recalled list price, not verified"},
    {"Standard_NC40ads_H100_v5", "azure", "H100-NVL", 1, 40, GIB(320), 6.98,
     "Azure VM size spec recalled, not verified; price (eastus): "
     "recalled list price, not verified"},
    {"Standard_NC80adis_H100_v5", "azure", "H100-NVL", 2, 80, GIB(640), 13.96,
     "Azure VM size spec recalled, not verified; price (eastus): "
     "recalled list price, not verified"},
};

const size_t kvb__instance_rows_count = KVB__ARRAY_LEN(kvb__instance_rows);
