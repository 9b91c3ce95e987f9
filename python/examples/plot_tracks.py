"""Draws a grid of generated tracks (borders, centre line, start and direction).

    python python/examples/plot_tracks.py [--generator bezier] [--envs 12] [--seed 0] [--out tracks.png]

Needs matplotlib (`pip install matplotlib`); invalid tracks are drawn in red.
"""

import argparse
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import trackgen  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--generator", default="bezier", choices=trackgen.generators())
    p.add_argument("--envs", type=int, default=12)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="tracks.png")
    a = p.parse_args()

    gen = trackgen.TrackGenerator(num_envs=a.envs, seed=a.seed, generator=a.generator)
    track = gen.track
    cols = math.ceil(math.sqrt(a.envs))
    rows = math.ceil(a.envs / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.6 * cols, 2.6 * rows), squeeze=False)
    for e, ax in enumerate(axes.flat):
        ax.set_axis_off()
        if e >= a.envs:
            continue
        color = "black" if track.valid[e] else "red"
        for field, width in (("outer", 1.2), ("inner", 1.2)):
            pts = track.points(e, field)
            ax.plot(list(pts[:, 0]) + [pts[0, 0]], list(pts[:, 1]) + [pts[0, 1]], color=color, lw=width)
        c = track.points(e)
        ax.plot(c[:, 0], c[:, 1], color="0.6", lw=0.6, ls="--")
        t0 = track.points(e, "tangent")[0]
        ax.annotate("", xy=(c[0, 0] + 0.15 * t0[0], c[0, 1] + 0.15 * t0[1]), xytext=(c[0, 0], c[0, 1]),
                    arrowprops=dict(arrowstyle="->", color="tab:blue", lw=1.5))
        ax.plot(c[0, 0], c[0, 1], "o", color="tab:blue", ms=4)
        ax.set_aspect("equal")
        ax.set_title(f"env {e}  seed {int(gen.seeds[e])}  L={track.length[e]:.2f}", fontsize=8)
    fig.suptitle(f"trackgen {a.generator}: {int(track.valid.sum())}/{a.envs} valid ({trackgen.backend})")
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
