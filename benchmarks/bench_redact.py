"""Redaction: recall over real credential formats, false positives on real code, and throughput.

Run: ``python -m benchmarks.bench_redact`` (a minute or two; ``--quick`` reads less of the stdlib).

- recall: every format of ``tests/fakes/credentials.py`` (fake values made at run time in the
  real formats) in every placement (under a neutral key in JSON, YAML and INI, in a command line,
  in prose) is redacted; a sample counts as found when no 10 characters of its secret in a row are
  left. Misses are listed.
- false positives: every ``.py`` file of this machine's Python standard library is redacted whole
  (as a ``read_file`` result would be); the lines that changed, against all lines. ``--show`` lists
  them.
- throughput: MB/s over the standard library's source, in 64 KB blocks (as ``redact_file`` cuts
  a command's output) and line by line (as JSONL records are redacted, one leaf at a time); the
  median of three runs.

The baseline measured in the same run is the redactor of ``--baseline`` (a git revision; by
default the one before issue 25, loaded from ``git show``). ``--detect-secrets`` adds Yelp's
detect-secrets (if installed) with its default plugins, on a sample of the standard library (it is
slow). ``--gitleaks-toml FILE`` adds gitleaks' rule catalogue (its regexes and keywords, run with
Python's ``re``; allowlists and entropy are left out) read from a copy of its ``gitleaks.toml``.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import statistics
import subprocess
import sys
import sysconfig
import time
import tomllib
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


def throughput(redact: Redact, text: str, *, by_line: bool) -> float:
    size = len(text.encode())
    blocks = [text[i : i + (1 << 16)] for i in range(0, len(text), 1 << 16)]
    pieces = text.splitlines() if by_line else blocks
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        for piece in pieces:
            redact(piece)
        runs.append(time.perf_counter() - start)
    return size / statistics.median(runs) / 1e6


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
    try:
        from detect_secrets.core.scan import scan_line
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def redact(text: str) -> str:
        with default_settings():
            out = []
            for line in text.split("\n"):
                for found in scan_line(line):
                    if found.secret_value:
                        line = line.replace(found.secret_value, "[REDACTED]")
                out.append(line)
        return "\n".join(out)

    return redact


def _go_regex(pattern: str) -> str:
    """A gitleaks (Go RE2) regex in Python's dialect: inline ``(?i)`` becomes a scoped group."""
    pattern = pattern.replace(r"\z", r"\Z")
    if "(?i)" in pattern[1:]:
        head, _, tail = pattern.partition("(?i)")
        if head:
            return head + "(?i:" + tail + ")"
    return pattern


def gitleaks_redactor(path: Path) -> tuple[Redact, int]:
    config = tomllib.loads(path.read_text())
    rules: list[tuple[tuple[str, ...], re.Pattern[str], int]] = []
    for rule in config.get("rules", []):
        if "regex" not in rule:
            continue
        try:
            compiled = re.compile(_go_regex(rule["regex"]))
        except re.error:
            continue
        group = int(rule.get("secretGroup", 0) or 0)
        if group == 0 and compiled.groups:
            group = 1
        rules.append((tuple(word.lower() for word in rule.get("keywords", [])), compiled, group))

    def redact(text: str) -> str:
        lowered = text.lower()
        for keywords, pattern, group in rules:
            if keywords and not any(word in lowered for word in keywords):
                continue
            for match in pattern.finditer(text):
                value = match.group(group) if group <= (pattern.groups or 0) else match.group(0)
                if value:
                    text = text.replace(value, "[REDACTED]")
        return text

    return redact, len(rules)


def report(name: str, redact: Redact, texts: list[str], speed_text: str, args: argparse.Namespace) -> None:
    overall, per_place, missed = recall(redact)
    changed, lines, shown = false_positives(redact, texts)
    blocks = throughput(redact, speed_text, by_line=False)
    by_line = throughput(redact, speed_text, by_line=True)
    places = ", ".join(f"{place} {value:.0%}" for place, value in per_place.items())
    print(f"\n== {name}")
    print(f"recall: {overall:.1%} ({places})")
    if missed:
        print(
            f"  missed ({len(missed)}): {', '.join(missed[: args.list])}{' ...' if len(missed) > args.list else ''}"
        )
    print(f"false positives: {changed} of {lines} lines changed ({changed / max(lines, 1):.4%})")
    if args.show:
        for old, new in shown[: args.list]:
            print(f"  - {old[:150]}\n  + {new[:150]}")
    print(f"throughput: {blocks:.1f} MB/s in 64 KB blocks, {by_line:.1f} MB/s line by line")


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
    parser.add_argument("--speed-mb", type=float, default=4.0, help="MB of source timed for throughput")
    parser.add_argument("--show", action="store_true", help="list the changed lines")
    parser.add_argument("--list", type=int, default=40, help="how many misses and changed lines to list")
    parser.add_argument("--detect-secrets", action="store_true", help="add detect-secrets (on 2 MB)")
    parser.add_argument("--gitleaks-toml", type=Path, help="add gitleaks' rules from this gitleaks.toml")
    args = parser.parse_args()

    texts = stdlib_sources(4_000_000 if args.quick else None)
    speed_text = "".join(stdlib_sources(int(args.speed_mb * 1e6)))
    print(f"corpus: {len(samples())} formats x {len(PLACEMENTS)} placements ({', '.join(PLACEMENTS)})")
    print(f"standard library: {len(texts)} files, {sum(len(t.encode()) for t in texts) / 1e6:.1f} MB")
    print(f"throughput text: {len(speed_text.encode()) / 1e6:.1f} MB of the same source")

    report("zett (this tree)", Redactor(), texts, speed_text, args)
    if args.baseline:
        module = load_revision(args.baseline)
        if module is None:
            print(f"\n(baseline {args.baseline} could not be loaded from git)")
        else:
            report(f"zett at {args.baseline} (baseline)", module.Redactor(), texts, speed_text, args)
    if args.detect_secrets:
        detect = detect_secrets_redactor()
        if detect is None:
            print("\n(detect-secrets is not installed)")
        else:
            small = stdlib_sources(2_000_000)
            report("detect-secrets (default plugins)", detect, small, "".join(small)[:1_000_000], args)
    if args.gitleaks_toml:
        gitleaks, count = gitleaks_redactor(args.gitleaks_toml)
        report(f"gitleaks rules ({count} regexes)", gitleaks, texts, speed_text, args)


if __name__ == "__main__":
    main()
