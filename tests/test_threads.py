"""One runtime used from several threads (or asyncio tasks) at once: slots, recording
state and the registry stay consistent."""

import asyncio
import subprocess
import sys
import threading

import numpy as np

from tenferro import CpuEngine, EagerRuntime


def _in_threads(count, target):
    start = threading.Barrier(count)
    errors = []

    def run(index):
        try:
            start.wait()
            target(index)
        except BaseException as exc:  # reported by the test, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_concurrent_backward_into_one_variable_loses_no_update():
    rt = EagerRuntime()
    x = rt.variable_from(np.zeros(10**6))
    rounds = 6

    def train(_):
        eng = CpuEngine.serial()  # the documented way: one engine per thread
        for _ in range(rounds):
            loss = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(x, 50.0), None))
            loss.backward(eng)

    _in_threads(2, train)
    slot = x.grad().to_numpy()
    assert np.all(slot == 2 * rounds * 50.0), np.unique(slot)


def test_no_grad_in_one_thread_does_not_pause_another():
    rt = EagerRuntime()
    inside, done = threading.Event(), threading.Event()
    w = rt.variable_from(np.array([0.3, 1.2]))
    seen = {}

    def pauser():
        with rt.no_grad():
            inside.set()
            done.wait(10)

    def trainer():
        inside.wait(10)
        eng = CpuEngine.serial()
        loss = rt.with_eager_session(eng, lambda s: s.reduce_sum(s.mul(s.sin(w), s.mul(w, w)), None))
        seen["tracks"] = loss.tracks_grad()
        seen["grads"] = loss.backward(eng)
        done.set()

    threads = [threading.Thread(target=pauser), threading.Thread(target=trainer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    xs = np.array([0.3, 1.2])
    assert seen["tracks"] and len(seen["grads"]) == 1
    np.testing.assert_allclose(w.grad().to_numpy(), np.cos(xs) * xs**2 + 2 * xs * np.sin(xs), rtol=1e-15)


def test_no_grad_blocks_that_overlap_without_nesting_leave_recording_on():
    rt = EagerRuntime(engine=CpuEngine.serial())
    entered, a_left = threading.Barrier(2), threading.Event()

    def first():
        with rt.no_grad():
            entered.wait(10)
        a_left.set()  # A leaves while B is still inside

    def second():
        with rt.no_grad():
            entered.wait(10)
            a_left.wait(10)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    x = rt.variable_from(np.ones(2))
    assert rt.with_eager_session(lambda s: s.sin(x)).tracks_grad()


def test_no_grad_blocks_of_two_asyncio_tasks_restore_their_own_state():
    rt = EagerRuntime(engine=CpuEngine.serial())
    x = rt.variable_from(np.ones(2))

    async def paused(enter, leave):
        with rt.no_grad():
            enter.set()
            await leave.wait()

    async def main():
        a_in, b_in, a_out, b_out = (asyncio.Event() for _ in range(4))
        a = asyncio.create_task(paused(a_in, a_out))
        b = asyncio.create_task(paused(b_in, b_out))
        await a_in.wait()
        await b_in.wait()
        a_out.set()  # A's block ends first, B's after: they overlap without nesting
        await a
        b_out.set()
        await b
        return rt.with_eager_session(lambda s: s.sin(x)).tracks_grad()

    assert asyncio.run(main())


def test_eight_threads_creating_their_first_runtime_share_one_registry():
    script = """
import threading, time
import tenferro.core.loading as registry
from tenferro import EagerRuntime

calls = []
original = registry.load_registry
def slow_load(*args, **kwargs):
    calls.append(1)
    time.sleep(0.2)  # widen the window in which a second thread could start building
    return original(*args, **kwargs)
registry.load_registry = slow_load

runtimes = []
start = threading.Barrier(8)
def make():
    start.wait()
    runtimes.append(EagerRuntime())
threads = [threading.Thread(target=make) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print(len(calls), len({id(rt.registry) for rt in runtimes}), len({id(rt._session_class) for rt in runtimes}))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["1", "1", "1"]


def test_a_no_grad_block_left_in_another_thread_says_so():
    from tenferro import ArgumentError

    rt = EagerRuntime()
    block = rt.no_grad()
    block.__enter__()
    failures = []

    def leave():
        try:
            block.__exit__(None, None, None)
        except ArgumentError as exc:
            failures.append(str(exc))

    thread = threading.Thread(target=leave)
    thread.start()
    thread.join()
    block.__exit__(None, None, None)
    assert failures and "another thread or context" in failures[0]
