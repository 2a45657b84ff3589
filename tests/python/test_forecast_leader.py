"""The forecaster's played forecast (``kernelstream.forecast.leader``): follow the leader
with a margin, from its definition."""

from __future__ import annotations

import numpy as np
import pytest
from kernelstream.forecast.leader import MARGIN, Leader


def _run(Z, y, margin=MARGIN):
    agg, played, switches = Leader(Z.shape[1], margin), [], []
    for t in range(y.size):
        played.append(agg.predict(Z[t]))
        before = agg.best
        agg.update(Z[t], y[t])
        if agg.best != before:
            switches.append((t, before, agg.best))
    return np.array(played), switches, agg


def _definition(Z, y, margin):
    """Recomputed from the sums of the rounds so far: the incumbent changes to the leader
    once the leader's cumulative loss is below the incumbent's by more than the margin."""
    best, played = 0, []
    for t in range(y.size):
        played.append(Z[t, best])
        L = ((Z[: t + 1] - y[: t + 1, None]) ** 2).sum(0)
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


def test_without_a_margin_it_is_follow_the_leader():
    Z, y = _experts(5)
    played, _, _ = _run(Z, y, 0.0)
    L = np.vstack([np.zeros(Z.shape[1]), np.cumsum((Z - y[:, None]) ** 2, axis=0)[:-1]])
    lead = L.argmin(1)
    unique = np.sort(L, 1)[:, 1] > L.min(1)  # no tie for the lead
    np.testing.assert_array_equal(played[unique], Z[np.flatnonzero(unique), lead[unique]])
