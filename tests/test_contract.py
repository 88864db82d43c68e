"""The contract plugin: values against NumPy, gradients against PyTorch, einsum's grammar and
edge cases, error messages, and three programs (an MLP, a tensor network, an attention
block) whose gradients are checked against finite differences or PyTorch."""

import numpy as np
import pytest
from conftest import needs_torch, torch

from tenferro import ArgumentError, AxisError, ShapeMismatch
from tenferro.plugins.contract import plans

RNG = np.random.default_rng(11)


def _arrays(*shapes):
    return [RNG.standard_normal(shape) for shape in shapes]


def _ours(rt, fn, arrays):
    """Value of fn(s, *tensors) and the gradient of sum(value·c) for a fixed c."""
    tensors = [rt.variable_from(a) for a in arrays]
    out = rt.with_eager_session(lambda s: fn(s, *tensors))
    c = rt.constant_from(np.cos(np.arange(np.asarray(out).size)).reshape(out.shape))
    grads = rt.grad(rt.with_eager_session(lambda s: s.reduce_sum(s.mul(out, c), None)), tensors)
    return np.asarray(out), [np.asarray(g) for g in grads]


def _theirs(fn, arrays):
    tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*tensors)
    c = torch.cos(torch.arange(out.numel(), dtype=out.dtype)).reshape(out.shape)
    return out.detach().numpy(), [g.numpy() for g in torch.autograd.grad((out * c).sum(), tensors)]


def _agree_with_torch(rt, ours, theirs, arrays):
    value, grads = _ours(rt, ours, arrays)
    value_t, grads_t = _theirs(theirs, arrays)
    np.testing.assert_allclose(value, value_t, rtol=1e-12, atol=1e-12)
    for g, gt in zip(grads, grads_t):
        np.testing.assert_allclose(g, gt, rtol=1e-12, atol=1e-12)


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ba,cb", [(3, 2), (4, 3)]),
    ("Ba,ab", [(2, 3), (3, 2)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,jk,kl,lm->mi", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("abc,cd,bd->a", [(2, 3, 4), (4, 5), (3, 5)]),
    ("ii->i", [(3, 3)]),
    ("ii->", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij->j", [(3, 3, 2)]),
    ("ii,i->i", [(3, 3), (3,)]),
    ("ij->ji", [(2, 3)]),
    ("ij->ij", [(2, 3)]),
    ("ijk->", [(2, 3, 4)]),
    ("ij->j", [(2, 3)]),
    ("ij,kl->", [(2, 3), (4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...i,...i->...", [(2, 3), (3,)]),
    ("i...,i->...", [(2, 3, 4), (2,)]),
    ("...", [(2, 3)]),
    (",i->i", [(), (3,)]),
]


@pytest.mark.parametrize("subscripts, shapes", EINSUM_CASES)
def test_einsum_matches_numpy(rt, subscripts, shapes):
    arrays = _arrays(*shapes)
    ops = [rt.constant_from(a) for a in arrays]
    out = rt.with_eager_session(lambda s: s.einsum(ops, subscripts))
    np.testing.assert_allclose(np.asarray(out), np.einsum(subscripts, *arrays), rtol=1e-13, atol=1e-13)


def test_einsum_of_integers_and_views_is_a_copy(rt):
    x = np.arange(6).reshape(2, 3)
    out = rt.with_eager_session(lambda s: s.einsum([rt.constant_from(x)], "ij->ji"))
    np.testing.assert_array_equal(np.asarray(out), x.T)
    assert not np.shares_memory(np.asarray(out), x)


@needs_torch
@pytest.mark.parametrize(
    "subscripts, shapes",
    [case for case in EINSUM_CASES if "..." not in case[0] and case[0] not in ("ii", ",i->i", "Ba,ab", "ij,kl->")],
)
def test_einsum_gradients_match_torch(rt, subscripts, shapes):
    _agree_with_torch(
        rt,
        lambda s, *xs: s.einsum(list(xs), subscripts),
        lambda *xs: torch.einsum(subscripts, *xs),
        _arrays(*shapes),
    )


@needs_torch
def test_einsum_ellipsis_broadcast_gradient_matches_torch(rt):
    _agree_with_torch(
        rt,
        lambda s, a, b: s.einsum([a, b], "...ij,...jk->...ik"),
        lambda a, b: torch.einsum("...ij,...jk->...ik", a, b),
        _arrays((2, 1, 3, 4), (5, 4, 2)),
    )


def _fd_gradient_of_sum_sin_einsum(subscripts, arrays, k, h=1e-6):
    """Central differences of sum(sin(np.einsum(...))) in operand ``k``."""
    grad = np.zeros_like(arrays[k])
    for index in np.ndindex(grad.shape):
        step = np.zeros_like(grad)
        step[index] = h
        up, down = list(arrays), list(arrays)
        up[k], down[k] = arrays[k] + step, arrays[k] - step
        grad[index] = (np.sin(np.einsum(subscripts, *up)).sum() - np.sin(np.einsum(subscripts, *down)).sum()) / (2 * h)
    return grad


@pytest.mark.parametrize(
    "subscripts, shapes",
    [
        ("mnd,mdo->mno", [(1, 4, 1), (3, 1, 2)]),  # the case: NumPy, JAX and PyTorch broadcast
        ("ij,ij->", [(1, 3), (2, 3)]),  # a summed label only the other operand has at full size
        ("ij,ij->", [(1, 3), (2, 1)]),
        ("ij,jk->ik", [(2, 1), (3, 4)]),  # a contracted label of size 1 in one operand
        ("ii,i->i", [(1, 1), (3,)]),
        ("ij,jk,kl->il", [(2, 1), (3, 4), (1, 5)]),
    ],
)
def test_einsum_broadcasts_a_size_1_axis_of_a_named_label(subscripts, shapes):
    import tenferro as tf
    import tenferro.numpy as tnp

    arrays = _arrays(*shapes)
    np.testing.assert_allclose(np.asarray(tnp.einsum(subscripts, *arrays)), np.einsum(subscripts, *arrays), rtol=1e-13)
    grads = tf.grad(lambda *xs: tnp.sum(tnp.sin(tnp.einsum(subscripts, *xs))), argnums=tuple(range(len(arrays))))(
        *arrays
    )
    for k, g in enumerate(grads):
        assert g.shape == arrays[k].shape
        np.testing.assert_allclose(np.asarray(g), _fd_gradient_of_sum_sin_einsum(subscripts, arrays, k), atol=1e-7)


def test_einsum_refuses_sizes_that_neither_match_nor_broadcast():
    import tenferro.numpy as tnp

    with pytest.raises(ShapeMismatch, match=r"label 'j' differs: .*equal, or 1 to broadcast"):
        tnp.einsum("ij,jk->ik", np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ShapeMismatch, match=r"label 'i' is repeated in operands\[0\] .* a diagonal needs one size"):
        tnp.einsum("ii->i", np.ones((1, 3)))


def test_einsum_second_derivative_of_a_quadratic_form(rt):
    a0, x0 = _arrays((4, 4), (4,))
    a, x = rt.constant_from(a0), rt.variable_from(x0)
    value = rt.with_eager_session(lambda s: s.einsum([x, a, x], "i,ij,j->"))
    (g,) = rt.grad(value, [x])
    np.testing.assert_allclose(np.asarray(g), (a0 + a0.T) @ x0, rtol=1e-13)
    v = rt.constant_from(np.arange(4.0))
    (h,) = rt.grad(rt.with_eager_session(lambda s: s.vecdot(g, v)), [x])
    np.testing.assert_allclose(np.asarray(h), (a0 + a0.T) @ np.arange(4.0), rtol=1e-13)


# -- an output that repeats a label: a diagonal embedding (issue 10) -----------------------------
def _embedded(base, out):
    """A NumPy construction of ``out``'s (letters only) diagonal embedding of ``base``, whose
    axes are ``out``'s labels once each, in order of first appearance."""
    unique = "".join(dict.fromkeys(out))
    result = np.zeros([base.shape[unique.index(c)] for c in out], base.dtype)
    for index in np.ndindex(base.shape):
        result[tuple(index[unique.index(c)] for c in out)] = base[index]
    return result


@pytest.mark.parametrize(
    "subscripts, shapes, unique",
    [
        ("i->ii", [(3,)], "i->i"),
        ("i->iii", [(2,)], "i->i"),
        ("ij->jii", [(2, 3)], "ij->ji"),
        ("ij->iji", [(2, 3)], "ij->ij"),
        ("ii->ii", [(3, 3)], "ii->i"),
        ("ij,jk->kiki", [(2, 3), (3, 4)], "ij,jk->ki"),
        ("i,j->ijji", [(2,), (3,)], "i,j->ij"),
    ],
)
def test_einsum_output_repeating_a_label_is_the_diagonal_embedding(rt, subscripts, shapes, unique):
    arrays = _arrays(*shapes)
    out = rt.with_eager_session(lambda s: s.einsum([rt.constant_from(a) for a in arrays], subscripts))
    expected = _embedded(np.einsum(unique, *arrays), subscripts.split("->")[1])
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-13, atol=1e-13)
    if subscripts == "i->ii":
        np.testing.assert_array_equal(np.asarray(out), np.diag(arrays[0]))


@needs_torch
def test_einsum_diagonal_embedding_matches_torch_diag_embed_with_ellipsis_and_gradient(rt):
    _agree_with_torch(rt, lambda s, x: s.einsum([x], "...i->...ii"), lambda x: torch.diag_embed(x), _arrays((2, 3, 4)))
    _agree_with_torch(rt, lambda s, x: s.einsum([x], "i->ii"), lambda x: torch.diag_embed(x), _arrays((5,)))


def test_einsum_diagonal_embedding_gradient_is_the_cotangents_diagonal(rt):
    (x0,) = _arrays((2, 3))
    x = rt.variable_from(x0)
    c = RNG.standard_normal((3, 2, 2))
    (g,) = rt.grad(
        rt.with_eager_session(lambda s: s.reduce_sum(s.mul(s.einsum([x], "ij->jii"), rt.constant_from(c)), None)), [x]
    )
    np.testing.assert_allclose(np.asarray(g), np.einsum("jii->ij", c), rtol=1e-13)


@needs_torch
def test_einsum_diagonal_embedding_second_derivative_matches_torch(rt):
    x0, a0, d = _arrays((4,), (4, 4), (4,))

    def ours(s, x):  # sum(exp(diag(x) @ a @ diag(x)))
        m = s.einsum([x], "i->ii")
        return s.reduce_sum(s.exp(s.matmul(s.matmul(m, rt.constant_from(a0)), m)), None)

    x = rt.variable_from(x0)
    (g,) = rt.grad(rt.with_eager_session(lambda s: ours(s, x)), [x])
    (h,) = rt.grad(rt.with_eager_session(lambda s: s.vecdot(g, rt.constant_from(d))), [x])
    xt = torch.tensor(x0, requires_grad=True)
    m = torch.diag_embed(xt)
    (gt,) = torch.autograd.grad(torch.exp(m @ torch.tensor(a0) @ m).sum(), xt, create_graph=True)
    (ht,) = torch.autograd.grad((gt * torch.tensor(d)).sum(), xt)
    np.testing.assert_allclose(np.asarray(g), gt.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(h), ht.numpy(), rtol=1e-12)


@needs_torch
def test_einsum_diagonal_embedding_keeps_the_dtype_and_puts_inf_only_on_the_diagonal(rt):
    for x in (np.arange(3), np.arange(3, dtype=np.float32)):
        out = np.asarray(rt.with_eager_session(lambda s, x=x: s.einsum([rt.constant_from(x)], "i->ii")))
        assert out.dtype == x.dtype
        np.testing.assert_array_equal(out, np.diag(x))
    x = np.array([np.inf, np.nan, 1.0])
    out = np.asarray(rt.with_eager_session(lambda s: s.einsum([rt.constant_from(x)], "i->ii")))
    np.testing.assert_array_equal(out, torch.diag_embed(torch.tensor(x)).numpy())  # zeros off the diagonal


def test_einsum_contracts_pairwise_in_numpys_greedy_order():
    shapes = ((50, 2), (2, 60), (60, 3))  # left to right would make a 50x60 intermediate
    p = plans.plan("ij,jk,kl->il", shapes)
    expected = np.einsum_path("ij,jk,kl->il", *(np.empty(s) for s in shapes), optimize="greedy")[0]
    assert [(step.i, step.j) for step in p.steps] == expected[1:] == [(1, 2), (0, 1)]


def test_einsum_backward_reuses_the_forward_intermediates(rt, monkeypatch):
    calls = []
    original = plans.pair
    monkeypatch.setattr(plans, "pair", lambda subs, x, y: calls.append(subs) or original(subs, x, y))
    ops = [rt.variable_from(a) for a in _arrays((4, 5), (5, 6), (6, 3))]
    rt.with_eager_session(lambda s: s.reduce_sum(s.einsum(ops, "ij,jk,kl->il"), None)).backward()
    assert len(calls) == 6  # 2 forward + 4 backward, as PyTorch's: the intermediate is not recomputed


def test_einsum_gradient_is_the_same_when_the_intermediates_were_not_kept(rt, monkeypatch):
    arrays = _arrays((4, 5), (5, 6), (6, 3))
    kept = _ours(rt, lambda s, *xs: s.einsum(list(xs), "ij,jk,kl->il"), arrays)
    monkeypatch.setattr(plans, "STASH_BYTES", 0)
    recomputed = _ours(rt, lambda s, *xs: s.einsum(list(xs), "ij,jk,kl->il"), arrays)
    for a, b in zip(kept[1], recomputed[1]):
        np.testing.assert_array_equal(a, b)


@needs_torch
@pytest.mark.parametrize(
    "shapes",
    [((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)), ((3,), (3,)), ((2, 1, 2, 3), (4, 3, 5)), ((5, 2, 3), (3, 2))],
)
def test_matmul_matches_numpy_and_torch(rt, shapes):
    _agree_with_torch(rt, lambda s, a, b: s.matmul(a, b), torch.matmul, _arrays(*shapes))


@needs_torch
def test_tensordot_dot_general_vecdot_outer_match_torch(rt):
    a, b = _arrays((2, 3, 4), (3, 4, 5))
    _agree_with_torch(rt, lambda s, x, y: s.tensordot(x, y), lambda x, y: torch.tensordot(x, y, 2), [a, b])
    _agree_with_torch(
        rt, lambda s, x, y: s.tensordot(x, y, ((1,), (0,))), lambda x, y: torch.tensordot(x, y, ([1], [0])), [a, b]
    )
    c, d = _arrays((4, 2, 3), (3, 4, 5))  # batch over a's 0 / b's 1, contract a's 2 with b's 0
    _agree_with_torch(
        rt,
        lambda s, x, y: s.dot_general(x, y, ((2,), (0,)), ((0,), (1,))),
        lambda x, y: torch.einsum("bij,jbk->bik", x, y),
        [c, d],
    )
    _agree_with_torch(rt, lambda s, x, y: s.vecdot(x, y), lambda x, y: torch.linalg.vecdot(x, y), _arrays((2, 3), (3,)))
    _agree_with_torch(
        rt, lambda s, x, y: s.vecdot(x, y, -2), lambda x, y: torch.linalg.vecdot(x, y, dim=-2), _arrays((3, 2), (3, 2))
    )
    _agree_with_torch(rt, lambda s, x, y: s.outer(x, y), torch.outer, _arrays((3,), (4,)))


def test_outer_flattens_as_numpy(rt):
    a, b = _arrays((2, 2), (3,))
    out = rt.with_eager_session(lambda s: s.outer(rt.constant_from(a), rt.constant_from(b)))
    np.testing.assert_allclose(np.asarray(out), np.outer(a, b))


@pytest.mark.parametrize(
    "call, error, fragment",
    [
        (
            lambda s, a, b: s.matmul(a, b),
            ShapeMismatch,
            "a's last axis (size 3) is contracted with b's second-to-last axis (size 4), but the sizes differ "
            "(a has shape [2, 3], b has shape [4, 5])",
        ),
        (
            lambda s, a, b: s.tensordot(a, b, 1),
            ShapeMismatch,
            "a's axes (1,) (sizes [3]) are contracted with b's axes (0,) (sizes [4])",
        ),
        (
            lambda s, a, b: s.dot_general(a, b, ((0,), (1,))),
            ShapeMismatch,
            "a's axes (0,) (sizes [2]) are contracted with b's axes (1,) (sizes [5])",
        ),
        (
            lambda s, a, b: s.einsum([a, b], "ij,jk->ik"),
            ShapeMismatch,
            "operands[0] has size 3 in axis 1 (shape [2, 3]) but operands[1] has size 4 in axis 0",
        ),
        (lambda s, a, b: s.vecdot(a, b), ShapeMismatch, "a's axis -1 (size 3) is contracted with b's axis -1 (size 5)"),
        (lambda s, a, b: s.dot_general(a, b, ((2,), (0,))), AxisError, "a's contracting axes include axis 2"),
        (lambda s, a, b: s.einsum([a, b], "ij,jk->q"), ArgumentError, "output label 'q'"),
    ],
)
def test_shape_errors_name_both_operands_and_the_axes(rt, call, error, fragment):
    a, b = rt.constant_from(np.zeros((2, 3))), rt.constant_from(np.zeros((4, 5)))
    with pytest.raises(error) as info:
        rt.with_eager_session(lambda s: call(s, a, b))
    assert fragment in str(info.value)


# -- programs ----------------------------------------------------------------------------------
def _fd_check(rt, loss, params, coordinates, h=1e-6, rtol=1e-6):
    """rt.grad of loss(s, *tensors) against central differences at a few coordinates."""
    tensors = [rt.variable_from(p) for p in params]
    grads = [np.asarray(g) for g in rt.grad(rt.with_eager_session(lambda s: loss(s, *tensors)), tensors)]

    def value(values):
        consts = [rt.constant_from(v) for v in values]
        return float(np.asarray(rt.with_eager_session(lambda s: loss(s, *consts))))

    for which, index in coordinates:
        plus, minus = [p.copy() for p in params], [p.copy() for p in params]
        plus[which][index] += h
        minus[which][index] -= h
        fd = (value(plus) - value(minus)) / (2 * h)
        np.testing.assert_allclose(grads[which][index], fd, rtol=rtol, atol=1e-8)


def test_mlp_gradient_matches_finite_differences(rt):
    rng = np.random.default_rng(5)
    batch, sizes = 16, (784, 256, 10)
    x, idx = rt.constant_from(rng.standard_normal((batch, 784))), rt.constant_from(rng.integers(0, 10, (batch, 1)))
    params = [
        rng.standard_normal(sizes[:2]) / 28,
        rng.standard_normal(sizes[1]) * 0.1,
        rng.standard_normal(sizes[1:]) / 16,
        rng.standard_normal(sizes[2]) * 0.1,
    ]

    def loss(s, w1, b1, w2, b2):
        h = s.tanh(s.add(s.matmul(x, w1), b1))
        logp = s.log_softmax(s.add(s.matmul(h, w2), b2), 1)
        return s.mul(s.reduce_sum(s.take_along_axis(logp, idx, 1), None), -1.0 / batch)

    _fd_check(rt, loss, params, [(0, (3, 7)), (0, (500, 200)), (1, (11,)), (2, (100, 4)), (3, (9,))])


def test_tensor_network_contraction_gradient_matches_finite_differences(rt):
    # a ring of four 3-index tensors (a periodic MPS-like network) contracted to a scalar
    params = [RNG.standard_normal((3, 2, 3)) for _ in range(4)]

    def loss(s, a, b, c, d):
        return s.einsum([a, b, c, d], "aib,bjc,cid,dja->")

    _fd_check(rt, loss, params, [(0, (0, 1, 2)), (1, (2, 0, 1)), (2, (1, 1, 0)), (3, (0, 0, 0))])


@needs_torch
def test_attention_block_gradient_matches_torch(rt):
    seq, dim = 5, 8
    x0, wq, wk, wv, gamma, beta = _arrays((seq, dim), (dim, dim), (dim, dim), (dim, dim), (dim,), (dim,))

    def ours(s, x, q_w, k_w, v_w, g, b):
        q, k, v = (s.einsum([x, w], "td,de->te") for w in (q_w, k_w, v_w))
        scores = s.mul(s.einsum([q, k], "te,se->ts"), 1.0 / np.sqrt(dim))
        attended = s.einsum([s.softmax(scores, 1), v], "ts,se->te")
        return s.layer_norm(s.add(attended, x), g, b, (dim,))

    def theirs(x, q_w, k_w, v_w, g, b):
        q, k, v = x @ q_w, x @ k_w, x @ v_w
        attended = torch.softmax(q @ k.T / np.sqrt(dim), 1) @ v
        return torch.nn.functional.layer_norm(attended + x, (dim,), g, b)

    _agree_with_torch(rt, ours, theirs, [x0, wq, wk, wv, gamma, beta])


def test_einsum_with_a_python_number_keeps_float32(rt):
    x = rt.variable_from(np.ones(3, np.float32))
    out = rt.with_eager_session(lambda s: s.einsum([2.0, x], ",i->i"))
    assert out.dtype == np.float32
    rt.with_eager_session(lambda s: s.reduce_sum(s.einsum([2.0, x], ",i->i"), None)).backward()
    np.testing.assert_array_equal(np.asarray(x.grad()), np.full(3, 2.0, np.float32))


def test_einsum_kernel_called_on_arrays_that_change_never_returns_a_stale_intermediate():
    """The intermediates kept for the VJP are keyed by operand identity: only operands
    that can never change (tenferro's read-only values) may be kept."""
    from tenferro.plugins.contract.einsum import EINSUM

    rng = np.random.default_rng(0)
    a, b, c = rng.standard_normal((3, 4)), rng.standard_normal((4, 5)), rng.standard_normal((5, 2))
    first = EINSUM.forward([a, b, c], subscripts="ij,jk,kl->il")  # alive: its intermediates are kept
    a *= 2.0
    b *= 3.0
    again = EINSUM.forward([a, b, c], subscripts="ij,jk,kl->il")
    np.testing.assert_allclose(again, a @ b @ c, rtol=1e-12)
    assert first.shape == again.shape


def test_einsum_with_more_dims_than_labels_says_so(rt):
    from tenferro import ArgumentError

    x = rt.constant_from(np.zeros((1,) * 53))
    with pytest.raises(ArgumentError, match="einsum: too many dims: an einsum has at most 52 distinct labels"):
        rt.with_eager_session(lambda s: s.einsum([x], "...->..."))


def test_an_einsum_vjp_keeps_no_operand_alive_after_the_gradient():
    """plans.shape_of was an lru_cache keyed by the operands themselves: every einsum VJP
    kept its inputs (up to 1024 of them, 8 MB each for 1000 x 1000) alive after the call."""
    import gc
    import tracemalloc

    import tenferro as tf
    import tenferro.numpy as tnp

    def f(x):
        return tnp.einsum("ij,jk->", x, x)

    tf.grad(f)(np.ones((300, 300)))  # the first call loads what every later one shares
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for seed in range(20):  # 20 inputs of 0.72 MB: 14 MB if each were kept
            tf.grad(f)(np.random.default_rng(seed).random((300, 300)))
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 3 * 300 * 300 * 8, kept


def test_a_cached_plan_cannot_be_changed_by_a_caller():
    """Plans are cached and shared since the einsum speed work: a caller writing into a
    plan's sizes would break every later einsum of those subscripts and shapes."""
    with pytest.raises(TypeError):
        plans.plan("ij->j", ((2, 3),)).sizes["i"] = 5


@pytest.mark.parametrize("a_shape, b_shape", [((5, 3), (3,)), ((3,), (3, 4)), ((3,), (3,))])
def test_a_matrix_beside_a_vector_differentiates_in_one_op_per_cotangent(a_shape, b_shape):
    """``tnp.dot`` and ``@`` of a matrix and a vector (``X @ w``): each cotangent is one
    matrix-vector product or one outer product, with no reshape or expand of the vector
    (there were four ops each), and its numbers are NumPy's for the same products, bitwise."""
    import tenferro as tf
    import tenferro.numpy as tnp

    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    x, w = tf.variable(a), tf.variable(b)
    out = tnp.sum(tnp.sin(tnp.dot(x, w)))
    ga, gb = tf.default_runtime().grad(out, [x, w])
    g = np.cos(np.dot(a, b))
    if a.ndim == 2:
        assert np.asarray(ga).tobytes() == (g[:, None] * b).tobytes()
        assert np.asarray(gb).tobytes() == np.matmul(a.swapaxes(-1, -2), g).tobytes()
    elif b.ndim == 2:
        assert np.asarray(ga).tobytes() == np.matmul(b, g).tobytes()
        assert np.asarray(gb).tobytes() == (a[:, None] * g).tobytes()
    else:
        assert np.asarray(ga).tobytes() == (g * b).tobytes()
        assert np.asarray(gb).tobytes() == (a * g).tobytes()
    for cotangent in (ga, gb):
        listing = str(cotangent.trace())
        assert "reshape" not in listing and "tensordot" not in listing and "einsum" not in listing
    assert str(ga.trace()).count("matmul") + str(gb.trace()).count("matmul") == 2 + (a.ndim + b.ndim == 3)
