"""Redaction: recall over real credential formats, false positives on real code, and throughput.

Run: ``python -m benchmarks.bench_redact`` (a minute or two; ``--quick`` reads less of the stdlib).

- recall: every format of ``tests/fakes/credentials.py`` (fake values made at run time in the
  real formats) in every placement (under a neutral key in JSON, YAML and INI, in a command line,
  in prose) is redacted; a sample counts as found when no 10 characters of its secret in a row are
  left. Misses are listed.
- false positives: every ``.py`` file of this machine's Python standard library is redacted whole
  (as a ``read_file`` result would be); the lines that changed, against all lines. ``--show`` lists
  them.
- throughput: MB/s over the first 2 MB of the standard library's source (``--speed-mb``), in 64 KB
  blocks (as ``redact_file`` cuts a command's output) and line by line (as JSONL records are
  redacted, one leaf at a time); the median of three runs, interleaved with the baseline's so
  that the machine's load falls on both alike: read the ratio.

The baseline measured in the same run is the redactor of ``--baseline`` (a git revision; by
default the one before issue 25, loaded from ``git show``). ``--detect-secrets`` adds Yelp's
detect-secrets (if installed; it is not a dependency of zett) with its default plugins, line by
line, on the first 2 MB of the standard library for false positives and 0.5 MB for speed (it is
slow).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from tests.fakes.credentials import PLACEMENTS, samples, survives
from zett_tui.core.redact import Redactor

#: The last commit of ``core/redact.py`` before issue 25's rules.
BEFORE = "f6df3f5"
Redact = Callable[[str], str]


def stdlib_sources(limit_bytes: int | None = None) -> list[str]:
    """The text of the standard library's ``.py`` files (not site-packages), in a fixed order."""
    root = Path(sysconfig.get_paths()["stdlib"])
    texts: list[str] = []
    total = 0
    for path in sorted(root.rglob("*.py")):
        if "site-packages" in path.parts or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        texts.append(text)
        total += len(text.encode())
        if limit_bytes is not None and total >= limit_bytes:
            break
    return texts


def recall(redact: Redact) -> tuple[float, dict[str, float], list[str]]:
    found = 0
    per_place: Counter[str] = Counter()
    missed: list[str] = []
    cases = samples()
    for place, wrap in PLACEMENTS.items():
        for fmt, sample in cases:
            if survives(sample.secret, redact(wrap(sample.text))):
                missed.append(f"{fmt.name}/{place}")
            else:
                found += 1
                per_place[place] += 1
    total = len(cases) * len(PLACEMENTS)
    return found / total, {place: per_place[place] / len(cases) for place in PLACEMENTS}, missed


def false_positives(redact: Redact, texts: list[str]) -> tuple[int, int, list[tuple[str, str]]]:
    changed = 0
    lines = 0
    shown: list[tuple[str, str]] = []
    for text in texts:
        before = text.splitlines()
        after = redact(text).splitlines()
        lines += len(before)
        if before == after:
            continue
        for old, new in zip(before, after, strict=False):
            if old != new:
                changed += 1
                shown.append((old.strip(), new.strip()))
        changed += abs(len(before) - len(after))
    return changed, lines, shown


def throughput(redactors: dict[str, Redact], text: str, *, by_line: bool, runs: int = 3) -> dict[str, float]:
    """MB/s of each redactor over ``text``, the runs interleaved so that a change in the machine's
    load falls on all of them alike; the median of ``runs``."""
    size = len(text.encode())
    blocks = [text[i : i + (1 << 16)] for i in range(0, len(text), 1 << 16)]
    pieces = text.splitlines() if by_line else blocks
    times: dict[str, list[float]] = {name: [] for name in redactors}
    for _ in range(runs):
        for name, redact in redactors.items():
            start = time.perf_counter()
            for piece in pieces:
                redact(piece)
            times[name].append(time.perf_counter() - start)
    return {name: size / statistics.median(spent) / 1e6 for name, spent in times.items()}


def load_revision(revision: str) -> ModuleType | None:
    """``core/redact.py`` as it was at ``revision``, imported under another name."""
    try:
        source = subprocess.run(
            ["git", "show", f"{revision}:zett_tui/core/redact.py"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    spec = importlib.util.spec_from_loader(f"redact_{revision}", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    exec(compile(source, f"redact@{revision}", "exec"), module.__dict__)
    return module


def detect_secrets_redactor() -> Redact | None:
    """detect-secrets as ``detect-secrets scan`` runs it: each text written to a file whose suffix
    says its type (JSON, YAML and INI are parsed by its transformers), its default plugins and
    filters; what it reports is replaced in the text."""
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def redact(text: str) -> str:
        stripped = text.lstrip()
        suffix = ".json" if stripped.startswith("{") else ".ini" if stripped.startswith("[") else ".txt"
        suffix = ".yaml" if stripped.startswith("settings:") else suffix
        suffix = ".py" if any(word in text for word in ("\nimport ", "\ndef ", "\nclass ")) else suffix
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / f"sample{suffix}"
            path.write_text(text)
            found = SecretsCollection()
            with default_settings():
                found.scan_file(str(path))
            # Longest first: a plugin may report a part (GitHub's reports "ghp") of what another found.
            values = sorted(
                {secret.secret_value for secret in found[str(path)] if secret.secret_value}, key=len
            )
            for value in reversed(values):
                text = text.replace(value, "[REDACTED]")
        return text

    return redact


def report(name: str, redact: Redact, texts: list[str], args: argparse.Namespace) -> None:
    overall, per_place, missed = recall(redact)
    changed, lines, shown = false_positives(redact, texts)
    places = ", ".join(f"{place} {value:.0%}" for place, value in per_place.items())
    print(f"\n== {name}")
    print(f"recall: {overall:.1%} ({places})")
    if missed:
        more = " ..." if len(missed) > args.list else ""
        print(f"  missed ({len(missed)}): {', '.join(missed[: args.list])}{more}")
    print(f"false positives: {changed} of {lines} lines changed ({changed / max(lines, 1):.4%})")
    if args.show:
        for old, new in shown[: args.list]:
            print(f"  - {old[:150]}\n  + {new[:150]}")


def report_speed(redactors: dict[str, Redact], text: str, runs: int) -> None:
    blocks = throughput(redactors, text, by_line=False, runs=runs)
    lines = throughput(redactors, text, by_line=True, runs=runs)
    print(
        f"\nthroughput over {len(text.encode()) / 1e6:.1f} MB of the standard library's source (median of {runs}):"
    )
    first = next(iter(redactors))
    for name in redactors:
        ratio = (
            ""
            if name == first
            else f"  (zett x{blocks[first] / blocks[name]:.1f} / x{lines[first] / lines[name]:.1f})"
        )
        print(
            f"  {name}: {blocks[name]:.1f} MB/s in 64 KB blocks, {lines[name]:.1f} MB/s line by line{ratio}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--baseline", default=BEFORE, help="git revision of the baseline redactor ('' for none)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="4 MB of the standard library for false positives"
    )
    parser.add_argument("--speed-mb", type=float, default=2.0, help="MB of source timed for throughput")
    parser.add_argument("--show", action="store_true", help="list the changed lines")
    parser.add_argument("--list", type=int, default=40, help="how many misses and changed lines to list")
    parser.add_argument("--detect-secrets", action="store_true", help="add detect-secrets (on 2 MB)")
    args = parser.parse_args()

    texts = stdlib_sources(4_000_000 if args.quick else None)
    speed_text = "".join(stdlib_sources(int(args.speed_mb * 1e6)))
    print(f"corpus: {len(samples())} formats x {len(PLACEMENTS)} placements ({', '.join(PLACEMENTS)})")
    print(f"standard library: {len(texts)} files, {sum(len(t.encode()) for t in texts) / 1e6:.1f} MB")

    zett = Redactor()
    report("zett (this tree)", zett, texts, args)
    speed: dict[str, Redact] = {"zett": zett}
    if args.baseline:
        module = load_revision(args.baseline)
        if module is None:
            print(f"\n(baseline {args.baseline} could not be loaded from git)")
        else:
            baseline = module.Redactor()
            report(f"zett at {args.baseline} (baseline)", baseline, texts, args)
            speed[f"baseline {args.baseline}"] = baseline
    report_speed(speed, speed_text, runs=3)
    if args.detect_secrets:
        detect = detect_secrets_redactor()
        if detect is None:
            print("\n(detect-secrets is not installed)")
        else:
            small = stdlib_sources(2_000_000)
            report("detect-secrets (default plugins; false positives on the first 2 MB)", detect, small, args)
            report_speed({"zett": zett, "detect-secrets": detect}, "".join(small)[:500_000], runs=1)


if __name__ == "__main__":
    main()
