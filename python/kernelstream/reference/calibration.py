"""NumPy reference of the online softmax calibration (``kernelstream.calibration``).

Written from the definitions: logits ``z_k = a s_k``, ``p = softmax(z)``, the derivative
of the log loss ``-log p_y`` in ``a``, and the Online Newton Step of Hazan, Agarwal and
Kale (2007, Algorithm 2) in one dimension with ``A_0 = lam``: ``A_t = A_{t-1} + gamma
g^2``, ``a <- a - g / A_t``, projected onto ``a >= 0.001``. The derivative is taken by
differentiating ``log sum_k exp(a s_k) - a s_y`` (a log-sum-exp), not copied from the
Rust formula.
"""

from __future__ import annotations

import numpy as np

A_MIN = 1e-3


class SoftmaxCalibrator:
    """The calibrator: the softmax layer (``a``, ``A``), then with ``binning`` the second
    stage (:class:`TopLabelBinning`) on its probabilities."""

    def __init__(self, lam: float = 0.1, gamma: float = 0.3, binning: bool = True):
        self.lam, self.gamma = lam, gamma
        self.a, self.A = A_MIN, lam
        self.stage2 = TopLabelBinning() if binning else None

    def first_stage(self, s) -> np.ndarray:
        z = self.a * np.asarray(s, dtype=float)
        e = np.exp(z - z.max())
        return e / e.sum()

    def predict_proba(self, s) -> np.ndarray:
        p = self.first_stage(s)
        return p if self.stage2 is None else self.stage2.predict_proba(p)

    def learn(self, s, label: int) -> None:
        if self.stage2 is not None:
            self.stage2.learn(self.first_stage(s), label)
        s = np.asarray(s, dtype=float)
        w = np.exp(self.a * s - (self.a * s).max())
        g = (w * s).sum() / w.sum() - s[label]  # d/da [log sum exp(a s) - a s_y]
        self.A += self.gamma * g * g
        self.a = max(self.a - g / self.A, A_MIN)

    def progressive_proba(self, S, y) -> np.ndarray:
        out = []
        for s, label in zip(np.asarray(S, dtype=float), y):
            out.append(self.predict_proba(s))
            self.learn(s, int(label))
        return np.array(out)


def isotonic(g, u) -> np.ndarray:
    """The non-decreasing fit of ``g`` with weights ``u`` by the max-min formula
    ``h_b = max_{i <= b} min_{j >= b} mean_u(g[i..j])`` (Robertson, Wright and Dykstra,
    *Order restricted statistical inference*, 1988, Theorem 1.4.4), not by pooling."""
    cu, cg = np.concatenate([[0.0], np.cumsum(u)]), np.concatenate([[0.0], np.cumsum(u * g)])
    B = len(g)
    i, j = np.meshgrid(np.arange(B), np.arange(B), indexing="ij")
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(j >= i, (cg[j + 1] - cg[i]) / (cu[j + 1] - cu[i]), np.inf)
    # tail[a, b] = min_{j >= b} mean[a, j]; then the max over a <= b
    tail = np.minimum.accumulate(mean[:, ::-1], axis=1)[:, ::-1]
    return np.where(i <= j, tail, -np.inf).max(axis=0)


class TopLabelBinning:
    """The second stage, from its definition (``src/calibration/binning.rs``): the floor
    ``eps = 1 / (2 (n + 1))``, the top-label log-odds ``v``, model 0 the first stage and
    one histogram of ``v`` per bin width, its m-estimates ``(k_b + m c_b) / (n_b + m)`` at
    the bin centres made non-decreasing (``isotonic``) and interpolated, averaged with
    weights equal to the product of each model's past predictive probabilities. Each bin's
    counts are recounted from the whole history of ``(v, hit)`` and the weights are the
    plain products (no running sums, no log shift)."""

    WIDTHS = (2.0, 1.0, 0.5, 0.25, 0.125)
    V_MAX, M = 12.0, 2.0

    def __init__(self):
        self.history: list[tuple[float, bool]] = []
        self.evidence = np.ones(len(self.WIDTHS) + 1)  # prod of predictive probabilities

    def _round(self, p):
        p = np.asarray(p, dtype=float)
        K, n = p.size, len(self.history)
        eps = 1.0 / (2.0 * (n + 1))
        pt = (1.0 - eps) * p + eps / K
        j = int(np.argmax(p))
        c = pt[j]
        o = np.delete(pt, j).sum()
        v = max(np.log(c * (K - 1) / o), 0.0)
        return p, pt, j, c, o, v

    def models(self, p) -> np.ndarray:
        """Each model's probability of the event "label = top class"."""
        p, _, _, c, _, v = self._round(p)
        K = p.size
        out = [c]
        for w in self.WIDTHS:
            B = int(round(self.V_MAX / w))
            u = np.array([h for h, _ in self.history], dtype=float)
            hits = np.array([hit for _, hit in self.history], dtype=float)
            b = np.minimum(np.floor(u / w).astype(int), B - 1)
            n = np.bincount(b, minlength=B).astype(float)
            k = np.bincount(b, weights=hits, minlength=B)
            x = (np.arange(B) + 0.5) * w
            cb = np.exp(x) / (np.exp(x) + K - 1)  # the first stage at the centres
            h = isotonic((k + self.M * cb) / (n + self.M), n + self.M)
            out.append(np.interp(v, x, h))  # constant beyond the end centres
        return np.array(out)

    def predict_proba(self, p) -> np.ndarray:
        p, pt, j, c, o, v = self._round(p)
        if p.size == 1:
            return np.ones(1)
        q = self.evidence @ self.models(p) / self.evidence.sum()
        s = np.delete(pt, j).max()
        # half the lead over the runner-up kept; a tie stays a tie
        q = s / (o + s) if c == s else max(q, (c + s / (o + s)) / 2)
        out = (1.0 - q) * pt / o
        out[j] = q
        return out

    def learn(self, p, label: int) -> None:
        if np.size(p) == 1:
            return
        _, _, j, _, o, v = self._round(p)
        hit = label == j
        q = self.models(p)
        miss = 1.0 - q
        miss[0] = o  # the first stage's 1 - c, as the sum of the other classes
        self.evidence *= q if hit else miss
        self.history.append((v, hit))
