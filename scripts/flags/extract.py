#!/usr/bin/env python3
"""Read vLLM's and SGLang's command-line flags, release by release, from
their own parser sources (static reading with `ast`; nothing is imported or
run), and write one JSON line per (release, flag) to stdout.

    extract.py vllm   GIT_DIR[,GIT_DIR...] RELEASES_TSV > vllm.jsonl
    extract.py sglang GIT_DIR[,GIT_DIR...] RELEASES_TSV > sglang.jsonl

RELEASES_TSV: "release<TAB>commit" lines, oldest first
(data/flags/vllm-releases.tsv, data/flags/sglang-releases.tsv); each commit
is read from the first GIT_DIR that has it.  data/flags/README.md says which
git snapshots were read.  build.py turns the JSON lines into the flag
tables.

What is emulated, from the sources:
 - parser.add_argument("--x", "-y", type=..., default=..., choices=...,
   action=...) calls in the parser files (names, arity, default, choices);
 - vLLM's get_kwargs(ConfigClass) (vllm/engine/arg_utils.py): a field typed
   bool becomes BooleanOptionalAction (--x/--no-x), Literal[...] gives
   choices, a dataclass or dict type takes JSON, list/tuple take nargs="+";
   the default is the field's default (or default_factory());
 - vLLM's FrontendArgs loop (one flag per dataclass field);
 - SGLang's add_cli_args_from_dataclass (python/sglang/srt/arg_groups/
   arg_utils.py): every A[T, "help"] / A[T, Arg(...)] field is a flag,
   bool -> store_true, Literal -> choices, List -> nargs="+".
"""
import ast
import json
import re
import subprocess
import sys

GIT = None


def git(*args):
    return subprocess.run(["git", "-C", GIT, *args], capture_output=True,
                          text=True).stdout


def show(commit, path):
    r = subprocess.run(["git", "-C", GIT, "show", f"{commit}:{path}"],
                       capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


CLASS_INDEX = {}


def grep_class(commit, name, under):
    """Files under `under` that define `class name` at top level (one git
    grep per commit and folder, indexed by class name)."""
    key = (GIT, commit, under)
    if key not in CLASS_INDEX:
        index = {}
        out = git("grep", "-n", "-E", r"^class \w+", commit, "--", under)
        for line in out.splitlines():
            parts = line.split(":", 3)
            if len(parts) < 4:
                continue
            m = re.match(r"class (\w+)", parts[3])
            if m:
                files = index.setdefault(m.group(1), [])
                if parts[1] not in files:
                    files.append(parts[1])
        CLASS_INDEX.clear()
        CLASS_INDEX[key] = index
    return CLASS_INDEX[key].get(name, [])


def unparse(node):
    try:
        return ast.unparse(node)
    except Exception:
        return "?"


def short(text, n=80):
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 3] + "..."


class Module:
    """A parsed file: its classes, module-level constants and aliases."""

    def __init__(self, path, text):
        self.path = path
        self.tree = ast.parse(text)
        self.classes = {}
        self.consts = {}
        for node in self.tree.body:
            if isinstance(node, ast.ClassDef):
                self.classes[node.name] = node
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                    isinstance(node.targets[0], ast.Name):
                self.consts[node.targets[0].id] = node.value
            elif isinstance(node, ast.AnnAssign) and \
                    isinstance(node.target, ast.Name) and node.value is not None:
                self.consts[node.target.id] = node.value
            elif isinstance(node, ast.If):  # TYPE_CHECKING / try blocks
                for sub in node.body:
                    if isinstance(sub, ast.Assign) and len(sub.targets) == 1 \
                            and isinstance(sub.targets[0], ast.Name):
                        self.consts.setdefault(sub.targets[0].id, sub.value)
            elif hasattr(ast, "TypeAlias") and isinstance(node, ast.TypeAlias):
                self.consts[node.name.id] = node.value


class Source:
    """Every module of one release that the parser reads."""

    def __init__(self, commit, roots):
        self.commit = commit
        self.roots = roots
        self.mods = {}
        self.class_cache = {}

    def mod(self, path):
        if path not in self.mods:
            text = show(self.commit, path)
            try:
                self.mods[path] = Module(path, text) if text else None
            except SyntaxError:
                self.mods[path] = None
        return self.mods[path]

    def find_class(self, name, prefer=()):
        if name in self.class_cache:
            return self.class_cache[name]
        found = None
        for p in prefer:
            m = self.mod(p)
            if m and name in m.classes:
                found = (m, m.classes[name])
                break
        if not found:
            for root in self.roots:
                for p in grep_class(self.commit, name, root):
                    m = self.mod(p)
                    if m and name in m.classes:
                        found = (m, m.classes[name])
                        break
                if found:
                    break
        self.class_cache[name] = found
        return found

    def const(self, name, mods):
        for m in mods:
            if m and name in m.consts:
                return m.consts[name]
        return None


# ---- type annotations -------------------------------------------------------

def names_in(node):
    skip = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Subscript) and unparse(n.value).endswith("Literal"):
            skip |= {id(x) for x in ast.walk(n.slice)}
    return {n.id for n in ast.walk(node)
            if isinstance(n, ast.Name) and id(n) not in skip} | \
        {n.attr for n in ast.walk(node)
         if isinstance(n, ast.Attribute) and id(n) not in skip}


def expand_alias(node, src, mods, depth=0):
    """Replace alias names (ModelDType = Literal[...]) by their values."""
    if depth > 4:
        return node

    class R(ast.NodeTransformer):
        def visit_Subscript(self, n):
            if unparse(n.value).endswith("Literal"):
                return n
            self.generic_visit(n)
            return n

        def visit_Name(self, n):
            v = src.const(n.id, mods)
            if v is not None and isinstance(v, (ast.Subscript, ast.BinOp,
                                                ast.Name, ast.Attribute)):
                return expand_alias(v, src, mods, depth + 1)
            return n

        def visit_Constant(self, n):  # string annotations
            if isinstance(n.value, str):
                try:
                    sub = ast.parse(n.value, mode="eval").body
                    return expand_alias(sub, src, mods, depth + 1)
                except SyntaxError:
                    return n
            return n
    return R().visit(ast.parse(unparse(node), mode="eval").body)


def literal_values(node):
    vals = []
    for n in ast.walk(node):
        if isinstance(n, ast.Subscript) and unparse(n.value).endswith("Literal"):
            sl = n.slice
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            for e in elts:
                if isinstance(e, ast.Constant):
                    vals.append(e.value)
    return vals


def classify_type(ann, src, mods, bool_action):
    """(arity, type, choices) of a dataclass field the way get_kwargs maps it."""
    node = expand_alias(ann, src, mods)
    text = unparse(node)
    tokens = names_in(node)
    # drop Annotated metadata: keep the first argument
    if isinstance(node, ast.Subscript) and unparse(node.value).endswith("Annotated"):
        sl = node.slice
        node = sl.elts[0] if isinstance(sl, ast.Tuple) else sl
        text = unparse(node)
        tokens = names_in(node)
    members = top_members(node)
    heads = [head_name(m) for m in members]
    dataclass_like = [h for h in heads if h[:1].isupper() and
                      (h.endswith("Config") or h.endswith("Args") or
                       h == "PretrainedConfig")]
    if dataclass_like:
        return "json", dataclass_like[0], None
    if "bool" in heads:
        return bool_action, "bool", None
    lits = []
    for m in members:
        if head_name(m) == "Literal":
            lits += literal_values(m)
    if lits:
        return "value", type(lits[0]).__name__, lits
    if set(heads) & {"list", "List", "tuple", "Tuple", "set", "Set",
                     "Sequence"}:
        return "value", "list", None
    if "int" in heads:
        return "value", "int", None
    if "float" in heads:
        return "value", "float", None
    if set(heads) & {"dict", "Dict", "Mapping"}:
        return "json", "dict", None
    return "value", "str", None


def top_members(node):
    """The members of a top-level union (X | None, Optional[X], Union[...])."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return top_members(node.left) + top_members(node.right)
    if isinstance(node, ast.Subscript):
        h = head_name(node)
        if h in ("Optional", "Union"):
            sl = node.slice
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            out = []
            for e in elts:
                out += top_members(e)
            return out
        if h == "Annotated":
            sl = node.slice
            return top_members(sl.elts[0] if isinstance(sl, ast.Tuple) else sl)
        if h == "SkipValidation":  # pydantic: Annotated[T, SkipValidation()]
            return top_members(node.slice)
    return [node]


def head_name(node):
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant):
        return repr(node.value)
    return unparse(node)


def field_default(value):
    if value is None:
        return "(required)"
    if isinstance(value, ast.Call):
        fn = unparse(value.func)
        if fn.split(".")[-1] in ("field", "Field"):
            for kw in value.keywords:
                if kw.arg == "default":
                    return unparse(kw.value)
                if kw.arg == "default_factory":
                    f = unparse(kw.value)
                    return {"dict": "{}", "list": "[]", "set": "set()"}.get(
                        f, f + "()" if not f.startswith("lambda") else
                        unparse(kw.value.body))
            if value.args:
                return unparse(value.args[0])
            return "(required)"
    return unparse(value)


def class_fields(src, name, prefer=()):
    """[(field, annotation node, default text, module)] with bases first."""
    found = src.find_class(name, prefer)
    if not found:
        return []
    m, cls = found
    out = []
    for b in cls.bases:
        bn = unparse(b).split(".")[-1]
        if bn not in ("object",) and bn[:1].isupper():
            out += class_fields(src, bn, prefer)
    for st in cls.body:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            a = unparse(st.annotation)
            if "ClassVar" in a or "InitVar" in a:
                continue
            out = [f for f in out if f[0] != st.target.id]
            out.append((st.target.id, st.annotation, field_default(st.value), m))
    return out


# ---- add_argument calls -----------------------------------------------------

def resolve_default(node, src, mods, depth=0):
    text = unparse(node)
    m = re.fullmatch(r"([A-Z]\w*)\.(\w+)", text)
    if m and depth < 5:
        for f, _, d, fm in class_fields(src, m.group(1)):
            if f == m.group(2):
                try:
                    return resolve_default(ast.parse(d, mode="eval").body, src,
                                           [fm] + mods, depth + 1)
                except SyntaxError:
                    return d
    if isinstance(node, ast.Name) and depth < 5:
        v = src.const(node.id, mods)
        if isinstance(v, ast.Constant):
            return unparse(v)
    return text


def resolve_choices(node, src, mods):
    if node is None:
        return None
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        vals = []
        for e in node.elts:
            if isinstance(e, ast.Constant):
                vals.append(e.value)
            elif isinstance(e, ast.Starred):
                sub = resolve_choices(e.value, src, mods)
                vals += sub if isinstance(sub, list) else [f"*{unparse(e.value)}"]
            else:
                vals.append(unparse(e))
        return vals
    if isinstance(node, ast.Name):
        v = src.const(node.id, mods)
        if v is not None and not isinstance(v, ast.Name):
            r = resolve_choices(v, src, mods)
            if isinstance(r, list):
                return r
    if isinstance(node, ast.Call) and unparse(node.func).endswith("get_args") \
            and node.args and isinstance(node.args[0], ast.Name):
        v = src.const(node.args[0].id, mods)
        if v is not None:
            vals = literal_values(expand_alias(v, src, mods))
            if vals:
                return vals
    if isinstance(node, ast.Call) and unparse(node.func) in ("list", "sorted") \
            and node.args:
        return resolve_choices(node.args[0], src, mods)
    return "<" + unparse(node) + ">"


def arity_of(kw, names):
    action = unparse(kw["action"]) if "action" in kw else ""
    typ = unparse(kw["type"]) if "type" in kw else ""
    nargs = unparse(kw["nargs"]) if "nargs" in kw else ""
    if "BooleanOptionalAction" in action:
        return "optional-bool"
    if "DeprecatedAliasStore" in action:
        return "value"
    if "Deprecated" in action and "Alias" not in action:
        return "bare"
    if action.strip("'\"") in ("store_true", "store_false", "store_const",
                               "count"):
        return "bare"
    if action and "append" not in action and "Action" in action and not typ:
        # custom actions (DeprecatedAction ...) take nargs=0 or a value
        return "bare" if nargs in ("0",) else "value"
    if nargs == "'?'" or nargs == '"?"':
        return "optional-value"
    if re.search(r"json|dict|kvs|nullable_kvs|parse_dataclass|dataclass|"
                 r"from_cli|Config", typ, re.I):
        return "json"
    return "value"


def kw_dict(call):
    return {k.arg: k.value for k in call.keywords if k.arg}


def star_kwargs(call):
    return [k.value for k in call.keywords if k.arg is None]


def int_type_overrides(src):
    """{field: type expression} for the int fields whose argparse type
    vLLM's get_kwargs/_compute_kwargs replaces by name (human_readable_int
    from v0.9.0, human_readable_int_or_auto for max_model_len from v0.14.0):
    every `if name == "x"` / `if name in {...}` whose body assigns
    kwargs[name]["type"]."""
    if hasattr(src, "int_overrides"):
        return src.int_overrides
    out = {}
    m = src.mod("vllm/engine/arg_utils.py")
    fns = [n for n in ast.walk(m.tree) if isinstance(n, ast.FunctionDef) and
           n.name in ("get_kwargs", "_compute_kwargs")] if m else []
    for fn in fns:
        local = {}
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                    isinstance(n.targets[0], ast.Name):
                local[n.targets[0].id] = n.value
        for n in ast.walk(fn):
            if not (isinstance(n, ast.If) and isinstance(n.test, ast.Compare)
                    and unparse(n.test.left) == "name"
                    and len(n.test.comparators) == 1):
                continue
            c = n.test.comparators[0]
            if isinstance(c, ast.Name):
                c = local.get(c.id, c)
            if isinstance(c, ast.Constant):
                names = [c.value]
            elif isinstance(c, (ast.Set, ast.Tuple, ast.List)):
                names = [e.value for e in c.elts if isinstance(e, ast.Constant)]
            else:
                continue
            for st in n.body:
                if isinstance(st, ast.Assign) and \
                        unparse(st.targets[0]) == "kwargs[name]['type']":
                    for nm in names:
                        out.setdefault(nm, unparse(st.value))
    src.int_overrides = out
    return out


def emulate_get_kwargs(src, cls_name, field, mods, bool_action="optional-bool"):
    for f, ann, default, fm in class_fields(src, cls_name):
        if f == field:
            arity, typ, choices = classify_type(ann, src, [fm] + mods,
                                                bool_action)
            if typ == "int":
                typ = int_type_overrides(src).get(field, typ)
            return {"arity": arity, "type": typ, "choices": choices,
                    "default": default, "from": f"{cls_name}.{field}",
                    "path": fm.path, "nargs": "+" if typ == "list" else None}
    return None


def walk_calls(func):
    """add_argument calls and for-loops over kwargs dicts, in order."""
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "add_argument":
            yield node


def get_kwargs_vars(func):
    """{var: ConfigClass} for `var = get_kwargs(ConfigClass)` in a function."""
    out = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and unparse(node.value.func).endswith("get_kwargs") \
                and node.value.args:
            for t in node.targets:
                if isinstance(t, ast.Name):
                    arg = unparse(node.value.args[0])
                    out[t.id] = arg
    return out


def flags_from_module(src, path, engine, extra_mods=()):
    m = src.mod(path)
    if not m:
        return []
    mods = [m, *extra_mods]
    out = []
    funcs = [n for n in ast.walk(m.tree)
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for fn in funcs:
        kvars = get_kwargs_vars(fn)
        # enclosing class name, for get_kwargs(cls)
        for call in walk_calls(fn):
            # only direct children of this function (nested defs handled by
            # their own iteration): skip calls inside nested functions
            if any(call in ast.walk(sub) for sub in fn.body
                   if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef))):
                continue
            names = [a.value for a in call.args
                     if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            fstr = [a for a in call.args if isinstance(a, ast.JoinedStr)]
            kw = kw_dict(call)
            stars = star_kwargs(call)
            rec = None
            if stars:
                s = stars[0]
                if isinstance(s, ast.Dict):
                    for k, v in zip(s.keys, s.values):
                        if k is None:
                            s2 = v
                        elif isinstance(k, ast.Constant):
                            kw.setdefault(k.value, v)
                    s = s2 if any(k is None for k in s.keys) else s
                if isinstance(s, ast.Name) and not fstr:
                    bound = bound_subscript(fn, s.id)
                    if bound is not None:
                        s = bound
                if isinstance(s, ast.Subscript) and isinstance(s.value, ast.Name):
                    var = s.value.id
                    field = s.slice.value if isinstance(s.slice, ast.Constant) \
                        else None
                    cls = kvars.get(var)
                    if cls and field:
                        rec = emulate_get_kwargs(src, cls, field, mods)
                elif isinstance(s, ast.Name) and fstr:
                    # for key, value in X_kwargs.items(): add_argument(f"--{key}")
                    loop = loop_over(fn, call)
                    if loop:
                        cls = kvars.get(loop)
                        if cls in ("cls",):
                            cls = enclosing_class(m, fn)
                        for f, ann, default, fm in class_fields(src, cls):
                            arity, typ, choices = classify_type(
                                ann, src, [fm] + mods, "optional-bool")
                            out.append(dict(
                                names=["--" + f.replace("_", "-")],
                                arity=arity, type=typ, choices=choices,
                                default=default, path=fm.path,
                                line=None, cls=f"{cls}.{f}",
                                nargs="+" if typ == "list" else None))
                    continue
            if not names:
                continue
            if rec is None:
                rec = {"arity": "value", "type": None, "choices": None,
                       "default": "None", "path": path}
            if kw:
                if "action" in kw or "type" in kw or "nargs" in kw:
                    a = arity_of(kw, names)
                    if not (rec.get("from") and "type" in kw and
                            "action" not in kw and rec["arity"] == "json"
                            and a == "value"):
                        rec["arity"] = a
                if "type" in kw:
                    rec["type"] = unparse(kw["type"])
                if rec["arity"] == "optional-bool":
                    rec["type"] = "bool"
                if "action" in kw:
                    act = unparse(kw["action"]).strip("'\"")
                    if act in ("store_true", "store_false"):
                        rec["type"] = "bool"
                        rec["default"] = "False" if act == "store_true" \
                            else "True"
                if "default" in kw:
                    dn = kw["default"]
                    mm = re.fullmatch(r"""(\w+)\[['"](\w+)['"]\]\[['"]default['"]\]""",
                                      unparse(dn))
                    if mm and mm.group(1) in kvars:
                        r2 = emulate_get_kwargs(src, kvars[mm.group(1)],
                                                mm.group(2), mods)
                        rec["default"] = r2["default"] if r2 else unparse(dn)
                    else:
                        rec["default"] = resolve_default(dn, src, mods)
                if "choices" in kw:
                    rec["choices"] = resolve_choices(kw["choices"], src, mods)
                if "nargs" in kw:
                    rec["nargs"] = unparse(kw["nargs"]).strip("'\"")
            if rec.get("type") is None:
                rec["type"] = "str"
            note = None
            if "action" in kw and "Deprecated" in unparse(kw["action"]):
                note = "deprecated: " + ("parser.error when given"
                                         if "error_message" in kw
                                         else "warns, still accepted")
            if unparse(kw.get("help", ast.Constant(""))) == "argparse.SUPPRESS":
                note = (note + "; " if note else "") + "hidden from --help"
            out.append(dict(names=names, line=call.lineno, path=path, note=note,
                            **{k: rec.get(k) for k in
                               ("arity", "type", "choices", "default",
                                "nargs")},
                            cls=rec.get("from")))
    return out


def bound_subscript(fn, name):
    """`name = X_kwargs["field"]` in fn, if any."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and \
                node.targets[0].id == name and \
                isinstance(node.value, ast.Subscript):
            return node.value
    return None


def loop_over(fn, call):
    for node in ast.walk(fn):
        if isinstance(node, ast.For) and any(call is n for n in ast.walk(node)):
            it = node.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute):
                base = it.func.value
                if isinstance(base, ast.Name):
                    return base.id
    return None


def enclosing_class(m, fn):
    for node in ast.walk(m.tree):
        if isinstance(node, ast.ClassDef) and fn in node.body:
            return node.name
    return None


# ---- SGLang's dataclass-derived flags ---------------------------------------

def sglang_dataclass_flags(src, path):
    """add_cli_args_from_dataclass(parser, Cls): A[T, "help"] fields."""
    m = src.mod(path)
    if not m or "add_cli_args_from_dataclass" not in unparse(m.tree):
        return []
    out = []
    targets = set()
    for node in ast.walk(m.tree):
        if isinstance(node, ast.Call) and \
                unparse(node.func).endswith("add_cli_args_from_dataclass") \
                and len(node.args) >= 2:
            targets.add(unparse(node.args[1]))
    for cls in sorted(targets):
        cname = cls if cls != "cls" else "ServerArgs"
        found = src.find_class(cname, prefer=(path,))
        if not found:
            continue
        fm, cnode = found
        for st in cnode.body:
            if not (isinstance(st, ast.AnnAssign) and
                    isinstance(st.target, ast.Name)):
                continue
            ann = st.annotation
            if not (isinstance(ann, ast.Subscript) and
                    unparse(ann.value) in ("A", "Annotated")):
                continue
            elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else []
            if len(elts) < 2:
                continue
            inner = elts[0]
            meta = None
            for e in elts[1:]:
                if isinstance(e, ast.Call) and unparse(e.func) == "Arg":
                    meta = kw_dict(e)
                elif isinstance(e, (ast.Constant, ast.JoinedStr, ast.BinOp)):
                    meta = meta if meta is not None else {}
            if meta is None:
                continue
            if "no_cli" in meta and unparse(meta["no_cli"]) == "True":
                continue
            field = st.target.id
            cli = meta.get("cli_name")
            name = cli.value if isinstance(cli, ast.Constant) else \
                "--" + field.replace("_", "-")
            names = [name]
            if "aliases" in meta:
                al = resolve_choices(meta["aliases"], src, [fm])
                if isinstance(al, list):
                    names += [str(a) for a in al]
            default = field_default(st.value)
            nargs = unparse(meta["nargs"]).strip("'\"") if "nargs" in meta \
                else None
            if "action" in meta:
                kw = {"action": meta["action"]}
                if "action_kwargs" in meta:
                    for k in getattr(meta["action_kwargs"], "keys", []):
                        if isinstance(k, ast.Constant) and k.value == "nargs":
                            kw["nargs"] = meta["action_kwargs"].values[
                                meta["action_kwargs"].keys.index(k)]
                arity = arity_of(kw, names)
                if "nargs" in kw:
                    nargs = unparse(kw["nargs"]).strip("'\"")
                typ = "action:" + unparse(meta["action"])
                choices = None
            else:
                arity, typ, choices = classify_type(inner, src, [fm], "bare")
                if typ == "bool":
                    arity = "bare"
                if typ in ("dict",) or arity == "json":
                    arity = "json" if "type_parser" in meta or typ == "dict" \
                        else "value"
                if "type_parser" in meta:
                    tp = unparse(meta["type_parser"])
                    typ = tp
                    if re.search(r"json|dict", tp, re.I):
                        arity = "json"
                if "choices" in meta:
                    choices = resolve_choices(meta["choices"], src, [fm])
                if nargs == "?":
                    arity = "optional-value"
                if typ == "list" and "type_parser" not in meta:
                    nargs = nargs or "+"  # arg_utils.py: List -> nargs "+"
            out.append(dict(names=names, arity=arity, type=typ,
                            choices=choices, default=default, path=fm.path,
                            line=st.lineno, cls=f"{cname}.{field}",
                            nargs=nargs))
    return out


# ---- per engine -------------------------------------------------------------

VLLM_FILES = [
    "vllm/engine/arg_utils.py",
    "vllm/entrypoints/openai/cli_args.py",
    "vllm/entrypoints/openai/api_server.py",
    "vllm/entrypoints/cli/serve.py",
]


def vllm_release(commit):
    src = Source(commit, ["vllm"])
    flags = []
    for p in VLLM_FILES:
        flags += flags_from_module(src, p, "vllm")
    return flags


def sglang_release(commit):
    src = Source(commit, ["python/sglang/srt"])
    p = "python/sglang/srt/server_args.py"
    flags = flags_from_module(src, p, "sglang")
    flags += sglang_dataclass_flags(src, p)
    return flags


def has_commit(git_dir, commit):
    r = subprocess.run(["git", "-C", git_dir, "cat-file", "-e",
                        commit + "^{commit}"], capture_output=True)
    return r.returncode == 0


def main():
    global GIT
    engine, dirs, releases = sys.argv[1:4]
    dirs = dirs.split(",")
    fn = vllm_release if engine == "vllm" else sglang_release
    for line in open(releases):
        if not line.strip() or line.startswith("#"):
            continue
        rel, commit = line.split()[:2]
        GIT = next((d for d in dirs if has_commit(d, commit)), None)
        if GIT is None:
            sys.exit(f"extract.py: no GIT_DIR has {commit} ({rel})")
        for f in fn(commit):
            f["release"] = rel
            f["commit"] = commit
            if isinstance(f.get("choices"), list):
                f["choices"] = [str(c) for c in f["choices"]]
            print(json.dumps(f, default=str), flush=True)


if __name__ == "__main__":
    main()
