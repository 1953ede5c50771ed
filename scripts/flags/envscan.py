#!/usr/bin/env python3
"""Which releases read each memory environment variable, and its default.

    envscan.py vllm   RELEASES_TSV GIT_DIR[,GIT_DIR...] > env-vllm.json
    envscan.py sglang RELEASES_TSV GIT_DIR[,GIT_DIR...] > env-sglang.json

vLLM: the keys of environment_variables in vllm/envs.py.  SGLang: the
names in python/sglang/srt/environ.py (newer) or any os.environ/get_bool_env
read under python/sglang/srt (older) -- found with git grep.
"""
import json
import re
import subprocess
import sys

import classes


def git(d, *a):
    return subprocess.run(["git", "-C", d, *a], capture_output=True,
                          text=True).stdout


def main():
    engine, rel_file, dirs = sys.argv[1:4]
    dirs = dirs.split(",")
    wanted = [v for v, _, _ in (classes.VLLM_ENVS if engine == "vllm"
                                else classes.SGLANG_ENVS)]
    seen = {}
    for line in open(rel_file):
        if not line.strip():
            continue
        rel, commit = line.split()[:2]
        d = next((d for d in dirs if git(d, "cat-file", "-t", commit).strip()),
                 None)
        if not d:
            continue
        under = "vllm" if engine == "vllm" else "python/sglang/srt"
        pat = "|".join(wanted)
        out = git(d, "grep", "-n", "-E", f"[\"']({pat})[\"']", commit, "--",
                  under)
        found = {}
        for hit in out.splitlines():
            parts = hit.split(":", 3)
            if len(parts) < 4:
                continue
            _, path, ln, text = parts
            for v in wanted:
                if re.search(rf"[\"']{v}[\"']", text) and v not in found:
                    dm = re.search(r"(?:getenv|get)\([\"']" + v +
                                   r"[\"'],\s*([^)]*)\)", text)
                    found[v] = (f"{path}:{ln}", dm.group(1).strip()
                                if dm else "")
        tag = classes.source_tag(engine, rel, commit)
        for v, (src, default) in found.items():
            if v not in seen:
                seen[v] = [rel, rel, f"{src}@{tag}", default]
            else:
                seen[v][1] = rel
    json.dump(seen, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
