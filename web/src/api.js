/*
 * api.js -- globalThis.kvbudget, the calculator's JS API (web/build.sh
 * appends it to the Emscripten runtime to make dist/kvbudget.js).
 *
 * Each call runs the kvbudget command itself, compiled to WebAssembly,
 * with an argv built from `options` plus --json, and returns the object
 * the command prints: exactly what `kvbudget plan ... --json` gives for the
 * same inputs.  Options use the command's long flag names in snake_case
 * (max_model_len -> --max-model-len); true is a bare flag, false, null,
 * undefined and "" leave the flag out, an array repeats it.  No list of
 * flags is kept here: a flag the command learns works at once.
 *
 *   await kvbudget.ready
 *   kvbudget.plan({model: "Llama-3.1-8B", gpu: "A10G", max_model_len: 32768})
 *   kvbudget.fix(options)            the remedies (`kvbudget fix --json`)
 *   kvbudget.explain(logText, options)
 *   kvbudget.presets()               {models, gpus, instances, quants}
 *
 * `model` may also be a File or Blob (a GGUF, a safetensors file or index,
 * a config.json), or an array of them (a model folder): only their headers
 * are read, in the browser, and nothing leaves it.  plan/fix/explain then
 * return promises; with a preset name they return the object directly
 * (await works on both).  A usage or input error (the command's exit
 * status 2) throws an Error whose message is the command's and whose
 * .status, .stderr say more.
 */
(function () {
    "use strict";
    /* global kvbCoreCreate */
    var here = (document.currentScript && document.currentScript.src) ||
        location.href;
    var base = new URL(".", here);
    var lines = {out: [], err: []};
    var core = null;

    function loadScript(url) {
        return new Promise(function (resolve, reject) {
            var s = document.createElement("script");
            s.src = url;
            s.onload = resolve;
            s.onerror = function () {
                reject(new Error("kvbudget: cannot load " + url));
            };
            document.head.appendChild(s);
        });
    }

    /* A page opened from file:// may not fetch() its .wasm; a classic
     * script it may load, so the same bytes come as base64. */
    function wasmBinary() {
        if (base.protocol !== "file:")
            return Promise.resolve(undefined);
        return loadScript(new URL("kvbudget.wasm.js", base).href)
            .then(function () {
                var s = atob(globalThis.KVB_WASM_BASE64);
                delete globalThis.KVB_WASM_BASE64;
                var b = new Uint8Array(s.length);
                for (var i = 0; i < s.length; i++)
                    b[i] = s.charCodeAt(i);
                return b;
            });
    }

    var ready = wasmBinary().then(function (bin) {
        var opts = {
            print: function (l) { lines.out.push(l); },
            printErr: function (l) { lines.err.push(l); },
            locateFile: function (p) { return new URL(p, base).href; },
        };
        if (bin)
            opts.wasmBinary = bin;
        return kvbCoreCreate(opts);
    }).then(function (m) {
        core = m;
        core.FS.mkdir("/upload");
        return api;
    });

    /* ---- running the command ---- */

    function run(argv) {
        if (!core)
            throw new Error("kvbudget: not ready; await kvbudget.ready");
        lines.out = [];
        lines.err = [];
        var status = core.ccall("kvb_web_run", "number", ["string"],
                                [JSON.stringify(argv)]);
        return {status: status, stdout: lines.out.join("\n"),
                stderr: lines.err.join("\n")};
    }

    function runJSON(argv) {
        var r = run(argv.concat(["--json"]));
        /* explain prints its object with status 2 too (nothing
         * recognised); a usage error prints nothing on stdout. */
        if (r.stdout.trim().charAt(0) === "{" ||
            r.stdout.trim().charAt(0) === "[") {
            try {
                return JSON.parse(r.stdout);
            } catch (e) { /* fall through: report what it printed */ }
        }
        var e = new Error(r.stderr || r.stdout ||
                          "kvbudget: exit status " + r.status);
        e.status = r.status;
        e.stderr = r.stderr;
        e.argv = argv;
        throw e;
    }

    function isBlob(v) {
        return typeof Blob !== "undefined" && v instanceof Blob;
    }

    function isFiles(v) {
        if (isBlob(v))
            return true;
        if (v && typeof v === "object" && typeof v.length === "number" &&
            v.length > 0) {
            for (var i = 0; i < v.length; i++)
                if (!isBlob(v[i]))
                    return false;
            return true;
        }
        return false;
    }

    /* options -> argv, generically: key foo_bar -> --foo-bar. */
    function flags(options) {
        var argv = [];
        Object.keys(options || {}).forEach(function (k) {
            var v = options[k];
            if (k === "args" || v === undefined || v === null || v === false ||
                v === "")
                return;
            var flag = "--" + k.replace(/_/g, "-");
            if (v === true)
                argv.push(flag);
            else if (Array.isArray(v))
                v.forEach(function (x) { argv.push(flag, String(x)); });
            else
                argv.push(flag, String(v));
        });
        /* options.args: raw arguments appended as given (an escape
         * hatch for what a key cannot say). */
        if (Array.isArray(options && options.args))
            options.args.forEach(function (a) { argv.push(String(a)); });
        return argv;
    }

    /* ---- files: headers only, into the runtime's in-memory file system
     *
     * Each file is written with only a prefix of its bytes, but its stat
     * size is its real size (the readers check offsets against it).  A
     * read past the prefix comes back short and is recorded; the command
     * is then run again with a prefix that long, so only the bytes the
     * readers ask for are ever read from the disk (a GGUF's header, a
     * safetensors header, a whole config.json). ---- */

    var FIRST_PREFIX = 16 << 20;  /* the GGUF reader's first read */
    var MAX_PREFIX = 320 << 20;   /* above every reader's header limit */
    var uploads = 0;

    /* The bytes read of each file, kept while the File lives: the page
     * plans one file many times (the curve), and reads it once. */
    var prefixes = typeof WeakMap === "function" ? new WeakMap() : null;
    function readPrefix(file, prefix) {
        var hit = prefixes && prefixes.get(file);
        if (hit && hit.byteLength >= prefix)
            return Promise.resolve(hit.byteLength === prefix ? hit :
                                   hit.slice(0, prefix));
        return file.slice(0, prefix).arrayBuffer().then(function (buf) {
            if (prefixes)
                prefixes.set(file, buf);
            return buf;
        });
    }

    function stageFile(dir, file, prefix, wanted) {
        var FS = core.FS;
        var path = dir + "/" + (file.name || "model").replace(/\//g, "_");
        return readPrefix(file, prefix).then(function (buf) {
            FS.writeFile(path, new Uint8Array(buf));
            var node = FS.lookupPath(path).node;
            var size = file.size;
            var nops = node.node_ops, sops = node.stream_ops;
            node.node_ops = Object.assign({}, nops, {
                getattr: function (n) {
                    var a = nops.getattr(n);
                    a.size = size;
                    return a;
                },
            });
            node.stream_ops = Object.assign({}, sops, {
                read: function (stream, buffer, offset, length, position) {
                    var end = Math.min(position + length, size);
                    if (end > wanted.bytes)
                        wanted.bytes = end;
                    return sops.read(stream, buffer, offset, length, position);
                },
            });
            return path;
        });
    }

    /* Write the files (prefix bytes each) under a fresh folder; resolves
     * to the path --model gets: the file, or the folder for several. */
    function stage(files, prefix, wanted) {
        var list = isBlob(files) ? [files] : Array.prototype.slice.call(files);
        var dir = "/upload/" + (++uploads);
        /* A config.json picked with its folder names the model after the
         * folder, as the command does for a path. */
        var rel = list[0].webkitRelativePath || "";
        var folder = rel.indexOf("/") > 0 ? rel.split("/").slice(-2)[0] : "";
        core.FS.mkdir(dir);
        if (folder) {
            dir += "/" + folder.replace(/[^A-Za-z0-9._-]/g, "_");
            core.FS.mkdir(dir);
        }
        return Promise.all(list.map(function (f) {
            return stageFile(dir, f, Math.min(f.size, prefix), wanted);
        })).then(function (paths) {
            return list.length === 1 ? paths[0] : dir;
        });
    }

    function unstage(path) {
        var FS = core.FS;
        var top = "/upload/" + path.split("/")[2];
        (function rm(p) {
            var st = FS.stat(p);
            if (FS.isDir(st.mode)) {
                FS.readdir(p).forEach(function (n) {
                    if (n !== "." && n !== "..")
                        rm(p + "/" + n);
                });
                FS.rmdir(p);
            } else {
                FS.unlink(p);
            }
        })(top);
    }

    /* Run with the files staged; grow the prefix while a reader asked
     * for more than it had. */
    function withFiles(files, argvFor) {
        var biggest = 0;
        var list = isBlob(files) ? [files] : Array.prototype.slice.call(files);
        list.forEach(function (f) { biggest = Math.max(biggest, f.size); });
        function attempt(prefix) {
            var wanted = {bytes: 0};
            return stage(files, prefix, wanted).then(function (path) {
                var result, error;
                try {
                    result = runJSON(argvFor(path));
                } catch (e) {
                    error = e;
                }
                unstage(path);
                if (wanted.bytes > prefix && prefix < biggest &&
                    prefix < MAX_PREFIX)
                    return attempt(Math.min(Math.max(wanted.bytes, 2 * prefix),
                                            MAX_PREFIX));
                if (error)
                    throw error;
                return result;
            });
        }
        return attempt(Math.min(FIRST_PREFIX, Math.max(biggest, 1)));
    }

    function command(cmd, options, positional) {
        options = options || {};
        var rest = Object.assign({}, options);
        delete rest.model;
        var before = [cmd].concat(positional || []);
        if (isFiles(options.model)) {
            return withFiles(options.model, function (path) {
                return before.concat(["--model", path], flags(rest));
            });
        }
        return runJSON(before.concat(flags(options)));
    }

    /* ---- the API ---- */

    var api = {
        ready: ready,
        /* The capacity plan: `kvbudget plan --json`. */
        plan: function (options) { return command("plan", options); },
        /* The remedies, each re-planned: `kvbudget fix --json`. */
        fix: function (options) { return command("fix", options); },
        /* What a vLLM or CUDA log means: `kvbudget explain FILE --json`;
         * options add what the log does not say (the GPU, the model). */
        explain: function (text, options) {
            var path = "/upload/explain.log";
            var done = function () { core.FS.unlink(path); };
            core.FS.writeFile(path, String(text || ""));
            var r;
            try {
                r = command("explain", options, [path]);
            } catch (e) {
                done();
                throw e;
            }
            if (r && typeof r.then === "function")
                return r.finally(done);
            done();
            return r;
        },
        /* The presets: `kvbudget list models|gpus|instances|quants --json`. */
        presets: function () {
            var out = {};
            ["models", "gpus", "instances", "quants"].forEach(function (k) {
                out[k] = runJSON(["list", k]);
            });
            return out;
        },
        /* The command's exit status and output for any argv (no --json
         * added): what the page's tests and the curious use. */
        run: run,
        version: null,
    };
    ready.then(function () {
        api.version = run(["--version"]).stdout.trim();
    });
    globalThis.kvbudget = api;
})();
