#!/usr/bin/env python3
"""A stand-in for the Hugging Face Hub, on 127.0.0.1, for the tests.

It serves the repositories under ROOT (ROOT/ORG/REPO/<files>) with the
Hub's URL shapes and headers, and logs every request so that tests can
count requests and bytes:

  GET /api/models/ORG/REPO[/revision/REV]  {"id", "sha", "gated",
                                            "private", "siblings"}
  GET|HEAD /ORG/REPO/resolve/REV/FILE      small files: 200 (ETag,
                                           X-Repo-Commit); "LFS" files
                                           (*.safetensors, *.gguf): 302 to
                                           /cdn/..., with X-Repo-Commit,
                                           X-Linked-Size, X-Linked-Etag
  GET|HEAD /cdn/<sig>/ORG/REPO/FILE        the bytes; Range -> 206 with
                                           Content-Range

Per repository, an optional ROOT/ORG/REPO/.hub.json sets:
  "token": "t"      gated: resolve needs "Authorization: Bearer t"
                    (401 GatedRepo without a token, 403 with another)
  "private": true   with "token": the model API answers as if the
                    repository did not exist unless the token is sent
  "flaky": N        the first N requests to the repository get 503
                    (odd ones) or 429 with Retry-After: 0 (even ones)
  "revisions": {"v1": "<sha>"}   extra revisions (default: "main")
  "sha": "<40 hex>" the commit of main (default: sha1 of the repo name)
  "slow": S         the model API answers after S seconds (timeouts)
Errors carry X-Error-Code (RepoNotFound, RevisionNotFound,
EntryNotFound, GatedRepo), as the Hub's do.

The log, ROOT/requests.log, has one JSON object per request:
  {"method", "path", "status", "range", "bytes"}  (bytes: body sent)

Run:
  standin.py --root DIR --port-file FILE    serve until killed; FILE gets
                                            the port once listening
  standin.py --root DIR -- CMD ARGS...      serve while CMD runs, with
                                            KVB_TEST_HUB=http://127.0.0.1:P
Or import it: server, url = start(root).
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

LFS_SUFFIXES = (".safetensors", ".gguf", ".bin")


def repo_sha(repo):
    return hashlib.sha1(repo.encode()).hexdigest()


class Hub:
    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.lock = threading.Lock()
        self.counts = {}

    def meta(self, repo):
        p = os.path.join(self.root, repo, ".hub.json")
        if os.path.exists(p):
            with open(p) as f:
                return json.load(f)
        return {}

    def exists(self, repo):
        return re.fullmatch(r"[\w.-]+/[\w.-]+", repo) is not None and \
            os.path.isdir(os.path.join(self.root, repo))

    def files(self, repo):
        base = os.path.join(self.root, repo)
        out = []
        for d, _, names in os.walk(base):
            for n in names:
                rel = os.path.relpath(os.path.join(d, n), base)
                if not rel.startswith("."):
                    out.append(rel.replace(os.sep, "/"))
        return sorted(out)

    def commit(self, repo, rev):
        meta = self.meta(repo)
        main = meta.get("sha", repo_sha(repo))
        revs = {"main": main}
        revs.update(meta.get("revisions", {}))
        if rev in revs:
            return revs[rev]
        if rev in revs.values():
            return rev
        return None

    def flaky(self, repo):
        """True (and which error) while the repository is still failing."""
        n = self.meta(repo).get("flaky", 0)
        with self.lock:
            seen = self.counts.get(repo, 0)
            self.counts[repo] = seen + 1
        if seen < n:
            return 503 if seen % 2 == 0 else 429
        return 0

    def log(self, entry):
        with self.lock:
            with open(os.path.join(self.root, "requests.log"), "a") as f:
                f.write(json.dumps(entry) + "\n")


def etag_of(path):
    h = hashlib.sha1()
    with open(path, "rb") as f:
        h.update(f.read(1 << 20))
    h.update(str(os.path.getsize(path)).encode())
    return h.hexdigest()


class Handler(BaseHTTPRequestHandler):
    server_version = "standin-hub/1"

    def log_message(self, *args):  # quiet
        pass

    @property
    def hub(self):
        return self.server.hub

    def token(self):
        a = self.headers.get("Authorization", "")
        return a[7:] if a.startswith("Bearer ") else None

    def send(self, status, body=b"", headers=None):
        # Logged before the response goes out, so that a client that has
        # its answer finds the request in the log.
        self.hub.log({"method": self.command, "path": self.path,
                      "status": status,
                      "range": self.headers.get("Range"),
                      "bytes": 0 if self.command == "HEAD" else len(body)})
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, status, code, message):
        body = json.dumps({"error": message}).encode()
        self.send(status, body, {"X-Error-Code": code,
                                 "X-Error-Message": message,
                                 "Content-Type": "application/json"})

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        path = unquote(urlsplit(self.path).path)
        m = re.fullmatch(r"/api/models/([^/]+/[^/]+)(?:/revision/(.+))?", path)
        if m:
            return self.api(m.group(1), m.group(2) or "main")
        m = re.fullmatch(r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
        if m:
            return self.resolve(m.group(1), m.group(2), m.group(3))
        m = re.fullmatch(r"/cdn/[0-9a-f]+/([^/]+/[^/]+)/(.+)", path)
        if m:
            return self.serve(m.group(1), m.group(2), {})
        self.error(404, "NotFound", "no such route")

    def visible(self, repo):
        meta = self.hub.meta(repo)
        return self.hub.exists(repo) and (
            not meta.get("private") or self.token() == meta.get("token"))

    def not_found(self, repo):
        # The Hub answers 401 to an anonymous request for a repository it
        # will not show, 404 to an authenticated one.
        self.error(404 if self.token() else 401, "RepoNotFound",
                   "Repository Not Found for url: %s." % self.path)

    def api(self, repo, rev):
        if not self.visible(repo):
            return self.not_found(repo)
        time.sleep(self.hub.meta(repo).get("slow", 0))
        bad = self.hub.flaky(repo)
        if bad:
            return self.retry_later(bad)
        sha = self.hub.commit(repo, rev)
        if sha is None:
            return self.error(404, "RevisionNotFound",
                              "Invalid rev id: %s" % rev)
        meta = self.hub.meta(repo)
        body = json.dumps({
            "id": repo, "modelId": repo, "sha": sha,
            "private": bool(meta.get("private")),
            "gated": "manual" if meta.get("token") and
            not meta.get("private") else False,
            "siblings": [{"rfilename": f} for f in self.hub.files(repo)],
        }).encode()
        self.send(200, body, {"Content-Type": "application/json"})

    def retry_later(self, status):
        headers = {"Retry-After": "0"} if status == 429 else {}
        self.send(status, b"busy", headers)

    def resolve(self, repo, rev, file):
        if not self.visible(repo):
            return self.not_found(repo)
        meta = self.hub.meta(repo)
        if meta.get("token") and self.token() != meta["token"]:
            if self.token():
                return self.error(403, "GatedRepo",
                                  "Access to model %s is restricted." % repo)
            return self.error(401, "GatedRepo",
                              "Cannot access gated repo for url %s." %
                              self.path)
        bad = self.hub.flaky(repo)
        if bad:
            return self.retry_later(bad)
        sha = self.hub.commit(repo, rev)
        if sha is None:
            return self.error(404, "RevisionNotFound",
                              "Invalid rev id: %s" % rev)
        full = os.path.join(self.hub.root, repo, file)
        if ".." in file.split("/") or not os.path.isfile(full):
            return self.error(404, "EntryNotFound",
                              "%s does not exist on %s" % (file, rev))
        headers = {"X-Repo-Commit": sha}
        if file.endswith(LFS_SUFFIXES):
            sig = hashlib.sha256((repo + file).encode()).hexdigest()[:16]
            headers.update({
                "Location": "/cdn/%s/%s/%s" % (sig, repo, file),
                "X-Linked-Size": str(os.path.getsize(full)),
                "X-Linked-Etag": '"%s"' % etag_of(full),
            })
            return self.send(302, b"", headers)
        return self.serve(repo, file, headers)

    def serve(self, repo, file, headers):
        full = os.path.join(self.hub.root, repo, file)
        if ".." in file.split("/") or not os.path.isfile(full):
            return self.error(404, "EntryNotFound", "no such file")
        size = os.path.getsize(full)
        headers = dict(headers)
        headers["ETag"] = '"%s"' % etag_of(full)
        headers["Accept-Ranges"] = "bytes"
        rng = self.headers.get("Range")
        m = re.fullmatch(r"bytes=(\d+)-(\d*)", rng or "")
        with open(full, "rb") as f:
            if m:
                lo = int(m.group(1))
                hi = min(int(m.group(2)) if m.group(2) else size - 1,
                         size - 1)
                if lo >= size:
                    headers["Content-Range"] = "bytes */%d" % size
                    return self.send(416, b"", headers)
                f.seek(lo)
                body = f.read(hi - lo + 1)
                headers["Content-Range"] = "bytes %d-%d/%d" % (lo, hi, size)
                return self.send(206, body, headers)
            return self.send(200, f.read(), headers)


def start(root):
    """Serve ROOT on an ephemeral 127.0.0.1 port in a thread."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.hub = Hub(root)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d" % server.server_address[1]


def read_log(root):
    p = os.path.join(root, "requests.log")
    if not os.path.exists(p):
        return []
    with open(p) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    os.makedirs(a.root, exist_ok=True)
    server, url = start(a.root)
    if a.port_file:
        tmp = a.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % server.server_address[1])
        os.replace(tmp, a.port_file)
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        threading.Event().wait()
    env = dict(os.environ, KVB_TEST_HUB=url, KVB_TEST_HUB_ROOT=a.root,
               no_proxy="127.0.0.1,localhost", NO_PROXY="127.0.0.1,localhost")
    rc = subprocess.call(cmd, env=env)
    server.shutdown()
    sys.exit(rc)


if __name__ == "__main__":
    main()
