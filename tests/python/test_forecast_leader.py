"""The forecaster's played forecast (``kernelstream.forecast.leader``): follow the leader
with a margin, from its definition."""

from __future__ import annotations

import kernelstream as ks
import numpy as np
import pytest
from kernelstream.forecast.leader import (
    MARGIN,
    PERIOD_PRIOR,
    PRIOR_FROM,
    Leader,
    Pooled,
    period_prior,
)


def _run(Z, y, margin=MARGIN, prior=None):
    agg, played, switches = Leader(Z.shape[1], margin, prior), [], []
    for t in range(y.size):
        played.append(agg.predict(Z[t]))
        before = agg.best
        agg.update(Z[t], y[t])
        if agg.best != before:
            switches.append((t, before, agg.best))
    return np.array(played), switches, agg


def _definition(Z, y, margin, prior=0.0):
    """Recomputed from the sums of the rounds so far: the incumbent changes to the leader
    once the leader's cumulative loss (from its prior) is below the incumbent's by more
    than the margin."""
    best, played = 0, []
    for t in range(y.size):
        played.append(Z[t, best])
        L = prior + ((Z[: t + 1] - y[: t + 1, None]) ** 2).sum(0)
        j = int(np.argmin(L))
        if L[best] - L[j] > margin:
            best = j
    return np.array(played)


def _experts(seed, n=600):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n).cumsum()
    last = np.concatenate([[0.0], y[:-1]])
    lev, ses = 0.0, []
    for v in last:
        lev += 0.5 * (v - lev)
        ses.append(lev)
    step = y - last
    Z = np.column_stack([last, ses, last + 0.3 * rng.normal(size=n), last + 0.4 * step])
    return Z, y


@pytest.mark.parametrize("margin", [0.0, MARGIN, 5.0])
def test_leader_plays_what_its_definition_says(margin):
    Z, y = _experts(3)
    played, _, _ = _run(Z, y, margin)
    np.testing.assert_array_equal(played, _definition(Z, y, margin))


@pytest.mark.parametrize("seed", range(4))
def test_played_loss_is_the_incumbents_plus_what_each_switch_paid(seed):
    # telescoping the incumbent's cumulative loss: the played loss is the last incumbent's
    # cumulative loss plus, per switch at round t, L_t(old) - L_t(new); before round t no
    # expert led by more than the margin, so each term is at most the margin plus that
    # round's loss difference, and the last incumbent is within the margin of the best
    Z, y = _experts(seed)
    played, switches, agg = _run(Z, y)
    loss = (Z - y[:, None]) ** 2
    cum = np.cumsum(loss, axis=0)
    paid = [cum[t, a] - cum[t, b] for t, a, b in switches]
    total = np.sum((played - y) ** 2)
    assert total == pytest.approx(cum[-1, agg.best] + sum(paid), rel=1e-12)
    bound = cum[-1].min() + MARGIN * (len(switches) + 1)
    bound += sum(loss[t, a] - loss[t, b] for t, a, b in switches)
    assert total <= bound + 1e-9
    assert agg.best == 3  # the expert that knows part of each step is found, and pays:
    assert total < cum[-1, 0]  # less than the last value's loss


@pytest.mark.parametrize("seed", range(3))
def test_a_prior_is_the_initial_loss(seed):
    Z, y = _experts(seed)
    prior = np.array([0.0, 0.0, 2.0, 7.5])
    played, _, _ = _run(Z, y, MARGIN, prior)
    np.testing.assert_array_equal(played, _definition(Z, y, MARGIN, prior))
    assert not np.array_equal(played, _definition(Z, y, MARGIN))  # the prior matters here


@pytest.mark.parametrize("seed", range(4))
def test_played_loss_bound_with_a_prior(seed):
    # the telescoped sum of the played-loss test with the losses started at the prior:
    # each switch pays at most the margin, its round's loss difference and the difference
    # of the priors (new minus old), which telescope to the last incumbent's prior minus
    # the first's (zero): against every expert j the played loss is at most
    # L_j + prior_j + margin (switches + 1) + the switches' round differences
    Z, y = _experts(seed)
    prior = np.array([0.0, 1.0, 3.0, 6.0])
    played, switches, agg = _run(Z, y, MARGIN, prior)
    loss = (Z - y[:, None]) ** 2
    cum = np.cumsum(loss, axis=0)
    total = np.sum((played - y) ** 2)
    paid = [cum[t, a] - cum[t, b] for t, a, b in switches]
    assert total == pytest.approx(cum[-1, agg.best] + sum(paid), rel=1e-12)
    rounds = sum(loss[t, a] - loss[t, b] for t, a, b in switches)
    bound = cum[-1] + prior + MARGIN * (len(switches) + 1) + rounds
    assert np.all(total <= bound + 1e-9)
    assert total > cum[-1, agg.best]  # the prior delayed the switch to expert 3: paid
    assert agg.best == 3


def test_period_prior_favours_the_last_value_over_a_period_not_given():
    keys = ["last", "ses0.2", "ses0.5", "snaive4", "snaive7", "snaive12", "snaive24"]
    want = PERIOD_PRIOR * np.array([0, 0, 0, 0, 0, 0, 24 - PRIOR_FROM])
    np.testing.assert_array_equal(period_prior(keys, None), want)
    want[-1] = 0.0  # the period given: no prior
    np.testing.assert_array_equal(period_prior(keys, 24), want)


def test_a_lucky_first_round_of_a_period_not_given_is_not_played():
    # a random walk (the benchmark's syn_random_walk): the seasonal naive of period 24,
    # the last value until round 24, beats it at round 24 by 26 squared units of the
    # running scale (a jump of 5 scales); given as the period it is played at rounds 25
    # and 26 (and loses both); not given it starts 18 units behind and is not played
    y = np.random.default_rng(1).normal(size=500).cumsum()[:60]
    sc = np.mean(np.abs(np.diff(y[:24])))
    lead = ((y[24] - y[23]) ** 2 - (y[24] - y[0]) ** 2) / sc**2
    assert lead > MARGIN + PERIOD_PRIOR * (24 - PRIOR_FROM)
    given = ks.Forecaster(season=24).progressive_forecast(y)[:, 0]
    found = ks.Forecaster().progressive_forecast(y)[:, 0]
    np.testing.assert_array_equal(given[25:27], y[1:3])
    assert not np.any(found[25:27] == y[1:3])
    assert np.sum((found[25:27] - y[25:27]) ** 2) < np.sum((given[25:27] - y[25:27]) ** 2)


def test_without_a_margin_it_is_follow_the_leader():
    Z, y = _experts(5)
    played, _, _ = _run(Z, y, 0.0)
    L = np.vstack([np.zeros(Z.shape[1]), np.cumsum((Z - y[:, None]) ** 2, axis=0)[:-1]])
    lead = L.argmin(1)
    unique = np.sort(L, 1)[:, 1] > L.min(1)  # no tie for the lead
    np.testing.assert_array_equal(played[unique], Z[np.flatnonzero(unique), lead[unique]])


def _pooled_definition(V, Y, T0, margin):
    """Incumbents per round of :class:`Pooled`, from the sums of the rounds so far:
    ``V[t, k, j]`` candidate ``j``'s forecast of horizon ``k`` scored at round ``t``
    against ``Y[t, k]``; the last candidate appears at round ``T0`` (compared on the rounds
    from ``T0`` on); the others on every round."""
    T, H, J = V.shape
    best, out = [0] * H, []
    for t in range(T):
        for k in range(1, H):
            i, top, pick = best[k], margin, None
            for c in range(J):
                if c == i or (c == J - 1 and t < T0):
                    continue
                lo = T0 if J - 1 in (i, c) else 0
                lead = [0.0, 0.0]
                for j in range(k + 1):
                    e = V[lo : t + 1, j] - Y[lo : t + 1, j, None]
                    for q, loss in enumerate((e * e, np.abs(e))):
                        if loss.shape[0] and loss[:, i].sum() > 0:
                            lead[q] += (loss[:, i].sum() - loss[:, c].sum()) / loss[:, i].mean()
                if lead[0] > top and lead[1] > margin:
                    top, pick = lead[0], c
            if pick is not None:
                best[k] = pick
        out.append(list(best))
    return np.array(out)


def _pooled_run(V, Y, T0, margin=MARGIN):
    T, H, J = V.shape
    pool, out = Pooled([f"e{j}" for j in range(J - 1)], H, margin), []
    for t in range(T):
        if t == T0:
            pool.add(["late"])
        n = J if t >= T0 else J - 1
        for k in range(H):
            pool.update(k, pool.index(pool.keys[:n]), V[t, k, :n], Y[t, k], t >= T0)
        pool.refresh()
        out.append(list(pool.best))
    return np.array(out)


@pytest.mark.parametrize("seed", range(3))
def test_pooled_leader_plays_what_its_definition_says(seed):
    rng = np.random.default_rng(seed)
    T, H, T0 = 80, 3, 30
    Y = rng.normal(size=(T, H)).cumsum(0)
    noise = np.array([1.0, 0.7, 1.3, 0.5])  # the last candidate (late) is the best
    V = Y[:, :, None] + noise * rng.normal(size=(T, H, 4))
    got = _pooled_run(V, Y, T0)
    np.testing.assert_array_equal(got, _pooled_definition(V, Y, T0, MARGIN))
    assert got[:, 0].max() == 0  # horizon 1 is not the pool's
    assert (got[:T0, 1:] != 3).all() and (got[-1, 1:] == 3).all()


def test_pooled_leader_keeps_the_incumbent_unless_both_losses_lead():
    # candidate 1 has the smaller squared loss (never a large error) but the larger
    # absolute one: it is never played (a rule on the squared loss alone would play it)
    rng = np.random.default_rng(7)
    T, H = 200, 2
    Y = rng.normal(size=(T, H))
    big = np.where(rng.random((T, H)) < 0.1, 4.0, 0.0) * rng.choice([-1, 1], size=(T, H))
    V = np.stack([Y + big, Y + 0.9 * np.sign(rng.normal(size=(T, H))), Y + big], axis=2)
    e = V - Y[:, :, None]
    assert (e[:, :, 1] ** 2).sum() < (e[:, :, 0] ** 2).sum()
    assert np.abs(e[:, :, 1]).sum() > np.abs(e[:, :, 0]).sum()
    got = _pooled_run(V, Y, T0=100)
    assert 1 not in got[:, 1]
    assert (got[:100, 1] == 0).all()
    # the late copy of the incumbent never leads it: equal losses from its first round
    assert (got[:, 1] == 0).all()
