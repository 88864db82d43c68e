"""Two threads training at once with the front end (operators, ``tf.variable``,
``backward()`` with no engine, the default runtime): each gets exactly the numbers of a
single-threaded run, and neither sees ``EngineBusy``; also with one thread inside
``rt.eager_session()`` or ``rt.no_grad()`` while the other records outside any session."""

import sys
import threading

import numpy as np
import pytest
from conftest import run_docs_example

import tenferro as tf

STEPS = 40


def _total(z):
    """The sum of z on the current session of this thread (the front end's own path)."""
    return tf.default_runtime().current_session().reduce_sum(z, None)


def _data(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(32, 4))
    y = x @ rng.normal(size=(4, 2)) + 0.1 * rng.normal(size=(32, 2))
    return x, y, 0.1 * rng.normal(size=(4, 2)), np.zeros(2)


def _train(seed, *, session=False, check=None):
    """Least squares by gradient descent; every loss and gradient, as NumPy arrays."""
    x, y, w0, b0 = _data(seed)
    x, y = tf.constant(x), tf.constant(y)
    rt = tf.default_runtime()
    w, b = tf.variable(w0), tf.variable(b0)
    seen = []
    for _ in range(STEPS):
        if session:
            with rt.eager_session() as s:
                assert rt.current_session() is s
                loss = _total((x @ w + b - y) ** 2) / 32
        else:
            loss = _total((x @ w + b - y) ** 2) / 32
        if check is not None:
            check()
        loss.backward()
        gw, gb = w.grad().to_numpy(), b.grad().to_numpy()
        seen += [np.asarray(loss), gw, gb]
        w = tf.variable(w.value().to_numpy() - 0.1 * gw)
        b = tf.variable(b.value().to_numpy() - 0.1 * gb)
    return seen


@pytest.fixture(autouse=True)
def _switch_often():
    """Make the threads interleave op by op rather than run one after the other."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def _in_two_threads(first, second):
    """Run both at once (started together); their results, or the first error raised."""
    start = threading.Barrier(2)
    results, errors = [None, None], []

    def run(index, target):
        try:
            start.wait()
            results[index] = target()
        except BaseException as exc:  # reported by the test, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i, t)) for i, t in enumerate((first, second))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


def _same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)  # bitwise: the same ops on the same numbers


def test_two_threads_training_at_once_get_the_single_thread_gradients():
    alone = [_train(1), _train(2)]
    together = _in_two_threads(lambda: _train(1), lambda: _train(2))
    _same(together[0], alone[0])
    _same(together[1], alone[1])


def test_a_session_in_one_thread_and_operators_outside_any_in_the_other():
    rt = tf.default_runtime()
    implicit = type(rt.current_session())

    def outside():  # this thread never sees the other thread's session
        assert type(rt.current_session()) is implicit

    alone = [_train(3, session=True), _train(4)]
    together = _in_two_threads(lambda: _train(3, session=True), lambda: _train(4, check=outside))
    _same(together[0], alone[0])
    _same(together[1], alone[1])


def test_no_grad_in_one_thread_does_not_stop_recording_in_the_other():
    rt = tf.default_runtime()
    paused, resume = threading.Event(), threading.Event()

    def quiet():
        with rt.no_grad():
            paused.set()
            resume.wait(10)
            y = tf.variable([1.0, 2.0]) * 3.0
        return y.tracks_grad()

    def recording():
        paused.wait(10)
        try:
            return _train(5)
        finally:
            resume.set()

    tracked, seen = _in_two_threads(quiet, recording)
    assert tracked is False
    _same(seen, _train(5))


def test_the_docs_example_runs_and_each_thread_fits(capsys):
    scope = run_docs_example("## Threads")
    assert sorted(scope["losses"]) == [1, 2]
    for seed in (1, 2):
        alone = {}
        scope["fit"](seed, alone)
        assert alone[seed] == scope["losses"][seed]  # bitwise the single-thread number
