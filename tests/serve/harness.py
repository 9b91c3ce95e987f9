"""Shared pieces of the `trackgen serve` tests: start the server on a free
loopback port, talk to it over HTTP without any proxy, stop it."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

# Loopback only: never route the tests' requests through a proxy of the environment.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Server:
    """`trackgen serve --port 0` as a child process; `base` is its URL, `host`
    and `port` its address. `env` adds environment variables."""

    def __init__(self, trackgen, *args, env=None):
        env = dict(os.environ, OMP_PROC_BIND="false", **(env or {}))
        self.proc = subprocess.Popen([trackgen, "--threads", "2", "serve", "--port", "0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()  # "trackgen serve: http://127.0.0.1:PORT/ (backend ...)"
        if "http://" not in line:
            self.proc.kill()
            raise RuntimeError("trackgen serve did not start: " + line + self.proc.stderr.read())
        self.base = line.split("http://", 1)[1].split("/", 1)[0]
        self.base = "http://" + self.base
        u = urllib.parse.urlsplit(self.base)
        self.host, self.port = u.hostname, u.port
        print("server:", line.strip(), flush=True)

    def alive(self):
        return self.proc.poll() is None

    def rss_mib(self):
        """The server's resident memory, in MiB."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def connect(self, timeout=30):
        """A plain TCP connection to the server."""
        return socket.create_connection((self.host, self.port), timeout=timeout)

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


def read_response(f):
    """(status, headers, body) of one HTTP/1.1 answer read from the binary file
    `f` (socket.makefile("rb")), or None when the connection closed first."""
    line = f.readline()
    if not line:
        return None
    status = int(line.split()[1])
    headers = {}
    while True:
        h = f.readline()
        if h in (b"\r\n", b"\n", b""):
            break
        name, _, value = h.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    body = f.read(int(headers.get("content-length", "0")))
    return status, headers, body


def exchange(srv, raw, timeout=30):
    """Sends the bytes `raw` on a new connection and reads one answer:
    (status, headers, body), or None when the server closed without one."""
    with srv.connect(timeout) as s:
        s.sendall(raw)
        try:
            return read_response(s.makefile("rb"))
        except ConnectionError:
            return None


def wait_for(condition, timeout, step=0.05):
    """Polls `condition()` until it is true (returns True) or `timeout` seconds pass (False)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())
