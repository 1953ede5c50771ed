#!/usr/bin/env python3
"""Turn extract.py's JSON lines into the flag table of one engine.

    build.py vllm   RELEASES_TSV ENV_JSON vllm.jsonl...   > vllm.tsv
    build.py sglang RELEASES_TSV ENV_JSON sglang.jsonl... > sglang.tsv

ENV_JSON is envscan.py's output (data/flags/env-<engine>.json): the
releases that read each memory environment variable.

One row per flag and period: consecutive releases whose parser gives the
flag the same spellings, arity, default, choices and type share a row.  The memory class
and reason come from classes.py (written by hand, from the engines'
sources; README.md and NOTES.md say how).
"""
import json
import re
import sys

import classes

COLUMNS = ["names", "env", "arity", "since", "until", "memory", "default",
           "reason", "source", "type", "bounds", "note"]


def clean(text, n=120):
    text = " ".join(str(text).split()).replace("\t", " ")
    if text in ("", "None", "null"):
        return "None" if text else "-"
    return text if len(text) <= n else text[: n - 3] + "..."


def dotted(engine, rel, order, name):
    # vLLM's FlexibleArgumentParser turns --x.key=v into --x '{"key": v}'
    # from v0.9.0 (vllm/utils.py:1452@v0.9.0, create_nested_dict), and
    # single-dash names (-cc.key=v) too from v0.9.2
    # (vllm/utils/__init__.py:1556@v0.9.2).
    if engine != "vllm":
        return False
    first = "0.9.0" if name.startswith("--") else "0.9.2"
    return order.index(rel) >= order.index(first)


def spellings(engine, rec, order):
    names = list(rec["names"])
    if rec["arity"] == "optional-bool":
        names += ["--no-" + n[2:] for n in rec["names"] if n.startswith("--")]
    if rec["arity"] == "json":
        names += [n + ".*" for n in rec["names"]
                  if n.startswith("-") and dotted(engine, rec["release"], order, n)
                  and not (n == "-O")]  # -O.<key> is in EXTRA_SPELLINGS
    at = order.index(rec["release"])
    for spell, since, until in classes.EXTRA_SPELLINGS.get(engine, {}).get(
            rec["names"][0], []):
        if order.index(since) <= at and (until is None or
                                         at <= order.index(until)):
            names.append(spell)
    return names


def arity(rec):
    a = rec["arity"]
    return "value" if a == "optional-value" else a


def bounds(rec):
    parts = []
    ch = rec.get("choices")
    if isinstance(ch, list):
        parts.append("choices=" + ",".join(ch))
    elif ch:
        parts.append("choices=" + str(ch))
    if rec["arity"] == "optional-value":
        parts.append("nargs=? (value optional)")
    elif rec.get("nargs") not in (None, "", "?"):
        parts.append("nargs=" + rec["nargs"])
    return clean("; ".join(parts), 400) if parts else "-"


def type_text(rec):
    t = rec.get("type") or "str"
    if rec.get("cls"):
        t += f" ({rec['cls']})"
    return clean(t, 100)


def value_form(rec):
    """The argparse type as far as it changes what values parse: None-able
    wrappers (nullable_str, optional_type(x)) and the config class a
    get_kwargs flag comes from are left out, so only real changes (int ->
    human_readable_int -> human_readable_int_or_auto, str -> list ...) start
    a new period."""
    t = rec.get("type") or "str"
    if rec["arity"] in ("bare", "optional-bool"):
        return "bool"  # the arity column says which flag form
    if rec.get("choices"):
        return "choices"  # the bounds column lists them
    if t == "list" or rec.get("nargs") not in (None, "", "?"):
        return "list"  # a list of values; nargs (bounds) says how many
    m = re.fullmatch(r"optional_type\((.*)\)", t)
    if m:
        t = m.group(1)
    return {"nullable_str": "str"}.get(t, t)


def key_of(rec):
    n = rec["names"][0]
    return n if n.startswith("-") else "positional:" + n


def main():
    engine, rel_file, env_file, *inputs = sys.argv[1:]
    order = [l.split("\t")[0] for l in open(rel_file) if l.strip()]
    commits = dict(l.rstrip("\n").split("\t")[:2] for l in open(rel_file)
                   if l.strip())
    order = [r for r in order if not r.startswith("#")]
    per = {}  # key -> release -> record
    for path in inputs:
        for line in open(path):
            r = json.loads(line)
            if r["release"] not in commits:
                continue
            k = key_of(r)
            slot = per.setdefault(k, {})
            if r["release"] in slot:  # defined twice (V0 and V1 paths)
                continue
            slot[r["release"]] = r
    rows = []
    for k, rels in per.items():
        period = None
        for rel in order:
            r = rels.get(rel)
            if r is None:
                if period:
                    rows.append(period)
                    period = None
                continue
            sig = (tuple(spellings(engine, r, order)), arity(r),
                   clean(r.get("default")), bounds(r), value_form(r))
            if period and period["sig"] == sig:
                period["until"] = rel
                continue
            if period:
                rows.append(period)
            period = {"sig": sig, "rec": r, "since": rel, "until": rel}
        if period:
            rows.append(period)
    latest = order[-1]
    out = ["\t".join(COLUMNS)]
    unclassified = set()
    for p in sorted(rows, key=lambda p: (order.index(p["since"]),
                                         key_of(p["rec"]))):
        r = p["rec"]
        names, ar, default, bnd, _ = p["sig"]
        mem, reason = classes.classify(engine, r["names"], ar)
        if mem is None:
            unclassified.add(r["names"][0])
            mem, reason = "unmodelled", "UNCLASSIFIED"
        src_rel = p["since"]
        tag = classes.source_tag(engine, src_rel, commits[src_rel])
        line = f":{r['line']}" if r.get("line") else ""
        note = r.get("note") or ""
        extra = classes.NOTES.get(engine, {}).get(r["names"][0], "")
        note = "; ".join(x for x in (note, extra) if x) or "-"
        out.append("\t".join([
            "|".join(names),
            classes.ENV.get(engine, {}).get(r["names"][0], "-"),
            ar,
            src_rel,
            "-" if p["until"] == latest else p["until"],
            mem,
            default,
            reason,
            f"{r['path']}{line}@{tag}",
            type_text(r),
            bnd,
            clean(note, 300),
        ]))
    for row in classes.env_rows(engine, order, env_file):
        out.append("\t".join(row))
    sys.stdout.write("\n".join(out) + "\n")
    if unclassified:
        sys.stderr.write("unclassified: " + " ".join(sorted(unclassified))
                         + "\n")


if __name__ == "__main__":
    main()
