#!/usr/bin/env python3
"""A dynamic importance sampler for SRG that speaks samplercheck's protocol.

Protocol version 1, map kind: one JSON request a line on standard input,
one JSON answer a line on standard output. Standard library only. Every
decision is exact: a float key a is an integer multiple of 2^-1074, so the
sampler keeps A = a * 2^1074 as a Python int, and decides rho, the MaxSum
check and Algorithm 4's map from u to an item in integer arithmetic;
lambda and p are exact quotients rounded once to the nearest float.

Check it with:  go run ./cmd/samplercheck -- python3 cmd/samplercheck/testdata/refsampler.py
"""

import json
import math
import sys
from fractions import Fraction

SCALE = 1074  # a float is an integer multiple of 2^-SCALE
MAX_SUM = 2 ** 831 << SCALE  # reweighted.MaxSum, scaled


class Error(Exception):
    """An error of the protocol: its name, and a message."""

    def __init__(self, name, message):
        super().__init__(message)
        self.name = name


def scaled(a):
    """The float a >= 0 as the integer a * 2^1074."""
    num, den = a.as_integer_ratio()
    return num * ((1 << SCALE) // den)


def parse_float(x):
    """A float of the protocol: a JSON number, or "NaN", "+Inf", "-Inf"."""
    if isinstance(x, str):
        return {"NaN": math.nan, "+Inf": math.inf, "-Inf": -math.inf}[x]
    return float(x)


def fmt(x):
    """A float as the protocol writes it: shortest round-trip repr."""
    if math.isnan(x):
        return '"NaN"'
    if math.isinf(x):
        return '"+Inf"' if x > 0 else '"-Inf"'
    return repr(x)


class Sampler:
    def __init__(self, n):
        self.n = n
        self.keys = [0.0] * n
        self.ints = [0] * n  # the keys, scaled
        self.total = 0
        self.order = None  # canonical order and prefix sums, until a Set
        self.solved = {}  # eps -> its solution, until a Set

    def set(self, i, a):
        if self.n == 0:
            raise Error("ErrEmpty", "no items")
        if not 0 <= i < self.n:
            raise Error("ErrIndex", f"index {i} not in [0, {self.n})")
        if not (0 <= a <= 2.0 ** 831):  # false for NaN
            raise Error("ErrKey", f"key {a}")
        big = scaled(a)
        total = self.total - self.ints[i] + big
        if total > MAX_SUM:
            raise Error("ErrKey", f"key {a} would make the sum of keys exceed MaxSum")
        self.keys[i], self.ints[i], self.total = a + 0.0, big, total  # -0 is stored as 0
        self.order, self.solved = None, {}

    def check_eps(self, eps):
        if self.n == 0:
            raise Error("ErrEmpty", "no items")
        if not (0 <= eps <= 1 / self.n):
            raise Error("ErrEpsilon", f"eps {eps} not in [0, 1/{self.n}]")

    def sorted(self):
        """The canonical order (key descending, then index) and prefix sums."""
        if self.order is None:
            order = sorted(range(self.n), key=lambda i: (-self.keys[i], i))
            prefix = [0]
            for i in order:
                prefix.append(prefix[-1] + self.ints[i])
            rank = [0] * self.n
            for r, i in enumerate(order):
                rank[i] = r + 1
            self.order = (order, prefix, rank)
        return self.order

    def solve(self, eps):
        """rho, and eps as the fraction num/den (exactly 1/n at eps = 1/n)."""
        if eps in self.solved:
            return self.solved[eps]
        n = self.n
        order, prefix, _ = self.sorted()
        e = Fraction(1, n) if eps == 1 / n else Fraction(eps)
        num, den = e.numerator, e.denominator
        if prefix[n] == 0:
            rho = n
        else:
            # Lemma 1: rho is the largest r with a_(r) (1 - (n - r) eps) >= eps S(r).
            rho = max(r for r in range(1, n + 1)
                      if self.ints[order[r - 1]] * (den - (n - r) * num) >= num * prefix[r])
        self.solved[eps] = (rho, num, den)
        return self.solved[eps]

    def lam(self, eps):
        rho, num, den = self.solve(eps)
        s = self.sorted()[1][rho]
        if s == 0:
            return 0.0
        # lambda = S(rho) / (1 - (n - rho) eps), rounded once.
        return (s * den) / ((den - (self.n - rho) * num) << SCALE)

    def prob(self, i, eps):
        rho, num, den = self.solve(eps)
        order, prefix, rank = self.sorted()
        if prefix[self.n] == 0:
            return 1 / self.n
        if rank[i] > rho:
            return eps
        # p = a_i / lambda, rounded once.
        return (self.ints[i] * (den - (self.n - rho) * num)) / (prefix[rho] * den)

    def sample(self, eps, u):
        rho, num, den = self.solve(eps)
        order, prefix, rank = self.sorted()
        n = self.n
        if prefix[n] == 0:
            return order[int(Fraction(u) * n)], 1 / n
        un, ud = u.as_integer_ratio()
        c = den - (n - rho) * num  # 1 - (n - rho) eps, times den
        if un * den < c * ud:
            # Head: the smallest rank whose partial sum exceeds lambda u,
            # S(r) c ud > S(rho) den un.
            target = prefix[rho] * den * un
            lo, hi = 1, rho
            while lo < hi:
                mid = (lo + hi) // 2
                if prefix[mid] * c * ud > target:
                    hi = mid
                else:
                    lo = mid + 1
            r = lo
            # An item whose p rounds to 0 is never drawn: the nearest rank
            # above it, all of whose keys between are as tiny, is.
            while r > 1 and self.prob(order[r - 1], eps) == 0:
                r -= 1
        else:
            # Tail: r = n - floor((u - (1 - (n - rho) eps)) / eps), in [rho + 1, n].
            k = ((un * den - c * ud) // (num * ud))
            r = max(rho + 1, min(n, n - k))
        i = order[r - 1]
        return i, self.prob(i, eps)


def answer(s, req):
    op = req["op"]
    if op == "kind":
        if req["version"] != 1:
            sys.exit(f"refsampler.py speaks protocol version 1, not {req['version']}")
        return '{"kind":"map"}'
    if op == "set":
        s.set(req["i"], parse_float(req["a"]))
        return "{}"
    if op == "solve":
        eps = parse_float(req["eps"])
        s.check_eps(eps)
        return '{"rho":%d,"lambda":%s}' % (s.solve(eps)[0], fmt(s.lam(eps)))
    if op == "prob":
        i, eps = req["i"], parse_float(req["eps"])
        if s.n == 0:
            raise Error("ErrEmpty", "no items")
        if not 0 <= i < s.n:
            raise Error("ErrIndex", f"index {i} not in [0, {s.n})")
        s.check_eps(eps)
        return '{"p":%s}' % fmt(s.prob(i, eps))
    if op == "sample":
        eps, u = parse_float(req["eps"]), parse_float(req["u"])
        s.check_eps(eps)
        if not (0 <= u < 1):
            raise Error("ErrUniform", f"u {u} not in [0, 1)")
        i, p = s.sample(eps, u)
        return '{"i":%d,"p":%s}' % (i, fmt(p))
    raise ValueError(f"unknown op {op!r}")


def main():
    s = Sampler(0)
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "new":
            s = Sampler(req["n"])
            out = "{}"
        else:
            try:
                out = answer(s, req)
            except Error as e:
                out = json.dumps({"error": e.name, "message": str(e)})
        sys.stdout.write(out + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
