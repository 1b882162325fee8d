#!/usr/bin/env python3
"""Fetch and unpack the sources of one or more recall sets (`sets/evalNN/src/<project>/`).

usage: fetch.py SETDIR [SETDIR ...] [--cache DIR]
Reads each set's projects.txt (distributions, then the `# src/:` line naming each one's folder, in the same
order), downloads each distribution with pip (a wheel when PyPI has one for this interpreter, else the sdist),
unpacks it into src/<folder>/ (an sdist's top folder stripped) and reports the gold files it could not find.
Sets whose src/<folder>/ already exists are left as they are. Needs network access to PyPI.
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile


def read_projects(setdir: str) -> list[tuple[str, str]]:
    dists, folders = [], []
    for line in open(os.path.join(setdir, "projects.txt"), encoding="utf-8"):
        line = line.strip()
        if line.startswith("# src/:"):
            folders = line.split(":", 1)[1].split()
        elif line and not line.startswith("#"):
            dists.append(line)
    if len(dists) != len(folders):
        raise SystemExit(f"{setdir}: {len(dists)} distributions but {len(folders)} src folders")
    return list(zip(dists, folders))


def download(dist: str, cache: str, sdist: bool) -> str:
    here = os.path.join(cache, dist.replace("==", "-") + ("-sdist" if sdist else ""))
    os.makedirs(here, exist_ok=True)
    got = glob.glob(os.path.join(here, "*"))
    if not got and sdist:
        fetch_sdist(dist, here)
        got = glob.glob(os.path.join(here, "*"))
    if not got:
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:", "-d", here, dist]
        if (subprocess.run(cmd, capture_output=True).returncode != 0  # a wheel for a newer Python will do:
                and subprocess.run(cmd + ["--python-version", "3.12"], capture_output=True).returncode != 0):
            fetch_sdist(dist, here)  # pip would build an sdist to read its metadata; take the file as it is
        got = glob.glob(os.path.join(here, "*"))
    if not got:
        raise RuntimeError(f"could not download {dist}")
    return got[0]


def fetch_sdist(dist: str, here: str) -> None:
    name, _, version = dist.partition("==")
    url = f"https://pypi.org/simple/{re.sub(r'[-_.]+', '-', name).lower()}/"
    req = urllib.request.Request(url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        files = json.load(resp)["files"]
    def version_of(fname: str) -> str:
        if fname.endswith(".whl"):
            return fname.split("-")[1]
        stem = re.sub(r"\.(tar\.gz|zip|tar\.bz2)$", "", fname)
        return stem.rsplit("-", 1)[-1] if stem != fname else ""
    mine = [e for e in files if version_of(e["filename"]) == version]
    # the sdist, else a pure-Python wheel pip would not take for this interpreter (a Python or platform pin)
    mine.sort(key=lambda e: (e["filename"].endswith(".whl"), "none-any" not in e["filename"]))
    for entry in mine[:1]:
        with urllib.request.urlopen(entry["url"], timeout=300) as resp, \
                open(os.path.join(here, entry["filename"]), "wb") as out:
            shutil.copyfileobj(resp, out)


def unpack(archive: str, dest: str, keep_top: bool) -> None:
    tmp = tempfile.mkdtemp(dir=os.path.dirname(dest))
    if archive.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)
    else:
        with tarfile.open(archive) as tf:
            tf.extractall(tmp, filter="data")
    root = tmp
    entries = os.listdir(tmp)
    if not keep_top and not archive.endswith(".whl") and len(entries) == 1 and os.path.isdir(os.path.join(tmp, entries[0])):
        root = os.path.join(tmp, entries[0])
    shutil.move(root, dest)
    if os.path.exists(tmp):
        shutil.rmtree(tmp)


def layout(files: list[str], folder: str) -> tuple[bool, bool]:
    """(sdist, keep_top) as the gold paths under src/<folder>/ show them: `<folder>/src/...` is an sdist's
    src layout, `<folder>/<name>-<version>/...` an sdist unpacked with its top folder."""
    seconds = {f.split("/")[1] for f in files if f.startswith(folder + "/") and f.count("/") > 1}
    keep_top = any(re.fullmatch(r".+-\d[\w.]*", part) for part in seconds)
    return keep_top or "src" in seconds, keep_top


def fetch_set(setdir: str, cache: str) -> int:
    missing = 0
    files = [l.strip() for l in open(os.path.join(setdir, "files.txt"), encoding="utf-8")
             if l.strip() and not l.startswith("#")]
    for dist, folder in read_projects(setdir):
        dest = os.path.join(setdir, "src", folder)
        if not os.path.isdir(dest):
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            sdist, keep_top = layout(files, folder)
            try:
                unpack(download(dist, cache, sdist), dest, keep_top)
            except Exception as exc:  # report and go on with the other projects
                print(f"{setdir}: {dist}: {exc}", file=sys.stderr)
    for rel in files:
        if not os.path.isfile(os.path.join(setdir, "src", rel)):
            missing += 1
            print(f"{setdir}: missing {rel}", file=sys.stderr)
    print(f"{setdir}: {len(files) - missing}/{len(files)} gold files present")
    return missing


def main() -> int:
    args = sys.argv[1:]
    cache = os.path.join(tempfile.gettempdir(), "npu-lint-recall-cache")
    if "--cache" in args:
        i = args.index("--cache")
        cache = args[i + 1]
        del args[i:i + 2]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if sum(fetch_set(s.rstrip("/"), cache) for s in args) else 0


if __name__ == "__main__":
    sys.exit(main())
