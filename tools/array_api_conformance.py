"""Run the array API standard's own test suite (data-apis/array-api-tests) on
``tenferro.numpy`` and summarise it: passed/failed/skipped per test file, failures grouped
by the first line of their error.

    git clone https://github.com/data-apis/array-api-tests && cd array-api-tests
    git submodule update --init   # the spec (signatures, special cases) it reads
    pip install -r requirements.txt
    python /path/to/tenferro/tools/array_api_conformance.py . --max-examples 50

Not part of tenferro's own suite (it needs the checkout, and takes minutes); the numbers
of the last run are in docs/numpy.md.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile


def run(checkout: pathlib.Path, max_examples: int, only: str) -> dict:
    env = dict(os.environ, ARRAY_API_TESTS_MODULE="tenferro.numpy", ARRAY_API_TESTS_VERSION="2024.12")
    with tempfile.TemporaryDirectory() as tmp:
        report = pathlib.Path(tmp) / "report.json"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "array_api_tests",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--max-examples={max_examples}",
            "--json-report",
            f"--json-report-file={report}",
            "-o",
            "addopts=",
            "--disable-warnings",
            "--hypothesis-disable-deadline",
        ]
        if only:
            command += ["-k", only]
        done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, check=False)
        if not report.exists():  # the suite did not start (e.g. the namespace failed to import)
            raise SystemExit(f"array-api-tests did not run:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        return json.loads(report.read_text())


def reason(test: dict) -> str:
    """The first line of a failure's error, with numbers and array reprs blurred so that
    the same cause groups together."""
    crash = (test.get("call") or test.get("setup") or {}).get("crash") or {}
    message = (crash.get("message") or "unknown").splitlines()[0][:160]
    return re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "N", message)


def summarise(data: dict) -> str:
    per_file: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    reasons: collections.Counter = collections.Counter()
    for test in data["tests"]:
        name = test["nodeid"].split("::")[0].removeprefix("array_api_tests/")
        per_file[name][test["outcome"]] += 1
        if test["outcome"] in ("failed", "error"):
            reasons[(name, reason(test))] += 1
    lines = [f"{'file':<48}{'passed':>8}{'failed':>8}{'skipped':>8}"]
    total: collections.Counter = collections.Counter()
    for name in sorted(per_file):
        counts = per_file[name]
        total.update(counts)
        lines.append(f"{name:<48}{counts['passed']:>8}{counts['failed'] + counts['error']:>8}{counts['skipped']:>8}")
    run_count = total["passed"] + total["failed"] + total["error"]
    lines.append(f"{'total':<48}{total['passed']:>8}{total['failed'] + total['error']:>8}{total['skipped']:>8}")
    lines.append(f"pass rate of the tests that ran: {total['passed'] / max(run_count, 1):.1%}")
    lines.append("")
    lines.append("failures by reason (count, file, first line of the error):")
    for (name, why), count in reasons.most_common():
        lines.append(f"{count:>5}  {name}: {why}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=pathlib.Path, help="a checkout of data-apis/array-api-tests")
    parser.add_argument("--max-examples", type=int, default=50)
    parser.add_argument("-k", dest="only", default="", help="pytest -k expression")
    parser.add_argument("--json", type=pathlib.Path, help="also write the raw pytest-json-report here")
    args = parser.parse_args()
    data = run(args.checkout, args.max_examples, args.only)
    if args.json:
        args.json.write_text(json.dumps(data))
    print(summarise(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
