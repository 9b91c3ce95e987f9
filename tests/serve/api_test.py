"""The JSON API of `trackgen serve`, end to end over loopback HTTP: the page and
its files, generators, schema, valid and invalid configs (HTTP 400 naming the
field), oversized bodies (413), batch-size bounds, gates mode, checkpoints,
unknown paths (404) and concurrent requests.

usage: api_test.py TRACKGEN [--backend NAME]"""

import concurrent.futures
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from harness import Failures, Server, request, request_json


def main():
    trackgen, extra = sys.argv[1], sys.argv[2:]
    f = Failures()
    with Server(trackgen, *extra) as srv:
        b = srv.base

        # The page and its files, embedded in the binary.
        status, headers, body = request(b + "/")
        f.check(status == 200 and b"TrackGen explorer" in body, "GET / serves the page")
        f.check(headers.get("Content-Type", "").startswith("text/html"), "GET / is text/html")
        for path, kind in (("/app.js", "text/javascript"), ("/style.css", "text/css")):
            status, headers, body = request(b + path)
            f.check(status == 200 and len(body) > 100 and headers.get("Content-Type", "").startswith(kind),
                    f"GET {path} is {kind}")

        # Nothing fetched from elsewhere: no URL in the page but the SVG namespace.
        for path in ("/", "/app.js", "/style.css"):
            text = request(b + path)[2].decode().replace("http://www.w3.org/2000/svg", "")
            f.check("http://" not in text and "https://" not in text and "//cdn" not in text,
                    f"{path} loads nothing from the internet")

        # Generators and schema.
        status, names = request_json(b + "/api/generators")
        f.check(status == 200 and isinstance(names, list) and "bezier" in names and "polar" in names,
                f"GET /api/generators lists the generators: {names}")
        status, gate_names = request_json(b + "/api/generators?mode=gates")
        f.check(status == 200 and "bezier" in gate_names, f"GET /api/generators?mode=gates: {gate_names}")
        status, schema = request_json(b + "/api/schema")
        fields = {x["name"]: x for x in schema.get("fields", [])} if status == 200 else {}
        f.check(schema.get("config") == "TrackGenConfig" and "half_width" in fields and "generator" in fields,
                "GET /api/schema describes TrackGenConfig")
        f.check(all("type" in x and "default" in x for x in fields.values()), "every field has a type and a default")
        f.check(fields.get("half_width", {}).get("minimum") == 0, "half_width has its lower bound")
        f.check("bezier" in fields.get("generator", {}).get("choices", []), "generator lists its choices")
        f.check(schema.get("limits", {}).get("max_envs") == 64, "schema carries the server limits")
        status, gschema = request_json(b + "/api/schema?mode=gates")
        f.check(status == 200 and gschema.get("config") == "GateGenConfig", "GET /api/schema?mode=gates")

        # A valid request.
        status, out = request_json(b + "/api/generate", {"num_envs": 4, "seed": 7, "half_width": 0.08})
        tracks = out.get("tracks", [])
        f.check(status == 200 and len(tracks) == 4, f"POST /api/generate: 200 with 4 tracks ({status})")
        f.check([t.get("seed") for t in tracks] == [7, 8, 9, 10], "env e has seed k + e")
        f.check(all(t["count"] == len(t["center"]) > 10 for t in tracks), "tracks carry their points")
        f.check(out.get("config", {}).get("half_width") == 0.08 and out["config"].get("num_envs") == 4,
                "the answer echoes the full config")
        m = out.get("metrics", {})
        f.check(all(k in m for k in ("yield", "mean_compactness", "mean_length", "mean_chicanes", "num_valid")),
                f"metrics present: {sorted(m)}")
        f.check(out.get("timing_ms", {}).get("generate", -1) > 0, "generation time reported")
        status, headers, _ = request(b + "/api/generate", {"num_envs": 4}, headers={"Accept-Encoding": "br, gzip"})
        f.check(status == 200 and headers.get("Content-Encoding") is None,
                "answers are not compressed (a browser's brotli answer cost ~0.7 s per batch)")
        status, again = request_json(b + "/api/generate", {"num_envs": 4, "seed": 7, "half_width": 0.08})
        f.check(again.get("tracks") == tracks, "the same request gives the same tracks")
        status, default = request_json(b + "/api/generate", {})
        f.check(status == 200 and len(default.get("tracks", [])) == 16, "num_envs defaults to 16")

        # Bad configs: HTTP 400 with the validation message naming the field.
        for body, field in (({"half_width": -1}, "half_width"), ({"generator": "nope"}, "generator"),
                            ({"num_envs": 65}, "num_envs"), ({"num_envs": 0}, "num_envs"),
                            ({"bogus_field": 1}, "bogus_field"), ({"rad": "x"}, "rad"),
                            ({"seed": "x"}, "seed"), ({"mode": "x"}, "mode"),
                            ({"checkpoint_spacing": 0}, "checkpoint_spacing"),
                            ({"mode": "gates", "gate_radius": -1}, "gate_radius")):
            status, err = request_json(b + "/api/generate", body)
            f.check(status == 400 and field in err.get("error", ""), f"{body}: 400 naming {field}: {status} {err}")
        status, err = request_json(b + "/api/generate", b"{not json")
        f.check(status == 400 and "JSON" in err.get("error", ""), f"malformed JSON: 400 ({status})")
        status, err = request_json(b + "/api/generate", b"[1, 2]")
        f.check(status == 400, "a JSON array body: 400")

        # Oversized body: refused before it is read.
        status, _, _ = request(b + "/api/generate", b" " * (1 << 20))
        f.check(status == 413, f"a 1 MiB body: 413 ({status})")

        # Unknown paths and methods.
        status, err = request_json(b + "/api/nothing")
        f.check(status == 404 and "error" in err, f"unknown path: 404 ({status})")
        status, _, _ = request(b + "/api/generate")
        f.check(status in (404, 405), f"GET /api/generate is refused ({status})")

        # Gates mode and checkpoints.
        status, gout = request_json(b + "/api/generate", {"mode": "gates", "num_envs": 3, "seed": 2})
        gates = gout.get("gates", [])
        f.check(status == 200 and len(gates) == 3 and gout.get("mode") == "gates", f"gates mode ({status})")
        f.check(all(len(g["position"]) == g["count"] == len(g["left"]) for g in gates), "gates carry their points")
        f.check("yield" in gout.get("metrics", {}), "gate metrics present")
        status, cout = request_json(b + "/api/generate", {"num_envs": 3, "checkpoint_spacing": 0.3})
        cps = cout.get("checkpoints") or []
        f.check(status == 200 and len(cps) == 3, f"checkpoints per env ({status})")
        f.check(all(c["count"] == len(c["position"]) == len(c["left"]) for c in cps), "checkpoints carry points")
        f.check(all(c["count"] >= 3 for c, t in zip(cps, cout.get("tracks", [])) if t["valid"]),
                "every valid track has checkpoints")

        # Concurrent requests: 8 at once, each answered with its own batch.
        def one(seed):
            return request_json(b + "/api/generate", {"num_envs": 8, "seed": seed})

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(one, range(100, 108)))
        f.check(all(s == 200 for s, _ in answers), "8 concurrent requests all succeed")
        f.check(all([t["seed"] for t in a["tracks"]] == list(range(k, k + 8))
                    for k, (_, a) in zip(range(100, 108), answers)), "each concurrent answer is its own batch")
        status, serial = one(103)
        f.check(serial.get("tracks") == answers[3][1].get("tracks"), "a concurrent answer equals the sequential one")
        f.check(srv.alive(), "the server is still running")

        # A second server cannot take the same port.
        port = b.rsplit(":", 1)[1]
        second = subprocess.run([trackgen, "serve", "--port", port], capture_output=True, text=True, timeout=60,
                                env=dict(os.environ, OMP_PROC_BIND="false"))
        f.check(second.returncode != 0 and "cannot listen" in second.stderr,
                f"a second server on port {port} fails: {second.returncode} {second.stderr.strip()}")
    f.exit()


if __name__ == "__main__":
    main()
