"""What a new user downloads: a full clone of this repository against a shallow one (``--depth 1``).

Clones the checkout through git's own transport (``git clone --no-local file://REPO``, as a clone
from a server would pack it), once whole and once with ``--depth 1``, into a temporary folder, and
measures each clone's ``.git`` folder (every file in it), its pack (``git count-objects -v``'s
``size-pack``) and the tracked files checked out. The README's set-up quotes the file it writes.

Usage:
    python benchmarks/clone_size.py --json benchmarks/clone/sizes.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MIB = 1 << 20


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def folder_bytes(path: Path) -> int:
    """Every file's size under ``path`` (links not followed)."""
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def measure(clone: Path) -> dict[str, float]:
    """A clone's ``.git`` folder, its pack and its checked-out tracked files, in MiB."""
    counts = dict(line.split(": ", 1) for line in git("count-objects", "-v", cwd=clone).splitlines())
    tracked = [name for name in git("ls-files", "-z", cwd=clone).split("\0") if name]
    checkout = sum((clone / name).lstat().st_size for name in tracked if (clone / name).is_file())
    return {"git_mib": folder_bytes(clone / ".git") / MIB, "pack_mib": int(counts["size-pack"]) / 1024,
            "checkout_mib": checkout / MIB, "files": len(tracked)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=str(REPO), help="the repository to clone (default: this checkout)")
    parser.add_argument("--json", help="write the sizes here (default: print only)")
    options = parser.parse_args(argv)
    repo = Path(options.repo).resolve()
    if not repo.is_dir():
        parser.error(f"--repo {options.repo!r} is not a folder")
    try:
        result: dict[str, object] = {"commit": git("rev-parse", "HEAD", cwd=repo).strip(),
                                     "date": datetime.date.today().isoformat()}
        with tempfile.TemporaryDirectory() as scratch:
            for name, extra in (("full", []), ("shallow", ["--depth", "1"])):
                target = Path(scratch) / name
                git("clone", "-q", "--no-local", *extra, f"file://{repo}", str(target))
                result[name] = measure(target)
    except subprocess.CalledProcessError as error:
        parser.error(f"git failed on {str(repo)!r} (is it a repository with a commit?): {error.stderr.strip()}")
    result["command"] = "python benchmarks/clone_size.py" + (f" --json {options.json}" if options.json else "")
    text = json.dumps(result, indent=2)
    print(text)
    if options.json:
        Path(options.json).parent.mkdir(parents=True, exist_ok=True)
        Path(options.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
