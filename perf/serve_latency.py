"""Latency of one re-render of the `trackgen serve` page: POST /api/generate for
a batch of --envs tracks (a new seed each time, as a parameter change gives),
timed from the client (request, transfer, JSON parse) and by the server
(timing_ms: generate, metrics, encode, server). Prints the median and p90 of
--repeat requests after --warm ones, then one JSON line.

usage: serve_latency.py TRACKGEN [--envs 16] [--repeat 20] [--warm 2] [--backend NAME] [--threads T]"""

import argparse
import json
import os
import statistics
import subprocess
import time
import urllib.request


def percentile(values, q):
    v = sorted(values)
    pos = (len(v) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trackgen")
    ap.add_argument("--envs", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--warm", type=int, default=2)
    ap.add_argument("--backend", default="")
    ap.add_argument("--threads", type=int, default=0)
    a = ap.parse_args()

    cmd = [a.trackgen] + (["--threads", str(a.threads)] if a.threads else []) + ["serve", "--port", "0"]
    cmd += ["--backend", a.backend] if a.backend else []
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=dict(os.environ, OMP_PROC_BIND="false"))
    try:
        line = proc.stdout.readline()
        base = "http://" + line.split("http://", 1)[1].split("/", 1)[0]
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, never a proxy
        samples = []
        for i in range(a.warm + a.repeat):
            body = json.dumps({"num_envs": a.envs, "seed": 1000 * i}).encode()
            req = urllib.request.Request(base + "/api/generate", data=body,
                                         headers={"Content-Type": "application/json"})
            t0 = time.perf_counter()
            with opener.open(req, timeout=300) as res:
                raw = res.read()
            answer = json.loads(raw)
            rt = (time.perf_counter() - t0) * 1e3
            if i >= a.warm:
                samples.append(dict(answer["timing_ms"], round_trip=rt, bytes=len(raw)))
    finally:
        proc.terminate()
        proc.wait()

    keys = ["generate", "metrics", "encode", "server", "round_trip"]
    summary = {k: {"median": statistics.median(s[k] for s in samples),
                   "p90": percentile([s[k] for s in samples], 90)} for k in keys}
    print(f"trackgen serve latency: {line.strip()}, E={a.envs}, {a.repeat} requests after {a.warm}, "
          f"{samples[0]['bytes']} bytes per answer")
    for k in keys:
        print(f"  {k:<11} median {summary[k]['median']:8.2f} ms   p90 {summary[k]['p90']:8.2f} ms")
    print(json.dumps({"envs": a.envs, "repeat": a.repeat, "backend": a.backend or "default", "ms": summary}))


if __name__ == "__main__":
    main()
