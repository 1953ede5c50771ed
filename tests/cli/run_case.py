#!/usr/bin/env python3
"""Run one CLI test case: tests/cli/<case>/.

Files of a case directory:
  cmd       the arguments, one line of shell words; {logs} is
            tests/data/logs, {manifests} tests/data/manifests and {case}
            the case directory
  status    the expected exit status ("1", or alternatives "0|2")
  expected  lines that must appear in stdout + stderr, in this order
            ({logs} and {case} as in cmd)
  absent    lines that must not appear anywhere in the output
  json      Python expressions that must be true of the parsed stdout,
            one per line, with j (the JSON), PLAN_KEYS, has_keys(obj,
            keys), replan(args) (runs `kvbudget plan ARGS --json`) and
            GiB(x) = round(x * 2**30), the way a log's "x GiB" is read
  stdin     fed to the command's standard input
  env       KEY=VALUE lines added to the environment
  tty       present: run under a pseudo-terminal (stdout is a TTY)

usage: run_case.py KVBUDGET CASE_DIR REPO_ROOT
"""
import json
import os
import pty
import shlex
import subprocess
import sys

# The keys the issue requires of `plan --json` (and of `fix --json`).
PLAN_KEYS = [
    "param_count", "weights_bytes", "weights_bytes_per_gpu",
    "non_torch_bytes_per_gpu", "activation_bytes_per_gpu",
    "cudagraph_bytes_per_gpu", "usable_bytes_per_gpu",
    "kv_budget_bytes_per_gpu", "kv_bytes_per_token",
    "kv_bytes_per_token_per_gpu", "num_blocks", "max_kv_tokens",
    "max_concurrency", "max_model_len", "max_model_len_fit", "fits",
    "verdict", "message", "model", "quant", "gpu", "gpu_total_bytes", "tp",
    "pp", "gpu_memory_utilization",
]


def read(case, name):
    path = os.path.join(case, name)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return f.read()


def run_pty(argv, env):
    """Run with stdout on a pseudo-terminal; returns (status, output)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(argv[0], argv, env)
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode(
        "utf-8", "replace")


def main():
    kvbudget, case, root = sys.argv[1], sys.argv[2], sys.argv[3]
    logs = os.path.join(root, "tests", "data", "logs")
    words = shlex.split(read(case, "cmd").strip())
    manifests = os.path.join(root, "tests", "data", "manifests")
    argv = [kvbudget] + [w.replace("{logs}", logs).replace("{case}", case)
                         .replace("{manifests}", manifests)
                         for w in words]
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    for line in (read(case, "env") or "").splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            env[k] = v
    stdin = read(case, "stdin")
    if read(case, "tty") is not None:
        status, out = run_pty(argv, env)
        stdout = out
    else:
        p = subprocess.run(argv, input=(stdin or "").encode(),
                           capture_output=True, env=env, timeout=60)
        status = p.returncode
        stdout = p.stdout.decode("utf-8", "replace")
        out = stdout + p.stderr.decode("utf-8", "replace")
    failures = []
    want = (read(case, "status") or "0").strip()
    if str(status) not in want.split("|"):
        failures.append(f"exit status {status}, expected {want}")
    at = 0
    for line in (read(case, "expected") or "").splitlines():
        line = line.replace("{logs}", logs).replace("{case}", case).replace(
            "{manifests}", manifests)
        if not line:
            continue
        found = out.find(line, at)
        if found < 0:
            where = "at all" if out.find(line) < 0 else "in this order"
            failures.append(f"expected line not found {where}: {line!r}")
        else:
            at = found + len(line)
    for line in (read(case, "absent") or "").splitlines():
        line = line.encode().decode("unicode_escape")
        if line and line in out:
            failures.append(f"line must not appear: {line!r}")
    checks = read(case, "json")
    if checks is not None:
        failures += check_json(kvbudget, stdout, checks)
    if failures:
        print(f"command: {shlex.join(argv)}")
        print("---- output ----")
        print(out)
        print("---- failures ----")
        print("\n".join(failures))
        return 1
    return 0


def check_json(kvbudget, stdout, checks):
    try:
        j = json.loads(stdout)
    except ValueError as e:
        return [f"stdout is not JSON: {e}"]

    def has_keys(obj, keys):
        missing = [k for k in keys if k not in obj]
        if missing:
            raise AssertionError(f"missing keys {missing}")
        return True

    def replan(args):
        p = subprocess.run([kvbudget, "plan"] + shlex.split(args) + ["--json"],
                           capture_output=True, timeout=60)
        return json.loads(p.stdout)

    scope = {"j": j, "PLAN_KEYS": PLAN_KEYS, "has_keys": has_keys,
             "replan": replan, "GiB": lambda x: round(x * 2**30)}
    failures = []
    for line in checks.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            ok = eval(line, scope)  # test files are ours, not input
        except Exception as e:  # noqa: BLE001 -- report any failure
            failures.append(f"json check raised {type(e).__name__}: {e}: "
                            f"{line}")
            continue
        if not ok:
            failures.append(f"json check failed: {line}")
    return failures


if __name__ == "__main__":
    sys.exit(main())
