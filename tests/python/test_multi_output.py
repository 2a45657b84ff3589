"""Multi-output AWV (docs/choices.md, "Multi-output AWV"): ``K`` target columns share
the learner's one matrix, so output ``j`` of a multi-output learner equals a
single-output learner run on column ``j`` (to 1e-10 relative: the same operations,
only regrouped by the blocked path), single and blocked rounds, ridge and AWV,
discounted or not; an output added later equals one learned with target 0 from the
first round."""

from __future__ import annotations

import pickle

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.errors import InputError
from kernelstream.kernels import Gaussian, Laplacian

K = 3

# Each learner with every setting the multi-output path has: rounds single or
# blocked, AWV or ridge, discounted or not (where the learner has them).
CASES = {
    "TaylorAWV": lambda: ks.TaylorAWV(sigma=1.0, degree=3, lam=0.5, block_size=1),
    "TaylorAWV-blocked": lambda: ks.TaylorAWV(sigma=1.0, degree=3, lam=0.5, block_size=16),
    "TaylorAWV-ridge-blocked": lambda: ks.TaylorAWV(sigma=0.8, degree=3, ridge=True, block_size=8),
    "TaylorAWV-discounted": lambda: ks.TaylorAWV(sigma=1.0, degree=3, gamma=0.97, block_size=1),
    "TaylorAWV-discounted-blocked": lambda: ks.TaylorAWV(
        sigma=1.0, degree=3, gamma=0.97, block_size=16
    ),
    "RFFAWV": lambda: ks.RFFAWV(Gaussian(0.7), n_features=40, seed=3, block_size=1),
    "RFFAWV-ridge-blocked": lambda: ks.RFFAWV(
        Gaussian(0.7), n_features=40, ridge=True, seed=3, block_size=16
    ),
    "RFFAWV-discounted-blocked": lambda: ks.RFFAWV(
        Gaussian(0.7), n_features=40, gamma=0.95, seed=3, block_size=16
    ),
    "NystromAWV": lambda: ks.NystromAWV(Gaussian(0.5), lam=0.5, seed=3, block_size=1),
    "NystromAWV-blocked": lambda: ks.NystromAWV(Gaussian(0.5), lam=0.5, seed=3, block_size=16),
    "NystromAWV-ridge-blocked": lambda: ks.NystromAWV(
        Gaussian(0.6), ridge=True, seed=4, block_size=8
    ),
    "NystromAWV-fixed-blocked": lambda: ks.NystromAWV(
        Gaussian(0.8), dictionary=np.random.default_rng(7).uniform(-1, 1, (15, 3)), block_size=8
    ),
    "KernelAWV": lambda: ks.KernelAWV(Gaussian(0.8), lam=0.5),
    "KernelAWV-ridge": lambda: ks.KernelAWV(Laplacian(1.2), ridge=True, max_size=1000),
}


def data(n, k=K, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3))
    W = rng.standard_normal((3, k))
    Y = np.sin(X @ W) + 0.1 * rng.standard_normal((n, k))
    return X, Y


def assert_rel(a, b, rtol=1e-10):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    scale = max(np.abs(b).max(), 1e-300)
    assert np.abs(a - b).max() <= rtol * scale, np.abs(a - b).max() / scale


@pytest.mark.parametrize("name", sorted(CASES))
def test_k_outputs_equal_k_single_output_learners(name):
    X, Y = data(150)
    multi = CASES[name]()
    P = multi.progressive_predict(X, Y)
    if name.startswith("NystromAWV") and "fixed" not in name:
        assert multi.stats["insertions"] >= 5  # insertions happen mid-stream
    assert P.shape == (150, K) and multi.n_outputs == K
    Xt = data(20, seed=1)[0]
    many = multi.predict_many(Xt)
    one = multi.predict_one(Xt[0])
    assert many.shape == (20, K) and one.shape == (K,)
    ones = []
    for j in range(K):
        single = CASES[name]()
        assert_rel(P[:, j], single.progressive_predict(X, Y[:, j]))
        assert_rel(many[:, j], single.predict_many(Xt))
        ones.append(single.predict_one(Xt[0]))
    assert_rel(one, ones)


@pytest.mark.parametrize("name", sorted(CASES))
def test_learn_one_loop_equals_progressive(name):
    X, Y = data(60)
    a, b = CASES[name](), CASES[name]()
    loop = []
    for x, y in zip(X, Y):
        loop.append(a.predict_one(x) if a.n_outputs else np.zeros(K))
        a.learn_one(x, y)
    assert_rel(np.array(loop[1:]), b.progressive_predict(X, Y)[1:], rtol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_output_added_later_equals_one_with_zero_targets(name):
    """A class first seen at round t0 (one-hot targets): its past targets were 0, so
    its column is added at 0 and the learner continues as if it had been there."""
    X, Y = data(120)
    t0 = 45
    Y[:t0, 2] = 0.0
    full = CASES[name]()
    want = full.progressive_predict(X, Y)
    late = CASES[name]()
    early = late.progressive_predict(X[:t0], Y[:t0, :2])
    with pytest.raises(InputError, match="2 outputs"):
        late.learn_one(X[t0], Y[t0])
    late.add_outputs(1)
    assert late.n_outputs == 3
    rest = late.progressive_predict(X[t0:], Y[t0:])
    assert_rel(early, want[:t0, :2], rtol=1e-12)
    np.testing.assert_array_equal(want[:t0, 2], 0.0)
    assert_rel(rest, want[t0:], rtol=1e-10)
    assert_rel(late.predict_many(X[:10]), full.predict_many(X[:10]), rtol=1e-10)


@pytest.mark.parametrize(
    "name", ["TaylorAWV", "RFFAWV", "KernelAWV", "NystromAWV", "NystromAWV-fixed-blocked"]
)
def test_before_the_first_round(name):
    m = CASES[name]()
    assert m.n_outputs is None
    assert m.predict_one(np.zeros(3)) == 0.0  # K unknown: one value, as one output
    assert m.predict_many(np.zeros((2, 3))).shape == (2,)
    with pytest.raises(InputError, match="before the first round"):
        m.add_outputs(1)
    m.learn_one(np.zeros(3), [1.0])  # a sequence of one target: K = 1
    assert m.n_outputs == 1
    assert isinstance(m.predict_one(np.ones(3)), float)


@pytest.mark.parametrize(
    "name", ["TaylorAWV", "RFFAWV-ridge-blocked", "KernelAWV", "NystromAWV-blocked"]
)
def test_wrong_target_shapes_leave_the_learner_unchanged(name):
    X, Y = data(30)
    m = CASES[name]()
    m.learn_many(X[:10], Y[:10])
    before = pickle.dumps(m)
    bad = [
        lambda: m.learn_one(X[10], Y[10, :2]),  # another K
        lambda: m.learn_one(X[10], 1.0),  # one target on K outputs
        lambda: m.learn_one(X[10], [1.0, np.nan, 0.0]),
        lambda: m.learn_one(X[10], []),
        lambda: m.learn_many(X[10:], Y[10:, :1]),
        lambda: m.learn_many(X[10:], Y[11:]),
        lambda: m.progressive_predict(X[10:], np.hstack([Y[10:], Y[10:]])),
        lambda: m.progressive_predict(X[10:], Y[10:, 0]),  # one target per row
        lambda: m.learn_many(X[10:], np.where(np.eye(20, 3) > 0, np.inf, Y[10:])),
    ]
    for call in bad:
        with pytest.raises(InputError):
            call()
        assert pickle.dumps(m) == before
    assert m.n_seen == 10


@pytest.mark.parametrize(
    "name", ["TaylorAWV-discounted-blocked", "RFFAWV", "KernelAWV-ridge", "NystromAWV-blocked"]
)
def test_pickle_carries_the_outputs(name):
    X, Y = data(80)
    a = CASES[name]()
    a.learn_many(X[:40], Y[:40])
    b = pickle.loads(pickle.dumps(a))
    assert b.n_outputs == K
    np.testing.assert_array_equal(
        a.progressive_predict(X[40:], Y[40:]), b.progressive_predict(X[40:], Y[40:])
    )


@pytest.mark.slow
def test_memory_of_the_outputs_is_checked_before_allocating():
    """K columns of r doubles count against the ceiling before anything is allocated."""
    import subprocess
    import sys

    code = (
        "import kernelstream as ks, numpy as np\n"
        "from kernelstream.errors import InputError\n"
        "ks.set_memory_limit(50_000_000)\n"
        "m = ks.TaylorAWV(sigma=1.0, degree=4)\n"
        "try:\n"
        "    m.learn_one(np.zeros(3), np.zeros(500_000))\n"
        "except InputError as e:\n"
        "    assert 'memory' in str(e), e\n"
        "else:\n"
        "    raise SystemExit('not refused')\n"
        "assert m.n_outputs is None and m.n_seen == 0\n"
        "m.learn_one(np.zeros(3), np.zeros(2))\n"
        "try:\n"
        "    m.add_outputs(500_000)\n"
        "except InputError as e:\n"
        "    assert 'memory' in str(e), e\n"
        "assert m.n_outputs == 2\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# -- mixtures: one rule (weight vector) per output ------------------------------------


def _mixture(rule, blocked=True, **kw):
    bs = None if blocked else 1
    return ks.Mixture(
        [
            ks.TaylorAWV(sigma=1.0, degree=3, block_size=bs and 16),
            ks.RFFAWV(Gaussian(0.7), n_features=30, gamma=0.97, seed=3, block_size=bs and 8),
            ks.NystromAWV(Gaussian(0.6), seed=2, block_size=bs and 8),
            ks.KernelAWV(Gaussian(0.9), ridge=True, max_size=1000),
        ],
        rule=rule,
        threads=1,
        **kw,
    )


@pytest.mark.parametrize("rule", ["boa", "ewa", "vaw", "mlpoly", "aa"])
@pytest.mark.parametrize("blocked", [True, False])
def test_a_mixture_of_k_outputs_equals_k_mixtures(rule, blocked):
    X, Y = data(120)
    multi = _mixture(rule, blocked)
    P = multi.progressive_predict(X, Y)
    assert P.shape == (120, K) and multi.n_outputs == K
    one, ones = multi.predict_one(X[0]), []
    for j in range(K):
        single = _mixture(rule, blocked)
        assert_rel(P[:, j], single.progressive_predict(X, Y[:, j]))
        ones.append(single.predict_one(X[0]))
    assert_rel(one, ones)


@pytest.mark.parametrize("rule", ["boa", "vaw", "mlprod"])
def test_an_output_added_to_a_mixture_equals_one_from_the_start(rule):
    X, Y = data(100)
    t0 = 37
    Y[:t0, 2] = 0.0
    full = _mixture(rule)
    want = full.progressive_predict(X, Y)
    late = _mixture(rule)
    late.progressive_predict(X[:t0], Y[:t0, :2])
    late.add_outputs(1)
    assert_rel(late.progressive_predict(X[t0:], Y[t0:]), want[t0:], rtol=1e-10)
    b = pickle.loads(pickle.dumps(late))
    assert b.n_outputs == 3
    np.testing.assert_array_equal(b.predict_many(X[:5]), late.predict_many(X[:5]))


def test_a_mixture_with_a_single_output_expert_refuses_k_outputs():
    X, Y = data(20)
    nogd = ks.NOGD(Gaussian(0.8), budget=8)
    m = ks.Mixture([ks.TaylorAWV(degree=2), nogd])
    with pytest.raises(InputError, match="one output"):
        m.learn_many(X, Y)
    assert m.n_seen == 0 and m.n_outputs is None
    m.learn_many(X, Y[:, 0])  # one output as before
    assert m.n_outputs == 1
    hinge = ks.FOGD(Gaussian(0.8), n_features=8, seed=1, loss="hinge")
    with pytest.raises(InputError, match="squared loss only"):
        ks.Mixture([ks.TaylorAWV(degree=2), hinge]).learn_many(X, np.sign(Y))


def test_fogd_in_a_mixture_learns_k_outputs_as_k_fogds():
    """FOGD with the squared loss learns K columns inside a mixture (AutoKernel's
    constant-step experts): with FOGD as the only expert (weight 1), column c is, bit
    for bit, a FOGD of the same seed run on column c alone; an output added later
    predicts as one whose targets were all 0 from the first round."""
    X, Y = data(40)

    def fogd():
        return ks.FOGD(Gaussian(0.8), n_features=8, seed=1)

    m = ks.Mixture([fogd()])
    P = m.progressive_predict(X[:30], Y[:30, :2])
    for c in range(2):
        np.testing.assert_array_equal(P[:, c], fogd().progressive_predict(X[:30], Y[:30, c]))
    m.add_outputs(1)
    Q = m.progressive_predict(X[30:], np.c_[Y[30:, :2], Y[30:, 0]])
    zero = fogd()
    zero.learn_many(X[:30], np.zeros(30))
    np.testing.assert_array_equal(Q[:, 2], zero.progressive_predict(X[30:], Y[30:, 0]))
    assert m.n_outputs == 3


# -- AutoKernel: shared scale and experts, one target scale and rule per output --------


def _autokernel(mix=False):
    # the defaults for changing streams on: restarts, linear and discounted experts; the
    # warm-up's nearest-row mix (docs/autokernel.md, step 1) of K outputs is one mix per
    # column with warm_neighbour_outputs, so that a K-output AutoKernel equals K single
    # ones with warm_neighbour as mix (a single output needs no second flag); without the
    # mix, K outputs warm up at the grid centre alone, a single output mixes its
    # warm_widths unless they are empty
    widths = ks.AutoKernel().get_params()["warm_widths"] if mix else ()
    return ks.AutoKernel(
        warmup=30, threads=1, warm_neighbour=mix, warm_neighbour_outputs=mix, warm_widths=widths
    )


def _scaled(Y):
    """Columns of different locations and spreads (each output has its own scale)."""
    return Y * np.array([1.0, 40.0, 0.01]) + np.array([0.0, -7.0, 3.0])


@pytest.mark.slow
@pytest.mark.parametrize("mix", [False, True])
def test_an_autokernel_of_k_outputs_equals_k_autokernels(mix):
    X, Y = data(250)
    Y = _scaled(Y)
    multi = _autokernel(mix)
    P = multi.progressive_predict(X, Y)
    assert P.shape == (250, K) and multi.n_outputs == K
    rounds = _autokernel(mix)
    for x, y in zip(X, Y):
        rounds.learn_one(x, y)
    assert_rel(rounds.predict_many(X[:20]), multi.predict_many(X[:20]))
    for j in range(K):
        single = _autokernel(mix)
        assert_rel(P[:, j], single.progressive_predict(X, Y[:, j]))
        assert single.restart_events["changes"] == 0
        assert_rel(multi.predict_many(X[:20])[:, j], single.predict_many(X[:20]))
        assert_rel(multi.predict_one(X[0])[j], single.predict_one(X[0]))


@pytest.mark.parametrize("mix", [False, True])
@pytest.mark.parametrize("t0", [11, 70])
def test_an_output_added_to_an_autokernel_equals_one_from_the_start(t0, mix):
    X, Y = data(150)
    Y = _scaled(Y)
    Y[:t0, 2] = 0.0
    want = _autokernel(mix).progressive_predict(X, Y)
    late = _autokernel(mix)
    late.progressive_predict(X[:t0], Y[:t0, :2])
    late.add_outputs(1)
    assert_rel(late.progressive_predict(X[t0:], Y[t0:]), want[t0:])
    b = pickle.loads(pickle.dumps(late))
    assert b.n_outputs == 3
    np.testing.assert_array_equal(b.predict_many(X[:5]), late.predict_many(X[:5]))


def test_an_autokernel_refuses_other_target_shapes_and_is_unchanged():
    X, Y = data(60)
    a = _autokernel()
    with pytest.raises(InputError):
        a.add_outputs(1)
    a.learn_many(X, Y)
    before, p = a.__getstate__(), a.predict_many(X[:5])
    for bad in [Y[0, :2], np.r_[Y[0], 1.0], [1.0, np.nan, 0.0]]:
        with pytest.raises(InputError):
            a.learn_one(X[0], bad)
    with pytest.raises(InputError):
        a.learn_one(X[0], 1.0)
    with pytest.raises(InputError):
        a.progressive_predict(X[:3], Y[:3, :2])
    assert a.__getstate__() == before and a.n_seen == 60
    np.testing.assert_array_equal(a.predict_many(X[:5]), p)
