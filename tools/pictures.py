"""Draw the docs' speed pictures from the results files the benchmarks write.

Each picture is drawn from one results file and saved beside it; the pages show it (the site maps
it in ``docs/hooks.py``). Rerun this after the benchmark that writes the file::

    python -m tools.pictures            # redraw every picture
    python -m tools.pictures --list     # what is drawn from what

The pictures:

* ``benchmarks/core/env_speed.png`` from ``benchmarks/core/env_speed.json``
  (``python benchmarks/env_speed.py``): decisions a second of each way to play, against its
  reference measured in the same run;
* ``benchmarks/jax/speed.png`` from ``benchmarks/jax/speed.json`` and ``speed_gpu.json``
  (``python benchmarks/jax_speed.py``): the JAX core and the compiled vector env against the
  number of games stepped together, on the 2-core machine and on one GPU.

Example:
    >>> sorted(p.name for p in PICTURES)
    ['env_speed.png', 'speed.png']
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
"""The checkout that holds this ``big2_env`` (the benchmarks' results live in it)."""

REFERENCE_OF = {"(b)": "(d)", "(c)": "(d)", "(e)": "(a)", "(f)": "(d)", "(g)": "(h)", "(i)": "(a)"}
"""For each row of ``env_speed.json``, the row it is compared with (its ``ratios`` key)."""


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def env_speed(results: Path, picture: Path) -> None:
    """Horizontal bars of decisions/s (log scale), each labelled with its ratio to its reference."""
    data = json.loads(results.read_text())
    rows = data["rows"]
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.2))
    labels = [row["measurement"] for row in rows]
    values = [row["decisions_per_s"] for row in rows]
    references = set(REFERENCE_OF.values())
    colors = ["#9e9e9e" if label[:3] in references else "#1f77b4" for label in labels]
    ax.barh(range(len(rows)), values, color=colors)
    for i, label in enumerate(labels):
        reference = REFERENCE_OF.get(label[:3])
        key = f"{label[1]}/{reference[1]}" if reference else None
        text = f"{values[i]:,.0f}" + (f"  ({data['ratios'][key]:.1f}x {reference})" if key in data["ratios"] else "")
        ax.text(values[i] * 1.08, i, text, va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(min(values) / 2, max(values) * 40)
    ax.set_xlabel("decisions a second (log scale); grey: the references")
    ax.set_title(f"Random play, {data.get('numba_threads', '?')} cores, {data['rules']} rules", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(picture, dpi=100)
    plt.close(fig)


def jax_speed(results: Path, picture: Path) -> None:
    """Decisions/s against games stepped together: JAX and the vector env, on CPU and on a GPU."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    for path, style in ((results, "--"), (results.with_name("speed_gpu.json"), "-")):
        if not path.is_file():
            continue
        data = json.loads(path.read_text())
        rows = [row for row in data["rows"] if row["view"] == "paper"]
        sizes = [row["num_envs"] for row in rows]
        cores = f"{data['cores_visible']} CPU core{'s' if data['cores_visible'] > 1 else ''}"
        device = data["jax_device"].split(": ")[-1] if data["jax_device"].startswith("gpu") else cores
        ax.plot(sizes, [row["jax"]["decisions_per_s"] for row in rows], style, marker="o", color="#d62728",
                label=f"JAX core ({device})")
        ax.plot(sizes, [row["vector"]["step_decisions_per_s"] for row in rows], style, marker="s", color="#1f77b4",
                label=f"compiled vector env step ({cores})")
    ax.set(xscale="log", yscale="log", xlabel="games stepped together", ylabel="decisions a second",
           title="Random play with the paper's observation and masks")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2)
    fig.tight_layout()
    fig.savefig(picture, dpi=100)
    plt.close(fig)


PICTURES: dict[Path, tuple[Path, Callable[[Path, Path], None]]] = {
    REPO / "benchmarks/core/env_speed.png": (REPO / "benchmarks/core/env_speed.json", env_speed),
    REPO / "benchmarks/jax/speed.png": (REPO / "benchmarks/jax/speed.json", jax_speed),
}
"""Each picture: the results file it is drawn from and the function that draws it."""


def draw(folder: Path | None = None) -> list[Path]:
    """Draw every picture (into ``folder`` when given, else beside its results file); returns the paths."""
    written = []
    for picture, (results, painter) in PICTURES.items():
        target = picture if folder is None else Path(folder) / picture.name
        painter(results, target)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the pictures and their results files; draw nothing")
    args = parser.parse_args(argv)
    for picture, (results, _) in PICTURES.items():
        if args.list:
            print(f"{picture.relative_to(REPO)}  <-  {results.relative_to(REPO)}")
    if not args.list:
        for path in draw():
            print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
