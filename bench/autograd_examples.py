"""The programs of examples/autograd/ timed under tenferro.autograd and under HIPS autograd,
alternately in one process (each run once to warm up, then 7 rounds of A B / B A), CPU
time. Prints each program's median ratio tenferro / autograd and their median."""

import pathlib
import statistics
import time

EXAMPLES = sorted((pathlib.Path(__file__).parents[1] / "examples" / "autograd").glob("*.py"))


def _timed(code) -> float:
    start = time.process_time()
    exec(code, {"__name__": "bench"})
    return time.process_time() - start


def main() -> None:
    ratios = []
    for path in EXAMPLES:
        source = path.read_text(encoding="utf-8")
        ours = compile(source, str(path), "exec")
        theirs = compile(source.replace("tenferro.autograd", "autograd"), str(path), "exec")
        _timed(ours), _timed(theirs)
        pairs = []
        for round_ in range(7):
            first, second = (ours, theirs) if round_ % 2 == 0 else (theirs, ours)
            a, b = _timed(first), _timed(second)
            pairs.append(a / b if first is ours else b / a)
        ratio = statistics.median(pairs)
        ratios.append(ratio)
        print(f"{path.stem:24s} tenferro / autograd = {ratio:.2f} ({min(pairs):.2f}-{max(pairs):.2f})")
    print(f"median over the programs: {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
