"""The limits of `trackgen serve` (README.md, "Limits of the server"), over
loopback, each bounded in time:

- requests: the JSON body (numbers beyond a double, repeated keys), conflicting
  Content-Length, Content-Encoding, chunked bodies past 64 KiB (a 1 GiB one is
  refused early, without memory growth), header count and size, form bodies,
  pipelined requests, HTTP/1.0;
- work: the cost bound (400 with the reason), the bounded queue (503), the page
  and the API answered while a batch runs, a waiting request dropped and a
  running one abandoned when its client goes (GET /api/status counts them);
- connections: slowloris (8 sockets, one header line every 2 s) does not make the
  server unreachable and is cut at --request-timeout; --max-connections;
- memory: the server's own buffers count in the memory estimate;
- listening: the reason when it cannot, --host '' refused, a non-loopback address
  warned about, IPv6 URLs in brackets.

usage: limits_test.py TRACKGEN"""

import concurrent.futures
import gzip
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from harness import Failures, Server, exchange, read_response, request, request_json, wait_for

# A batch that takes seconds (64 envs with 4096-point bezier loops) but is within the work bound.
SLOW = {"num_envs": 64, "num_points": 4096}


def post(body, headers=""):
    """A raw POST /api/generate of the bytes `body` with Content-Length, plus `headers` lines."""
    return (f"POST /api/generate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n{headers}"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def status(srv):
    return request_json(srv.base + "/api/status")[1]


def check_requests(f, srv):
    b = srv.base
    # The JSON body: read as --config files are.
    st, err = request_json(b + "/api/generate", b'{"half_width": 1e400}')
    f.check(st == 400 and "1e400" in err.get("error", ""), f"1e400: 400 with a message ({st} {err})")
    st, err = request_json(b + "/api/generate", b'{"num_envs": 2, "num_envs": 3}')
    f.check(st == 400 and 'duplicate key "num_envs"' in err.get("error", ""), f"a repeated key: 400 ({st} {err})")

    # Content-Length: several that disagree are refused; identical ones are one.
    r = exchange(srv, b"POST /api/generate HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nContent-Length: 14\r\n\r\n"
                 b'{"num_envs":1}')
    f.check(r is not None and r[0] == 400 and b"Content-Length" in r[2], f"conflicting Content-Length: 400 ({r})")
    r = exchange(srv, b"POST /api/generate HTTP/1.1\r\nHost: t\r\nContent-Length: 14\r\nContent-Length: 14\r\n\r\n"
                 b'{"num_envs":1}')
    f.check(r is not None and r[0] == 200, f"a repeated, equal Content-Length: 200 ({r and r[0]})")

    # Compressed bodies are refused (their size would not bound what they expand to).
    r = exchange(srv, post(gzip.compress(b'{"num_envs": 1}'), "Content-Encoding: gzip\r\n"))
    f.check(r is not None and r[0] == 415 and b"gzip" in r[2], f"a gzip body: 415 ({r})")

    # Chunked bodies: a small one is read, one past 64 KiB is refused.
    r = exchange(srv, b"POST /api/generate HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                 b"7\r\n{\"num_e\r\n8\r\nnvs\": 2}\r\n0\r\n\r\n")
    f.check(r is not None and r[0] == 200 and len(json.loads(r[2])["tracks"]) == 2, "a chunked body is read")
    big_chunked(f, srv)

    # Header fields: too many, or too many bytes of them.
    r = exchange(srv, b"GET / HTTP/1.1\r\nHost: t\r\n" + b"X-A: b\r\n" * 200 + b"\r\n")
    f.check(r is not None and r[0] == 431 and b"header fields" in r[2], f"200 header fields: 431 ({r})")
    endless_headers(f, srv)

    # Form bodies have the one body limit, reported as it is.
    form = b'{"num_envs": 1}' + b" " * (20 << 10)
    r = exchange(srv, post(form).replace(b"application/json", b"application/x-www-form-urlencoded"))
    f.check(r is not None and r[0] == 200, f"a 20 KiB form body is read ({r and r[0]})")
    r = exchange(srv, post(b" " * (70 << 10)).replace(b"application/json", b"application/x-www-form-urlencoded"))
    f.check(r is not None and r[0] == 413 and b"65536 bytes" in r[2], f"a 70 KiB form body: 413 ({r})")

    # Pipelined requests are all answered, in order.
    with srv.connect() as s:
        s.sendall(b"GET /api/generators HTTP/1.1\r\nHost: t\r\n\r\n" + post(b'{"num_envs": 1, "seed": 5}') +
                  b"GET /style.css HTTP/1.1\r\nHost: t\r\n\r\n")
        rf = s.makefile("rb")
        answers = [read_response(rf) for _ in range(3)]
    ok = all(a is not None for a in answers)
    f.check(ok and [a[0] for a in answers] == [200, 200, 200] and b"bezier" in answers[0][2] and
            json.loads(answers[1][2])["tracks"][0]["seed"] == 5 and b"{" in answers[2][2],
            f"three pipelined requests: three answers in order ({[a and a[0] for a in answers]})")

    # Expect: 100-continue is answered before the body is sent; HEAD gets the head only.
    with srv.connect() as s:
        s.sendall(b"POST /api/generate HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 14\r\n\r\n")
        rf = s.makefile("rb")
        go_on = read_response(rf)
        s.sendall(b'{"num_envs":1}')
        answer = read_response(rf)
        s.sendall(b"HEAD / HTTP/1.1\r\nHost: t\r\n\r\nGET /api/generators HTTP/1.1\r\nHost: t\r\n\r\n")
        head = rf.readline()
        while rf.readline() not in (b"\r\n", b""):
            pass
        after = read_response(rf)
    f.check(go_on is not None and go_on[0] == 100 and answer is not None and answer[0] == 200,
            "Expect: 100-continue: 100, then the answer")
    f.check(head.startswith(b"HTTP/1.1 200") and after is not None and after[2].startswith(b"["),
            "HEAD /: the head without the body (the next answer follows it directly)")

    # HTTP/1.0: answered, then closed.
    with srv.connect() as s:
        s.sendall(b"GET /api/generators HTTP/1.0\r\n\r\n")
        rf = s.makefile("rb")
        first = read_response(rf)
        f.check(first is not None and first[0] == 200 and rf.read() == b"", "HTTP/1.0: one answer, then closed")

    # Methods.
    st, _, _ = request(b + "/api/schema", b"{}")
    f.check(st == 405, f"POST /api/schema: 405 ({st})")


def big_chunked(f, srv):
    """A 1 GiB chunked body: refused after 64 KiB, the connection closed, RSS unchanged."""
    rss0 = srv.rss_mib()
    sent = 0
    answer = []
    with srv.connect() as s:
        s.sendall(b"POST /api/generate HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
        rf = s.makefile("rb")
        reader = threading.Thread(target=lambda: answer.append(read_response(rf)), daemon=True)
        reader.start()
        chunk = b"10000\r\n" + b" " * 0x10000 + b"\r\n"
        try:
            while sent < (1 << 30) and reader.is_alive():
                s.sendall(chunk)
                sent += 0x10000
        except OSError:
            pass  # the server closed the connection
        reader.join(30)
    got = answer[0] if answer else None
    f.check(got is not None and got[0] == 413, f"a 1 GiB chunked body: 413 ({got and got[:1]})")
    f.check(sent < (64 << 20), f"... refused early: {sent >> 20} MiB sent before the server closed")
    f.check(srv.rss_mib() < rss0 + 32, f"... without memory growth (RSS {rss0:.0f} -> {srv.rss_mib():.0f} MiB)")


def endless_headers(f, srv):
    """Header lines without end (6,000,000 tiny ones): refused at the head limit, RSS unchanged."""
    rss0 = srv.rss_mib()
    sent = 0
    answer = []
    with srv.connect() as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")
        rf = s.makefile("rb")
        reader = threading.Thread(target=lambda: answer.append(read_response(rf)), daemon=True)
        reader.start()
        block = b"a:b\r\n" * 20000
        try:
            while sent < 6000000 and reader.is_alive():
                s.sendall(block)
                sent += 20000
        except OSError:
            pass
        reader.join(30)
    got = answer[0] if answer else None
    f.check(got is not None and got[0] == 431, f"endless header lines: 431 ({got and got[:1]})")
    f.check(sent < 6000000, f"... refused early ({sent} lines sent)")
    f.check(srv.rss_mib() < rss0 + 32, f"... without memory growth (RSS {rss0:.0f} -> {srv.rss_mib():.0f} MiB)")


def check_work(f, srv):
    """The cost bound, the queue (--queue 1), and clients that go."""
    b = srv.base
    wait_for(lambda: not status(srv)["queue"]["running"], 10)  # the earlier checks' last batch has left
    done0 = status(srv)["queue"]["done"]
    for body, field in (({"num_points": 16384, "num_envs": 64}, "num_points"),
                        ({"generator": "repulsive", "num_points": 4096, "repulsive_stages": [64, 256, 1024, 4096]},
                         "repulsive_stages"),
                        ({"mode": "gates", "generator": "polar", "polar_num_knots": 4096, "max_gates": 4096,
                          "gate_solve_iters": 10000}, "gate_solve_iters")):
        st, err = request_json(b + "/api/generate", body)
        msg = err.get("error", "")
        f.check(st == 400 and msg.startswith(field + ":") and "estimated work" in msg and "per request" in msg,
                f"{body}: 400 naming {field} and the bound ({st} {msg})")
    st, err = request_json(b + "/api/generate", {"num_points": 16384, "num_envs": 64})
    f.check("At most 6 envs of this config fit" in err.get("error", ""), f"... saying how many envs fit: {err}")
    q = status(srv)["queue"]
    f.check(q["done"] == done0 and not q["running"] and q["waiting"] == 0, f"... refused up front: none ran ({q})")
    st, out = request_json(b + "/api/generate", {"num_envs": 2})
    f.check(st == 200 and 0 < out.get("estimate", {}).get("work", 0) <= 10e9, f"the answer carries its estimate")

    # A running batch (A), one waiting (B): a third is answered 503, while the page, the
    # schema and the status are answered at once.
    pool = concurrent.futures.ThreadPoolExecutor(4)
    a = srv.connect(120)
    a.sendall(post(json.dumps(SLOW).encode()))
    f.check(wait_for(lambda: status(srv)["queue"]["running"], 30), "A runs")
    page = request(b + "/", timeout=10)
    schema = request_json(b + "/api/schema")
    f.check(page[0] == 200 and schema[0] == 200 and status(srv)["queue"]["running"],
            "GET / and GET /api/schema answered while a batch runs")
    bsock = srv.connect(120)
    bsock.sendall(post(b'{"num_envs": 1}'))
    f.check(wait_for(lambda: status(srv)["queue"]["waiting"] == 1, 10), "B waits")
    st, err = request_json(b + "/api/generate", {"num_envs": 1})
    f.check(st == 503 and "busy" in err.get("error", "") and status(srv)["queue"]["running"],
            f"a third request while the queue is full: 503 ({st} {err})")
    # B's client goes: its place is free at once, and it never runs.
    bsock.close()
    time.sleep(0.3)
    c = pool.submit(request_json, b + "/api/generate", {"num_envs": 1, "seed": 9})
    # (B is dropped when C is queued: until then B itself is the one waiting.)
    f.check(wait_for(lambda: (lambda q: q["waiting"] == 1 and q["dropped"] == 1)(status(srv)["queue"]), 10),
            f"B's client went: dropped, and C takes its place ({status(srv)['queue']})")
    # A's client goes: the batch stops at its next phase, unanswered.
    done0 = status(srv)["queue"]["done"]
    a.close()
    f.check(wait_for(lambda: status(srv)["queue"]["abandoned"] == 1, 120), f"A's client went: abandoned")
    st, out = c.result(120)
    f.check(st == 200 and out["tracks"][0]["seed"] == 9, f"C answered ({st})")
    # (The Kokkos thread leaves the job just after C's answer is sent: wait for it.)
    f.check(wait_for(lambda: (lambda q: q["done"] == done0 + 1 and q["waiting"] == 0 and not q["running"])(
        status(srv)["queue"]), 10), f"the queue is empty again: {status(srv)['queue']}")
    pool.shutdown()


def check_connections(f, trackgen):
    """Slowloris and the connection bound, with --request-timeout 3 --max-connections 16."""
    with Server(trackgen, "--request-timeout", "3", "--max-connections", "16") as srv:
        slow = []
        for _ in range(8):
            s = srv.connect(10)
            s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")
            slow.append(s)
        t0 = time.monotonic()
        answered = 0
        lines = 0
        while time.monotonic() - t0 < 6:
            for s in slow:
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    pass
            lines += 1
            for _ in range(4):
                answered += request(srv.base + "/", timeout=5)[0] == 200
                time.sleep(0.5)
        f.check(answered == 4 * lines, f"8 slowloris sockets: GET / answered {answered} of {4 * lines} times")
        cut = 0
        for s in slow:
            s.settimeout(5)
            try:
                cut += s.recv(1) == b""
            except OSError:
                cut += 1
            s.close()
        f.check(cut == 8, f"... and each is closed at --request-timeout ({cut} of 8)")

        idle = [srv.connect(10) for _ in range(16)]
        f.check(wait_for(lambda: request_json(srv.base + "/api/status")[0] == 503, 5),
                "a connection beyond --max-connections is answered 503")
        for s in idle:
            s.close()
        f.check(wait_for(lambda: request(srv.base + "/", timeout=5)[0] == 200, 5), "... and served once they close")
        f.check(status(srv)["connections"]["refused"] >= 1 and status(srv)["connections"]["timed_out"] >= 8,
                f"the status counts them: {status(srv)['connections']}")


def check_memory(f, trackgen):
    """The server's buffers (host copy, JSON document and text) count in the memory estimate."""
    with Server(trackgen, env={"TRACKGEN_MEMORY_LIMIT_MB": "48"}) as srv:
        body = {"num_envs": 64, "N_max": 4096, "relax_enable": False}
        st, err = request_json(srv.base + "/api/generate", body)
        msg = err.get("error", "")
        m = re.search(r"the producer ([0-9.]+) MiB, the server's host copy and JSON answer ([0-9.]+) MiB", msg)
        f.check(st == 400 and m is not None and "At most" in msg and "envs of this config fit" in msg,
                f"{body} under a 48 MiB limit: 400 naming how many envs fit ({st} {msg})")
        if m:
            producer, answer = float(m.group(1)), float(m.group(2))
            f.check(producer < 48 < producer + answer, f"... refused for the server's buffers ({producer} + {answer})")
        st, _ = request_json(srv.base + "/api/generate", dict(body, num_envs=2))
        f.check(st == 200, f"... while a batch that fits runs ({st})")


def check_listen(f, trackgen, busy_port):
    env = dict(os.environ, OMP_PROC_BIND="false")

    def serve(*args):
        return subprocess.run([trackgen, "serve", *args], capture_output=True, text=True, timeout=60, env=env)

    r = serve("--port", str(busy_port))
    f.check(r.returncode != 0 and f"cannot listen on 127.0.0.1:{busy_port}: Address already in use" in r.stderr,
            f"a taken port: the reason ({r.stderr.strip()})")
    r = serve("--host", "")
    f.check(r.returncode != 0 and "--host is empty" in r.stderr, f"--host '': refused ({r.stderr.strip()})")
    # TEST-NET-1 is no address of this machine: warned about, then not listened on (nothing is exposed).
    r = serve("--host", "192.0.2.1", "--port", "0")
    f.check(r.returncode != 0 and "is not a loopback address" in r.stderr and "served to the network" in r.stderr and
            "cannot listen on 192.0.2.1:0: Cannot assign requested address" in r.stderr,
            f"a non-loopback --host: warned, with the reason it fails ({r.stderr.strip()})")
    # Every interface, on the port the test's server holds: warned about, and refused by the system.
    r = serve("--host", "0.0.0.0", "--port", str(busy_port))
    f.check(r.returncode != 0 and "served to the network" in r.stderr and "Address already in use" in r.stderr,
            f"--host 0.0.0.0: warned ({r.stderr.strip()})")
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError:
        print("IPv6 loopback unavailable: the [::1] check is skipped", flush=True)
        return
    with Server(trackgen, "--host", "::1") as srv:
        f.check(srv.base.startswith("http://[::1]:"), f"--host ::1: the URL has brackets ({srv.base})")
        f.check(request(srv.base + "/")[0] == 200, "... and it serves")


def main():
    trackgen = sys.argv[1]
    f = Failures()
    t0 = time.monotonic()
    with Server(trackgen, "--queue", "1") as srv:
        check_requests(f, srv)
        check_work(f, srv)
        check_listen(f, trackgen, srv.port)
        f.check(srv.alive(), "the server is still running")
    check_connections(f, trackgen)
    check_memory(f, trackgen)
    print(f"limits_test: {time.monotonic() - t0:.1f} s", flush=True)
    f.exit()


if __name__ == "__main__":
    main()
