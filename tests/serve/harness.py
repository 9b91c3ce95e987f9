"""Shared pieces of the `trackgen serve` tests: start the server on a free
loopback port, talk to it over HTTP without any proxy, stop it."""

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

# Loopback only: never route the tests' requests through a proxy of the environment.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Server:
    """`trackgen serve --port 0` as a child process; `base` is its URL."""

    def __init__(self, trackgen, *args):
        env = dict(os.environ, OMP_PROC_BIND="false")
        self.proc = subprocess.Popen([trackgen, "--threads", "2", "serve", "--port", "0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()  # "trackgen serve: http://127.0.0.1:PORT/ (backend ...)"
        if "http://" not in line:
            self.proc.kill()
            raise RuntimeError("trackgen serve did not start: " + line + self.proc.stderr.read())
        self.base = line.split("http://", 1)[1].split("/", 1)[0]
        self.base = "http://" + self.base
        print("server:", line.strip(), flush=True)

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def request(url, body=None, method=None, timeout=120, headers=None):
    """(status, headers, bytes) of one request; `body` a dict (sent as JSON) or bytes."""
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    req = urllib.request.Request(url, data=data, method=method or ("POST" if data is not None else "GET"))
    if data is not None:
        req.add_header("Content-Type", "application/json")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with _opener.open(req, timeout=timeout) as res:
            return res.status, res.headers, res.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def request_json(url, body=None, method=None):
    """(status, parsed JSON body) of one request."""
    status, _, raw = request(url, body, method)
    return status, json.loads(raw)


class Failures:
    """Collects failed checks; exit() ends the test with their count."""

    def __init__(self):
        self.count = 0
        self.checks = 0

    def check(self, ok, what):
        self.checks += 1
        if not ok:
            self.count += 1
            print("FAILED:", what, flush=True)
        return ok

    def exit(self):
        print(f"{self.checks - self.count} / {self.checks} checks passed", flush=True)
        sys.exit(1 if self.count else 0)
