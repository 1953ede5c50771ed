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


# where each engine defines its environment variables
DEFS = ("vllm/envs.py", "python/sglang/srt/environ.py")


def default_of(var, lines):
    """The default in the definition: os.getenv("VAR", d) / environ.get(...)
    (vLLM, older SGLang) or VAR = EnvInt(d) (SGLang environ.py); "?" when
    the definition computes it some other way."""
    text = " ".join(lines)
    m = re.search(r"(?:getenv|get)\(\s*[\"']" + var + r"[\"']\s*,", text)
    if not m:
        m = re.search(var + r"\s*=\s*Env\w+\(", text)
    if not m:
        return "?"
    depth, end = 1, m.end()
    while end < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        end += 1
    arg = text[m.end():end - 1] if depth == 0 else text[m.end():]
    return " ".join(arg.split()).strip("\"'") or "?"


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
        # a quoted name (os.getenv("X"), the keys of vllm/envs.py) or an
        # SGLang environ.py definition (X = EnvInt(...), no quotes)
        out = git(d, "grep", "-n", "-E",
                  f"[\"']({pat})[\"']|^ *({pat}) *= *Env[A-Za-z]*\\(",
                  commit, "--", under)
        found = {}
        for hit in out.splitlines():
            parts = hit.split(":", 3)
            if len(parts) < 4:
                continue
            _, path, ln, text = parts
            for v in wanted:
                if not re.search(rf"[\"']{v}[\"']|^ *{v} *= *Env\w*\(", text):
                    continue
                # the definition file wins over the first file that reads it
                if v not in found or (path in DEFS and
                                      found[v][0].split(":")[0] not in DEFS):
                    found[v] = (f"{path}:{ln}", path, int(ln))
        tag = classes.source_tag(engine, rel, commit)
        texts = {}
        for v, (src, path, ln) in found.items():
            if path not in texts:
                texts[path] = git(d, "show", f"{commit}:{path}").splitlines()
            default = default_of(v, texts[path][ln - 1:ln + 3])
            if v not in seen:
                seen[v] = [rel, rel, f"{src}@{tag}", default, default]
            else:
                seen[v][1] = rel
                if default != seen[v][4]:
                    seen[v][3] += f"; {default} from {rel}"
                    seen[v][4] = default
    for v in seen:
        seen[v] = seen[v][:4]
    json.dump(seen, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
