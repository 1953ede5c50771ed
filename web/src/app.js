/*
 * app.js -- the calculator page over globalThis.kvbudget (api.js).
 *
 * The form's state lives in the URL query, in the API's option names
 * (?model=Llama-3.1-8B&gpu=A10G&max_model_len=32768), so a link reproduces
 * the answer; query keys the form has no field for are passed on to the
 * library as they are (any flag of `kvbudget plan`).
 */
(function () {
    "use strict";
    var kvb = globalThis.kvbudget;
    var $ = function (id) { return document.getElementById(id); };
    var FIELDS = ["model", "quant", "kv_cache_dtype", "gpu", "gpus",
                  "instance", "engine", "max_model_len",
                  "tensor_parallel_size", "pipeline_parallel_size",
                  "gpu_memory_utilization", "max_num_seqs", "concurrency",
                  "enforce_eager"];
    var DEFAULTS = {model: "Llama-3.1-8B", gpu: "A10G", gpus: "1"};
    var GIB = 1073741824;
    var extra = {};     /* query keys without a form field */
    var files = null;   /* the model files dropped or picked */
    var presets = null;
    var seq = 0;        /* the latest update; older async results drop */

    function gib(b) { return (b / GIB).toFixed(2); }
    function el(tag, attrs, text) {
        var e = document.createElement(tag);
        Object.keys(attrs || {}).forEach(function (k) {
            e.setAttribute(k, attrs[k]);
        });
        if (text !== undefined)
            e.textContent = text;
        return e;
    }
    function fill(select, names) {
        names.forEach(function (n) {
            var o = el("option", {value: n.value}, n.label);
            select.appendChild(o);
        });
    }

    /* ---- state: form <-> options <-> URL ---- */

    function options() {
        var o = {};
        FIELDS.forEach(function (k) {
            var f = $(k);
            if (f.type === "checkbox") {
                if (f.checked)
                    o[k] = true;
            } else if (f.value.trim() !== "") {
                o[k] = f.value.trim();
            }
        });
        if (o.instance) {
            delete o.gpu;
            delete o.gpus;
        }
        if (o.gpus === "1")
            delete o.gpus;
        Object.keys(extra).forEach(function (k) { o[k] = extra[k]; });
        if (files)
            o.model = files;
        return o;
    }

    function writeURL() {
        var q = new URLSearchParams();
        var o = options();
        Object.keys(o).forEach(function (k) {
            if (k === "model" && files)
                return; /* a file cannot travel in a link */
            q.set(k, o[k] === true ? "true" : o[k]);
        });
        var s = q.toString().replace(/%2F/g, "/").replace(/%3A/g, ":");
        history.replaceState(null, "", s ? "?" + s : location.pathname);
    }

    function readURL() {
        var q = new URLSearchParams(location.search);
        var given = {};
        q.forEach(function (v, k) { given[k] = v; });
        var init = Object.keys(given).length ? given : DEFAULTS;
        if (init !== DEFAULTS && !("gpu" in init) && !("instance" in init))
            init.gpu = "";
        if (!("model" in init))
            init.model = DEFAULTS.model; /* a link made with a dropped file */
        FIELDS.forEach(function (k) {
            var f = $(k);
            var v = k in init ? init[k] : (k === "gpus" ? "1" : "");
            if (f.type === "checkbox")
                f.checked = v === "true" || v === "1";
            else
                setValue(f, v);
        });
        Object.keys(given).forEach(function (k) {
            if (FIELDS.indexOf(k) < 0)
                extra[k] = given[k];
        });
    }

    /* A select keeps a value it has no option for (a GPU the preset
     * list lacks, "H100:2"): the library judges it. */
    function setValue(f, v) {
        if (f.tagName === "SELECT" && v &&
            !Array.prototype.some.call(f.options,
                                       function (o) { return o.value === v; }))
            f.appendChild(el("option", {value: v}, v));
        f.value = v;
    }

    /* ---- results ---- */

    var SEGMENTS = [
        ["weights_bytes_per_gpu", "weights", "seg-w"],
        ["activation_bytes_per_gpu", "activation peak", "seg-a"],
        ["non_torch_bytes_per_gpu", "non-torch", "seg-n"],
        ["cudagraph_bytes_per_gpu", "CUDA graphs", "seg-g"],
        ["kv_budget_bytes_per_gpu", "KV cache", "seg-k"],
    ];

    function showError(e) {
        var v = $("verdict");
        v.className = "verdict error";
        v.textContent = String(e.message || e).replace(/^kvbudget \w+: /, "");
        ["bar-figure", "terms", "curve-figure", "fixes-section"]
            .forEach(function (id) { $(id).hidden = true; });
    }

    function showVerdict(p) {
        var v = $("verdict");
        v.className = "verdict " + (p.fits ? "fits" : "nofit");
        v.textContent = "";
        var head = el("p", {class: "head"},
                      p.fits ? "Fits" : "Does not fit (" +
                      p.verdict.replace(/_/g, " ") + ")");
        v.appendChild(head);
        v.appendChild(el("p", {}, p.message));
        var facts = el("p", {class: "facts"});
        facts.textContent = p.max_kv_tokens.toLocaleString("en") +
            " KV tokens · " + Number(p.max_concurrency).toFixed(2) +
            "x concurrency at " + p.max_model_len.toLocaleString("en") +
            " · largest max-model-len " +
            p.max_model_len_fit.toLocaleString("en");
        v.appendChild(facts);
        if (p.engine_error) {
            var d = el("details");
            d.appendChild(el("summary", {}, "What " + p.engine + " would say"));
            d.appendChild(el("pre", {}, p.engine_error));
            v.appendChild(d);
        }
    }

    function showBar(p) {
        var total = p.gpu_total_bytes, used = 0;
        var parts = SEGMENTS.map(function (s) {
            var b = Math.max(0, p[s[0]] || 0);
            used += b;
            return {bytes: b, label: s[1], cls: s[2]};
        });
        parts.push({bytes: Math.max(0, total - used),
                    label: "headroom and CUDA context", cls: "seg-h"});
        var scale = Math.max(total, used);
        var bar = $("bar"), legend = $("legend");
        bar.textContent = "";
        legend.textContent = "";
        parts.forEach(function (s) {
            var seg = el("span", {class: "seg " + s.cls});
            seg.style.width = (100 * s.bytes / scale) + "%";
            seg.title = s.label + " " + gib(s.bytes) + " GiB";
            bar.appendChild(seg);
            var li = el("li");
            li.appendChild(el("span", {class: "swatch " + s.cls,
                                       "aria-hidden": "true"}));
            li.appendChild(document.createTextNode(s.label + " " +
                                                   gib(s.bytes) + " GiB"));
            legend.appendChild(li);
        });
        if (used > total) {
            var end = el("span", {class: "gpu-end"});
            end.style.left = (100 * total / scale) + "%";
            end.title = "the GPU ends here";
            bar.appendChild(end);
        }
        $("bar-caption").textContent = "GPU memory, " + gib(total) +
            " GiB per GPU (" + p.gpu_count + " x " + p.gpu + ")";
        bar.setAttribute("aria-label", parts.map(function (s) {
            return s.label + " " + gib(s.bytes) + " GiB";
        }).join(", "));
        $("bar-figure").hidden = false;
    }

    function showTerms(p) {
        var rows = [
            ["GPU memory", gib(p.gpu_total_bytes) + " GiB", "as CUDA reports it"],
            ["usable (x " + p.gpu_memory_utilization + ")",
             gib(p.usable_bytes_per_gpu) + " GiB", ""],
            ["weights", gib(p.weights_bytes_per_gpu) + " GiB",
             (p.param_count / 1e9).toFixed(2) + "B parameters, " + p.quant],
            ["activation peak", gib(p.activation_bytes_per_gpu) + " GiB", ""],
            ["non-torch", gib(p.non_torch_bytes_per_gpu) + " GiB", ""],
            ["CUDA graphs", gib(p.cudagraph_bytes_per_gpu) + " GiB",
             p.cudagraph_in_budget ? "inside the budget" : "outside the budget"],
            ["KV cache", gib(p.kv_budget_bytes_per_gpu) + " GiB",
             p.num_blocks.toLocaleString("en") + " blocks of " + p.block_size],
            ["KV bytes per token", p.kv_bytes_per_token_per_gpu.toLocaleString("en"),
             "per GPU"],
            ["KV tokens", p.max_kv_tokens.toLocaleString("en"), ""],
            ["engine", p.engine + " " + p.engine_version, p.accounting + ", TP " +
             p.tp + " x PP " + p.pp],
        ];
        var tb = $("terms").tBodies[0];
        tb.textContent = "";
        rows.forEach(function (r) {
            var tr = el("tr");
            tr.appendChild(el("th", {scope: "row"}, r[0]));
            tr.appendChild(el("td", {class: "num"}, r[1]));
            tr.appendChild(el("td", {}, r[2]));
            tb.appendChild(tr);
        });
        $("terms").hidden = false;
    }

    /* ---- the concurrency curve: this GPU and its neighbours by
     * memory, max-model-len in powers of two ---- */

    /* The chosen GPU and up to two smaller and two larger ones, each of
     * a distinct memory size (GPUs of the same size draw the same line). */
    function neighbours(name) {
        var g = presets.gpus.slice().sort(function (a, b) {
            return a.total_bytes - b.total_bytes;
        });
        var me = g.find(function (x) { return x.name === name; });
        if (!me)
            return [name];
        var gib0 = function (x) { return Math.round(x.total_bytes / GIB); };
        var seen = {};
        var distinct = g.filter(function (x) {
            if (x !== me && (gib0(x) === gib0(me) || seen[gib0(x)]))
                return false;
            seen[gib0(x)] = true;
            return true;
        });
        var i = distinct.indexOf(me);
        return distinct.slice(Math.max(0, i - 2), i + 3).map(function (x) {
            return x.name;
        });
    }

    function curvePoints(base, p) {
        var lens = [];
        var top = Math.max(p.max_model_len, 8192);
        for (var L = 1024; L <= top; L *= 2)
            lens.push(L);
        if (lens[lens.length - 1] !== p.max_model_len && p.max_model_len > 1024)
            lens.push(p.max_model_len);
        lens.sort(function (a, b) { return a - b; });
        var gpuName = p.gpu;
        var names = neighbours(gpuName);
        var jobs = [];
        names.forEach(function (g) {
            lens.forEach(function (L) {
                var o = Object.assign({}, base, {gpu: g, max_model_len: L});
                delete o.instance;
                if (p.gpu_count > 1)
                    o.gpus = p.gpu_count;
                jobs.push(Promise.resolve().then(function () {
                    return kvb.plan(o);
                }).then(function (r) {
                    return {gpu: g, len: L, c: r.max_concurrency};
                }, function () { return null; }));
            });
        });
        return Promise.all(jobs).then(function (pts) {
            return {names: names, lens: lens, chosen: gpuName,
                    pts: pts.filter(Boolean)};
        });
    }

    var SVGNS = "http://www.w3.org/2000/svg";
    function svg(tag, attrs, text) {
        var e = document.createElementNS(SVGNS, tag);
        Object.keys(attrs || {}).forEach(function (k) {
            e.setAttribute(k, attrs[k]);
        });
        if (text !== undefined)
            e.textContent = text;
        return e;
    }

    function drawCurve(c) {
        var W = 640, H = 300, L = 56, R = 12, T = 12, B = 40;
        var box = $("curve");
        box.textContent = "";
        var ys = c.pts.map(function (q) { return q.c; }).filter(function (y) {
            return y > 0;
        });
        if (!ys.length) {
            $("curve-figure").hidden = true;
            return;
        }
        var ymin = Math.pow(10, Math.floor(Math.log10(Math.min.apply(null, ys))));
        var ymax = Math.pow(10, Math.ceil(Math.log10(Math.max.apply(null, ys))));
        if (ymax <= ymin)
            ymax = ymin * 10;
        var x0 = Math.log2(c.lens[0]), x1 = Math.log2(c.lens[c.lens.length - 1]);
        var X = function (len) {
            return L + (W - L - R) * (Math.log2(len) - x0) / Math.max(1e-9, x1 - x0);
        };
        var Y = function (y) {
            return T + (H - T - B) * (1 - (Math.log10(y) - Math.log10(ymin)) /
                                      (Math.log10(ymax) - Math.log10(ymin)));
        };
        var s = svg("svg", {viewBox: "0 0 " + W + " " + H, role: "img",
                            "aria-labelledby": "curve-title"});
        s.appendChild(svg("title", {id: "curve-title"},
                          "Concurrency against max-model-len for " +
                          c.names.join(", ")));
        for (var y = ymin; y <= ymax * 1.0001; y *= 10) {
            s.appendChild(svg("line", {x1: L, x2: W - R, y1: Y(y), y2: Y(y),
                                       class: y === 1 ? "grid one" : "grid"}));
            s.appendChild(svg("text", {x: L - 6, y: Y(y) + 4, class: "tick",
                                       "text-anchor": "end"},
                              y >= 1 ? String(y) : y.toPrecision(1)));
        }
        c.lens.forEach(function (len) {
            s.appendChild(svg("text", {x: X(len), y: H - B + 16, class: "tick",
                                       "text-anchor": "middle"},
                              len >= 1024 ? Math.round(len / 1024) + "K" :
                                  String(len)));
        });
        s.appendChild(svg("text", {x: (L + W - R) / 2, y: H - 4, class: "axis",
                                   "text-anchor": "middle"}, "max-model-len"));
        s.appendChild(svg("text", {x: 12, y: (T + H - B) / 2, class: "axis",
                                   "text-anchor": "middle",
                                   transform: "rotate(-90 12 " +
                                       (T + H - B) / 2 + ")"},
                          "concurrency (x)"));
        var legend = el("ul", {class: "legend"});
        c.names.forEach(function (g, i) {
            var pts = c.pts.filter(function (q) {
                return q.gpu === g && q.c > 0;
            });
            if (!pts.length)
                return;
            var d = pts.map(function (q, j) {
                return (j ? "L" : "M") + X(q.len).toFixed(1) + " " +
                    Y(q.c).toFixed(1);
            }).join(" ");
            var cls = "line l" + i + (g === c.chosen ? " chosen" : "");
            s.appendChild(svg("path", {d: d, class: cls}));
            var li = el("li");
            li.appendChild(el("span", {class: "swatch l" + i,
                                       "aria-hidden": "true"}));
            li.appendChild(document.createTextNode(
                g + (g === c.chosen ? " (chosen)" : "")));
            legend.appendChild(li);
        });
        box.appendChild(s);
        box.appendChild(legend);
        $("curve-figure").hidden = false;
    }

    /* ---- remedies ---- */

    function copyButton(text, what) {
        var b = el("button", {type: "button", class: "copy"}, "Copy " + what);
        b.addEventListener("click", function () {
            var done = function () {
                b.textContent = "Copied";
                setTimeout(function () { b.textContent = "Copy " + what; }, 1500);
            };
            if (navigator.clipboard && window.isSecureContext)
                navigator.clipboard.writeText(text).then(done, function () {});
            else {
                var t = el("textarea");
                t.value = text;
                document.body.appendChild(t);
                t.select();
                document.execCommand("copy");
                t.remove();
                done();
            }
        });
        return b;
    }

    function showFixes(r) {
        var ol = $("fixes");
        ol.textContent = "";
        (r.fixes || []).forEach(function (f) {
            var li = el("li", {class: f.fits ? "fits" : "nofit"});
            var h = el("p", {class: "head"});
            h.appendChild(el("strong", {}, f.title));
            h.appendChild(document.createTextNode(
                f.fits ? " · fits" : " · still does not fit"));
            li.appendChild(h);
            li.appendChild(el("p", {}, f.note));
            if (f.vllm_args) {
                li.appendChild(el("pre", {}, f.vllm_args));
                li.appendChild(copyButton(f.vllm_args, "engine flags"));
            }
            if (f.k8s_args) {
                li.appendChild(el("pre", {}, f.k8s_args));
                li.appendChild(copyButton(f.k8s_args, "Kubernetes args"));
            }
            ol.appendChild(li);
        });
        $("fixes-section").hidden = !ol.children.length;
    }

    /* ---- update ---- */

    function update() {
        var mine = ++seq;
        writeURL();
        var o = options();
        Promise.resolve().then(function () {
            return kvb.plan(o);
        }).then(function (p) {
            if (mine !== seq)
                return null;
            showVerdict(p);
            showBar(p);
            showTerms(p);
            return Promise.all([kvb.fix(o), curvePoints(o, p)]);
        }).then(function (r) {
            if (!r || mine !== seq)
                return;
            showFixes(r[0]);
            drawCurve(r[1]);
            document.body.setAttribute("data-state", "ready");
        }).catch(function (e) {
            if (mine !== seq)
                return;
            showError(e);
            document.body.setAttribute("data-state", "error");
        });
    }

    var timer = 0;
    function soon() {
        clearTimeout(timer);
        timer = setTimeout(update, 120);
    }

    function setFiles(list) {
        files = list && list.length ? Array.prototype.slice.call(list) : null;
        var names = files ? files.map(function (f) { return f.name; }) : [];
        $("drop-text").textContent = files ?
            "Reading " + names.join(", ") + ", headers only" :
            "or drop a GGUF, safetensors, index or config.json here";
        $("model").disabled = !!files;
        $("clear-file").hidden = !files;
        $("drop").classList.toggle("has-file", !!files);
        update();
    }

    function start() {
        presets = kvb.presets();
        fill($("models"), presets.models.map(function (m) {
            return {value: m.name,
                    label: (m.param_count / 1e9).toFixed(1) + "B " + m.arch};
        }));
        fill($("quant"), presets.quants.filter(function (q) {
            return q.name !== "auto";
        }).map(function (q) {
            return {value: q.name, label: q.name + " (" + q.note + ")"};
        }));
        fill($("gpu"), presets.gpus.map(function (g) {
            return {value: g.name, label: g.name + " · " + gib(g.total_bytes) +
                    " GiB"};
        }));
        fill($("instance"), presets.instances.map(function (i) {
            return {value: i.name, label: i.name + " · " + i.gpu_count + " x " +
                    i.gpu + " (" + i.cloud + ")"};
        }));
        readURL();
        $("version").textContent = kvb.version || "";
        $("loading").hidden = true;
        $("form").addEventListener("input", soon);
        $("form").addEventListener("change", soon);
        $("instance").addEventListener("change", function () {
            $("gpu").disabled = $("gpus").disabled = !!$("instance").value;
        });
        $("gpu").disabled = $("gpus").disabled = !!$("instance").value;
        $("file").addEventListener("change", function (e) {
            setFiles(e.target.files);
        });
        var drop = $("drop");
        drop.addEventListener("dragover", function (e) {
            e.preventDefault();
            drop.classList.add("over");
        });
        drop.addEventListener("dragleave", function () {
            drop.classList.remove("over");
        });
        drop.addEventListener("drop", function (e) {
            e.preventDefault();
            drop.classList.remove("over");
            setFiles(e.dataTransfer.files);
        });
        $("clear-file").addEventListener("click", function () {
            $("file").value = "";
            setFiles(null);
            $("model").focus();
        });
        $("share").addEventListener("click", function () {
            writeURL();
            var b = copyButton(location.href, "link");
            b.click();
            $("share-status").textContent = files ?
                "Link copied (a dropped file is not part of it)" :
                "Link copied";
        });
        $("explain").addEventListener("click", function () {
            var o = options();
            var out = $("explanation");
            Promise.resolve().then(function () {
                return kvb.explain($("log").value, o);
            }).then(function (r) {
                out.textContent = r.recognised ? r.explanation :
                    "Nothing in this text is a failure kvbudget knows.";
            }, function (e) { out.textContent = e.message; });
        });
        update();
    }

    if ("serviceWorker" in navigator && /^https?:$/.test(location.protocol))
        navigator.serviceWorker.register("sw.js").catch(function () {});
    kvb.ready.then(function () {
        if (document.readyState === "loading")
            document.addEventListener("DOMContentLoaded", start);
        else
            start();
    }, function (e) {
        $("loading").textContent = "The calculator did not load: " + e.message;
        document.body.setAttribute("data-state", "error");
    });
})();
